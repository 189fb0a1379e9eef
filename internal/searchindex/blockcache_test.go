package searchindex

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/search"
)

// TestBlockCacheKeepsWhatFitsOfOnePass: a pass that reads more blocks than
// the cache holds keeps the first that fit and never evicts its own (an
// LRU would leave the next pass of the same blocks nothing); the next
// pass finds them, and evicts what it did not use for what it decodes.
func TestBlockCacheKeepsWhatFitsOfOnePass(t *testing.T) {
	s1, s2 := &segment{}, &segment{}
	c := newBlockCache(3 << 10)
	block := func() keptBlock { return keptBlock{raw: make([]byte, 1<<10-16), offs: make([]uint32, 4)} }
	c.begin()
	for k := range 5 {
		if _, ok := c.get(s1, k); ok {
			t.Fatalf("block %d kept before it was put", k)
		}
		if got, want := c.put(s1, k, block()), k < 3; got != want {
			t.Errorf("pass 1, block %d: kept %v, want %v", k, got, want)
		}
	}
	c.begin()
	for k := range 5 {
		if _, ok := c.get(s1, k); ok != (k < 3) {
			t.Errorf("pass 2, block %d: found %v", k, ok)
		}
	}
	c.begin()
	c.get(s1, 0)
	if !c.put(s2, 0, block()) { // evicts s1's 1, least recently used, not this pass's
		t.Fatal("a block of a new pass not kept")
	}
	if _, ok := c.get(s1, 1); ok {
		t.Error("the least recently used block was not the one evicted")
	}
	if _, ok := c.get(s1, 0); !ok {
		t.Error("a block this pass used was evicted")
	}
	c.forget(s1)
	for k := range 3 {
		if _, ok := c.get(s1, k); ok {
			t.Errorf("block %d of a forgotten segment still kept", k)
		}
	}
	if _, ok := c.get(s2, 0); !ok || c.bytes != 1<<10 {
		t.Errorf("another segment's block lost (%d bytes kept)", c.bytes)
	}
}

// TestMatchFromKeptBlocks: an Index keeps decoded text blocks from its
// second query on (a first query, a CLI's, keeps none), the queries after
// read them from the cache with the same answer, and an update that
// replaces the segments leaves no block of an unmapped one to be read:
// every answer is a fresh index's.
func TestMatchFromKeptBlocks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	write := func(gen int) {
		var b strings.Builder
		for i := range 4000 {
			word := "idle"
			if (i+gen)%3 == 0 {
				word = "deploy"
			}
			fmt.Fprintf(&b, `{"type":"message","id":"g%dm%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"message %d of generation %d says %s %s"}}`+"\n",
				gen, i, i, gen, word, strings.Repeat("padding ", 10))
		}
		writeFile(t, p, b.String())
	}
	write(0)
	srcs := []search.Source{{Path: p}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText = 256 << 10 // several segments of several blocks
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Pattern: "deploy"}
	m, err := search.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	o := &search.Options{Matcher: m}
	match := func(ix *Index) (MatchStats, []bool) {
		t.Helper()
		res, err := ix.Candidates(q, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := ix.Match(res, false, o.Accepts)
		if err != nil {
			t.Fatal(err)
		}
		var marks []bool
		for _, c := range res.Sources[SourceID(&srcs[0])] {
			marks = append(marks, c.Matched)
		}
		return st, marks
	}
	fresh := func() (MatchStats, []bool) {
		t.Helper()
		other, err := Open(filepath.Dir(filepath.Dir(ix.Dir())), "state")
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		return match(other)
	}
	first, marks := match(ix)
	if ix.blocks != nil || first.Kept != 0 || first.Blocks < 4 {
		t.Fatalf("first query: %+v, a cache %v (want none, and blocks to read)", first, ix.blocks != nil)
	}
	for n := 2; n <= 3; n++ {
		st, got := match(ix)
		if st.Matched != first.Matched || fmt.Sprint(got) != fmt.Sprint(marks) || st.Blocks != first.Blocks {
			t.Fatalf("query %d: %+v, first %+v: another answer", n, st, first)
		}
		if want := map[bool]int{false: 0, true: st.Blocks}[n == 3]; st.Kept != want {
			t.Errorf("query %d: %d of %d blocks from the cache, want %d", n, st.Kept, st.Blocks, want)
		}
	}
	write(1) // rewritten: indexed anew, the segments merged, the old ones dropped
	ix.maxSegs = 1
	if st, err := ix.Update(context.Background(), srcs); err != nil || !st.Merged {
		t.Fatal(st, err)
	}
	st, got := match(ix)
	want, wantMarks := fresh()
	if st.Matched != want.Matched || fmt.Sprint(got) != fmt.Sprint(wantMarks) || st.Matched == first.Matched {
		t.Fatalf("after the rewrite: %d matched, a fresh index %d (before it %d)", st.Matched, want.Matched, first.Matched)
	}
	for e := ix.blocks.lru.Front(); e != nil; e = e.Next() {
		s := e.Value.(*blockEnt).key.s
		if ix.segs[s.id] != s {
			t.Fatalf("a block of segment %d, no longer mapped, still kept", s.id)
		}
	}
	// A cache smaller than a query's blocks: the same answer, and the
	// next query finds the part that fit (read by one worker: two may
	// race, one evicting a block the other was about to find).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ix.blocks = newBlockCache(3 * textBlock)
	match(ix)
	st, got = match(ix)
	if st.Matched != want.Matched || fmt.Sprint(got) != fmt.Sprint(wantMarks) || st.Kept == 0 || st.Kept >= st.Blocks {
		t.Errorf("a small cache: %+v (a fresh index matched %d)", st, want.Matched)
	}
}

// TestScanSetFollowsTheIndex: Result.Scan, found once per version of the
// index and MaxLine, is each version's: a source that turns unclean is in
// it after the update, a MaxLine below a source's longest line puts it in.
func TestScanSetFollowsTheIndex(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	line := func(id, text string) string {
		return `{"type":"message","id":"` + id + `","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	writeFile(t, a, line("a1", "deploy one")+line("a2", "deploy "+strings.Repeat("x", 300)))
	writeFile(t, b, line("b1", "deploy two"))
	srcs := []search.Source{{Path: a}, {Path: b}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	update := func() {
		t.Helper()
		if _, err := ix.Update(context.Background(), srcs); err != nil {
			t.Fatal(err)
		}
	}
	update()
	scan := func(f Filter) string {
		t.Helper()
		res, err := ix.Candidates(search.Query{Pattern: "deploy"}, f)
		if err != nil {
			t.Fatal(err)
		}
		var in []string
		for i := range srcs {
			if res.Scan[SourceID(&srcs[i])] {
				in = append(in, filepath.Base(srcs[i].Path))
			}
		}
		return fmt.Sprint(in)
	}
	for _, step := range []struct {
		f      Filter
		append string
		want   string
	}{
		{Filter{}, "", "[]"},
		{Filter{}, "", "[]"},
		{Filter{MaxLine: 200}, "", "[a.jsonl]"},
		{Filter{}, "", "[]"},
		{Filter{}, "{not json\n", "[b.jsonl]"},
		{Filter{MaxLine: 200}, "", "[a.jsonl b.jsonl]"},
	} {
		if step.append != "" {
			appendFile(t, b, step.append)
			update()
		}
		if got := scan(step.f); got != step.want {
			t.Errorf("MaxLine %d, after %q: Scan %s, want %s", step.f.MaxLine, step.append, got, step.want)
		}
	}
}
