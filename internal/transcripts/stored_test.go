package transcripts_test

import (
	"database/sql"
	"slices"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/transcripts"
)

// A 2026.8+ store's orphans are listed from the store once per version of
// it (its database file and -wal): listed again while nothing changed,
// the store is not asked; an event of a new sessionId committed, or
// deleted, is seen at the next listing.
func TestStoreOrphansKeptPerVersion(t *testing.T) {
	dir := copyFixture(t, "state-2026.9.6")
	// far enough ahead that every version is trusted (not racy)
	defer transcripts.SetStoredClock(func() time.Time { return time.Now().Add(time.Hour) })()
	orphans := func() []string {
		t.Helper()
		s := open(t, dir)
		set, err := transcripts.Open(s, transcripts.Options{AllAgents: true, Agent: "main"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for a := range set.All() {
			for _, o := range a.Orphans(s) {
				if o.File == nil {
					ids = append(ids, o.SessionID)
				}
			}
		}
		return ids
	}
	reads := transcripts.StoredReads()
	first := orphans()
	if transcripts.StoredReads() != reads+1 {
		t.Fatalf("the first listing asked the store %d time(s), want 1", transcripts.StoredReads()-reads)
	}
	reads = transcripts.StoredReads()
	if again := orphans(); !slices.Equal(again, first) || transcripts.StoredReads() != reads {
		t.Fatalf("unchanged store: %q then %q, %d read(s) of the store", first, again, transcripts.StoredReads()-reads)
	}
	s := open(t, dir)
	db, err := sql.Open("sqlite", "file:"+s.SQLitePath("main"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('zz-kept-orphan', 1, '{}', 1795255200000)`); err != nil {
		t.Fatal(err)
	}
	if got := orphans(); !slices.Contains(got, "zz-kept-orphan") || len(got) != len(first)+1 {
		t.Fatalf("after a commit: %q, before %q", got, first)
	}
	if _, err := db.Exec(`DELETE FROM transcript_events WHERE session_id = 'zz-kept-orphan'`); err != nil {
		t.Fatal(err)
	}
	if got := orphans(); !slices.Equal(got, first) {
		t.Fatalf("after the delete: %q, before %q", got, first)
	}
}
