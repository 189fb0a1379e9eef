package searchindex

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/search"
)

// TestMaskedIndexHoldsNoSecret: an agent's index is built from the masked
// text, so a query for a secret's hidden middle has no candidate in it
// (while the raw index finds it): what an agent's search selects never
// comes from raw text. Both indexes of one state live apart.
func TestMaskedIndexHoldsNoSecret(t *testing.T) {
	const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, p, `{"type":"message","id":"a","message":{"role":"user","content":"token `+secret+` here"}}`+"\n")
	srcs := []search.Source{{Path: p}}
	cache := t.TempDir()
	raw, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	mask := sanitize.NewRedactor(nil, nil)
	agent, err := OpenMasked(cache, "state", "default", mask)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if raw.Dir() == agent.Dir() {
		t.Fatal("the raw and the masked index share a directory")
	}
	for _, ix := range []*Index{raw, agent} {
		if _, err := ix.Update(context.Background(), srcs); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []search.Query{{Pattern: "mnopqrstuv"}, {Pattern: "MNOPQRSTUV", IgnoreCase: true}, {Pattern: "ghp_ab.*opqr", Regex: true}} {
		res, err := raw.Candidates(q, Filter{})
		if err != nil || len(res.Sources[SourceID(&srcs[0])]) != 1 {
			t.Fatalf("raw index, %+v: %v %v", q, res, err)
		}
		res, err = agent.Candidates(q, Filter{})
		if err != nil || res.All || len(res.Sources) != 0 {
			t.Fatalf("masked index, %+v: candidates %v %v", q, res, err)
		}
	}
	// What the agent may read of it is found.
	if got, _ := indexHits(t, agent, srcs, search.Query{Pattern: "token ghp_ab"}, Filter{}, mask); len(got) != 1 {
		t.Fatalf("masked text not found: %v", got)
	}
}
