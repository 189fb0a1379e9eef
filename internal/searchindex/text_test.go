package searchindex

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/search"
)

// TestTextsOfAnOlderIndex: candidates read before an update (or from
// another index) get an error from Texts, never another message's text.
func TestTextsOfAnOlderIndex(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	line := func(id, text string) string {
		return `{"type":"message","id":"` + id + `","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	writeFile(t, p, line("m1", "deploy the zqxone")+line("m2", "deploy again"))
	srcs := []search.Source{{Path: p}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Candidates(search.Query{Pattern: "deploy"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Texts(res); err != nil {
		t.Fatal(err)
	}
	cs := res.Sources[SourceID(&srcs[0])]
	if len(cs) != 2 || cs[0].ID != "m1" || cs[0].Text != "deploy the zqxone" || cs[1].ID != "m2" || cs[1].Text != "deploy again" {
		t.Fatalf("kept texts: %+v", cs)
	}
	other, err := Open(t.TempDir(), "other")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Texts(res); err == nil {
		t.Error("Texts of another index's candidates: no error")
	}
	writeFile(t, p, line("m3", "deploy anew")) // rewritten: documents renumbered
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Texts(res); err == nil {
		t.Error("Texts of candidates from before an update: no error")
	}
}
