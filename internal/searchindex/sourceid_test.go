package searchindex

import (
	"testing"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// TestAppendSourceID: the bytes a search looks its sources up by are
// SourceID's, for each kind of source.
func TestAppendSourceID(t *testing.T) {
	path, _ := sqliteState(t)
	db, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, src := range []search.Source{
		{Path: "/state/agents/main/sessions/a b.jsonl"},
		{Path: ""},
		{DB: db, SessionID: "s1"},
		{DB: db, SessionID: "s1", Archive: &sqlitestore.Archive{Name: "s1.reset.2026"}},
	} {
		got := string(AppendSourceID([]byte("prefix"), &src))
		if want := "prefix" + SourceID(&src); got != want {
			t.Errorf("%q, SourceID %q", got, want)
		}
	}
}
