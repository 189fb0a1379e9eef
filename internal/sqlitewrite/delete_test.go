package sqlitewrite

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

const cronKey = "agent:main:cron:peer-job-1"

// rowText is every column of the first row of q, "|"-joined, NULL as "".
func rowText(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return "<none>"
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.String
	}
	return strings.Join(out, "|")
}

// DeleteEntry leaves exactly the row the real 2026.9.6 left after
// sessions.delete {key: agent:main:cron:peer-job-1, deleteTranscript:
// false} on this fixture (observed through its gateway): the placeholder
// {} / entry_valid -1 on the window's session id and updated_at, every
// promoted column NULL; the window and its 7 events kept; every other
// row untouched.
func TestDeleteEntryAs96(t *testing.T) {
	state := copyState(t)
	p := Path(state, "main")
	db := rawDB(t, p)
	otherBefore := rowText(t, db, "SELECT * FROM session_nodes WHERE session_key = ?", mainKey)
	winBefore := rowText(t, db, "SELECT * FROM session_windows WHERE session_key = ?", cronKey)
	events := queryInt(t, db, "SELECT count(*) FROM transcript_events WHERE session_id = '130e6651-40d6-4085-8221-cad6e8e68328'")
	w := openWriter(t, state, "main")
	res, err := w.DeleteEntry(cronKey, "130E6651-40d6-4085-8221-cad6e8e68328", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Placeholder || res.Windows != 1 || res.SessionID != "130e6651-40d6-4085-8221-cad6e8e68328" || res.UpdatedAt != 1795238251630 {
		t.Fatalf("result %+v", res)
	}
	want := "agent:main:cron:peer-job-1|130e6651-40d6-4085-8221-cad6e8e68328|{}||-1|1795238251630" + strings.Repeat("|", 25)
	if got := rowText(t, db, "SELECT * FROM session_nodes WHERE session_key = ?", cronKey); got != want {
		t.Fatalf("row\n got %s\nwant %s", got, want)
	}
	if got := rowText(t, db, "SELECT * FROM session_windows WHERE session_key = ?", cronKey); got != winBefore {
		t.Fatalf("window changed:\n%s\n%s", winBefore, got)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM transcript_events WHERE session_id = '130e6651-40d6-4085-8221-cad6e8e68328'"); n != events || n != 7 {
		t.Fatalf("%d events left, want %d", n, events)
	}
	if got := rowText(t, db, "SELECT * FROM session_nodes WHERE session_key = ?", mainKey); got != otherBefore {
		t.Fatal("another row changed")
	}
	if s := queryString(t, db, "PRAGMA integrity_check"); s != "ok" {
		t.Fatal(s)
	}
	// Deleted again: the placeholder is not a valid entry.
	_, err = w.DeleteEntry(cronKey, "", 0)
	wantCode(t, err, apperr.CodeState)
	_, err = w.DeleteEntry("agent:main:nope", "", 0)
	wantCode(t, err, apperr.CodeNotFound)
}

// A sessionId that changed since it was read, or a session with a run
// going, is refused and nothing is written.
func TestDeleteEntryRefusals(t *testing.T) {
	state := copyState(t)
	p := Path(state, "main")
	w := openWriter(t, state, "main")
	before := fileHash(t, p)
	_, err := w.DeleteEntry(cronKey, "00000000-0000-0000-0000-000000000000", 0)
	wantCode(t, err, apperr.CodeError)
	if !errors.Is(err, ErrChanged) {
		t.Fatal(err)
	}
	_, err = w.DeleteEntry(cronKey, "", 1795238251630) // updatedAt is not before it
	if !errors.Is(err, ErrChanged) {
		t.Fatal(err)
	}
	if fileHash(t, p) != before {
		t.Fatal("a refused delete changed the database")
	}
	db := rawDB(t, p)
	mustExec(t, db, "UPDATE session_nodes SET status = 'running' WHERE session_key = ?", cronKey)
	mustExec(t, db, "PRAGMA wal_checkpoint(TRUNCATE)")
	mid := rowText(t, db, "SELECT * FROM session_nodes WHERE session_key = ?", cronKey)
	_, err = w.DeleteEntry(cronKey, "", 0)
	wantCode(t, err, apperr.CodeState)
	if got := rowText(t, db, "SELECT * FROM session_nodes WHERE session_key = ?", cronKey); got != mid {
		t.Fatal("refused delete changed the row")
	}
}

// A row with no transcript window goes entirely.
func TestDeleteEntryWithoutWindow(t *testing.T) {
	state := copyState(t)
	p := Path(state, "main")
	db := rawDB(t, p)
	w := openWriter(t, state, "main")
	mustExec(t, db, "PRAGMA foreign_keys = OFF")
	// Move the window (and so its events) under main's key: the cron row
	// is left with none of its own.
	mustExec(t, db, "UPDATE session_windows SET session_key = ? WHERE session_key = ?", mainKey, cronKey)
	res, err := w.DeleteEntry(cronKey, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Placeholder {
		t.Fatal("placeholder kept without a window")
	}
	if n := queryInt(t, db, "SELECT count(*) FROM session_nodes WHERE session_key = ?", cronKey); n != 0 {
		t.Fatal("row kept")
	}
}
