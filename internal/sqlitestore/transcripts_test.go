package sqlitestore

import (
	"database/sql"
	"slices"
	"testing"
)

// Transcripts walks the events' key one seek per session: it names the
// very sessionIds a scan of every event does (SELECT DISTINCT), in order,
// whatever bytes they are made of and however many events each has.
func TestTranscriptsAreTheDistinctSessions(t *testing.T) {
	p := Path(copyFixture(t), "main")
	w, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, sid := range []string{"", " ", "A", "a", "a ", "a\x00b", "ä", "日本", "\U0001F600", "zz", "zz"} {
		mustExec(t, w, `INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, '{"type":"message"}', 1)`, sid, 1000+i)
	}
	rows, err := w.Query(`SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	rows.Close()
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ts, err := db.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range ts {
		got = append(got, tr.SessionID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Transcripts named\n%q\nwant the distinct sessionIds\n%q", got, want)
	}
}
