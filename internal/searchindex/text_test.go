package searchindex

import (
	"cmp"
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

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

// TestTextsOfALongMessage: a message as long as the scan reads (megabytes,
// with and without its tool calls) is kept and read back whole, not taken
// for a damaged block; the messages around it too.
func TestTextsOfALongMessage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	long := strings.Repeat("lorem ipsum ", 3<<20/12) + "zqxlong"
	call := `{"type":"message","id":"m2","timestamp":"2026-11-22T10:00:01.000Z","message":{"role":"assistant","content":[` +
		`{"type":"text","text":"` + long + `"},{"type":"toolCall","name":"exec","arguments":{"cmd":"` + long + `"}}]}}` + "\n"
	writeFile(t, p, `{"type":"message","id":"m1","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"zqxlong before"}}`+"\n"+
		call+`{"type":"message","id":"m3","timestamp":"2026-11-22T10:00:02.000Z","message":{"role":"user","content":"zqxlong after"}}`+"\n")
	srcs := []search.Source{{Path: p}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Candidates(search.Query{Pattern: "zqxlong"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Texts(res); err != nil {
		t.Fatal(err)
	}
	cs := res.Sources[SourceID(&srcs[0])]
	if len(cs) != 3 || cs[0].Text != "zqxlong before" || cs[2].Text != "zqxlong after" || !cs[1].ToolCalls ||
		cs[1].TextNoTools != long || !strings.HasPrefix(cs[1].Text, long) || len(cs[1].Text) <= 2*len(long) {
		t.Fatalf("kept texts: %d candidates", len(cs))
	}
}

// foldRune's table and its range with no case agree with the orbits of
// every rune.
func TestFoldRuneTable(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := foldRune(r), foldOrbit(r); got != want {
			t.Fatalf("foldRune(%U) = %U, its orbit's smallest is %U", r, got, want)
		}
	}
}

// sortPairs sorts by trigram and keeps the document order within one.
func TestSortPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	pairs := make([]uint64, 5000)
	for i := range pairs {
		pairs[i] = uint64(r.Uint32N(1<<24))<<32 | uint64(i)
	}
	want := slices.Clone(pairs)
	slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(a>>32, b>>32) })
	got, _ := sortPairs(slices.Clone(pairs), nil)
	if !slices.Equal(got, want) {
		t.Fatal("sortPairs: not sorted by trigram in document order")
	}
}
