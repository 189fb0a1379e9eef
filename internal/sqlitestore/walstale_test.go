package sqlitestore

import (
	"testing"

	"github.com/openclaw/sessions/internal/transcript"
)

// A connection opened immutable on a quiescent store sees what a writer
// commits afterwards into the -wal: a follow started before a write gets it.
func TestImmutableSeesLaterWALCommits(t *testing.T) {
	dir := copyFixture(t)
	db, err := Open(Path(dir, "main"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.mode != modeImmutable {
		t.Fatalf("mode %s, want immutable", db.mode)
	}
	first, err := db.Messages(mainSession, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// a writer appends an event (a copy of the last one, next seq) and
	// keeps its connection open: the commit stays in the -wal
	w := rw(t, Path(dir, "main"))
	defer w.Close()
	mustExec(t, w, "PRAGMA journal_mode=WAL")
	mustExec(t, w, "PRAGMA wal_autocheckpoint=0")
	mustExec(t, w, `CREATE TEMP TABLE last AS SELECT * FROM transcript_events WHERE session_id = ? AND event_json LIKE '%"type":"message"%'
		ORDER BY seq DESC LIMIT 1`, mainSession)
	mustExec(t, w, "UPDATE last SET seq = (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?)", mainSession)
	mustExec(t, w, "INSERT INTO transcript_events SELECT * FROM last")
	res, err := db.MessagesSince(mainSession, first.Size, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Size != first.Size+1 {
		t.Fatalf("after the write: %d new messages, size %d (was %d)", len(res.Messages), res.Size, first.Size)
	}
}
