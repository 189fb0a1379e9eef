package searchindex

import (
	"cmp"
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
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
	ix := builtIndex(t, t.TempDir(), srcs)
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
	ix := builtIndex(t, t.TempDir(), srcs)
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

// postings gives each trigram's documents ascending, trigrams ascending:
// what sorting the (trigram, document) pairs by trigram, stably, gives —
// each pair once, though a document's trigrams repeat (as docTrigrams'
// may). Trigrams from a few high 12 bits (buckets sorted whole) and from
// all (buckets sorted by their count).
func TestPostings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	draws := []func() trigram{
		func() trigram { return r.Uint32N(1 << 24) },
		func() trigram { return r.Uint32N(1<<14) << 10 },
		func() trigram { return r.Uint32N(1<<9) << 15 },
		func() trigram { return r.Uint32N(8)<<12 | r.Uint32N(1<<12) }, // buckets of thousands
	}
	for span, draw := range draws {
		var tris []trigram
		var tends []int
		var pairs []uint64
		for n := range 3000 {
			seen := map[trigram]bool{}
			for range r.IntN(40) {
				tr := draw()
				if !seen[tr] {
					seen[tr] = true
					tris = append(tris, tr)
					pairs = append(pairs, uint64(tr)<<32|uint64(n))
				} else if r.IntN(2) == 0 {
					tris = append(tris, tr) // a repeat
				}
			}
			tends = append(tends, len(tris))
		}
		slices.SortStableFunc(pairs, func(a, b uint64) int { return cmp.Compare(a>>32, b>>32) })
		var got []uint64
		var prev int64 = -1
		postings(tris, tends, nil, nil, func(tr trigram, ids []uint32) {
			if int64(tr) <= prev || len(ids) == 0 {
				t.Fatalf("trigram %x after %x, %d documents", tr, prev, len(ids))
			}
			prev = int64(tr)
			for _, id := range ids {
				got = append(got, uint64(tr)<<32|uint64(id))
			}
		})
		if !slices.Equal(got, pairs) {
			t.Fatalf("draw %d: postings not sorted by trigram in document order", span)
		}
	}
}

// TestMatchCountsWithoutKeepingText: Match says of each candidate what
// Accepts says of its kept text; a query whose folded form the index holds
// exactly (three bytes, -i or caseless: one CJK character, "404") is
// answered from the postings, no block decoded, except for a message whose
// trigrams are those of two texts (tool calls); a longer one decodes each
// block that holds a candidate, once.
func TestMatchCountsWithoutKeepingText(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	var b strings.Builder
	user := func(id, text string) {
		b.WriteString(`{"type":"message","id":"` + id + `","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n")
	}
	for i := range 3000 {
		switch i % 4 {
		case 0:
			user("u"+strconv.Itoa(i), "please 再起動 the deploy 404 now "+strings.Repeat("filler text ", i%7))
		case 1:
			user("u"+strconv.Itoa(i), "再 and dep loy, 40 4, DEPLOY")
		case 2:
			b.WriteString(`{"type":"message","id":"a` + strconv.Itoa(i) + `","timestamp":"2026-11-22T10:00:01.000Z","message":{"role":"assistant","content":[` +
				`{"type":"text","text":"no hit here"},{"type":"toolCall","name":"exec","arguments":{"cmd":"再 404 deploy"}}]}}` + "\n")
		default:
			user("u"+strconv.Itoa(i), "nothing at all "+strconv.Itoa(i))
		}
	}
	writeFile(t, p, b.String())
	srcs := []search.Source{{Path: p}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText = 40 << 10 // several segments, merged
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q      search.Query
		tools  bool
		proved bool // every candidate without tool calls proved
	}{
		{search.Query{Pattern: "再"}, false, true},
		{search.Query{Pattern: "再"}, true, true},
		{search.Query{Pattern: "404"}, true, true},
		{search.Query{Pattern: "dEp", IgnoreCase: true}, false, true},
		{search.Query{Pattern: "dep"}, false, false}, // case matters: DEP is not dep
		{search.Query{Pattern: "deploy"}, false, false},
		{search.Query{Pattern: "deploy", IgnoreCase: true}, true, false},
		{search.Query{Pattern: "再起動"}, false, false},
		{search.Query{Pattern: "40[4]", Regex: true}, false, false},
	} {
		m, err := search.Compile(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		o := &search.Options{Matcher: m, IncludeTools: tc.tools}
		f := Filter{IncludeTools: tc.tools}
		res, err := ix.Candidates(tc.q, f)
		if err != nil {
			t.Fatal(err)
		}
		var texts atomic.Int64 // accepts runs on every core
		st, err := ix.Match(res, tc.tools, func(m search.Message) bool {
			texts.Add(1)
			return o.Accepts(m)
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ix.Candidates(tc.q, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Texts(want); err != nil {
			t.Fatal(err)
		}
		cs, ws := res.Sources[SourceID(&srcs[0])], want.Sources[SourceID(&srcs[0])]
		hits, proved, tools := 0, 0, 0
		blocks := map[[2]int]bool{}
		for i := range ws {
			_, ok := o.Accept(ws[i].Message(tc.tools), ws[i].Pos)
			if cs[i].Matched != ok {
				t.Fatalf("%+v: candidate %d (%q): matched %v, Accept %v", tc.q, i, ws[i].Message(tc.tools).Text, cs[i].Matched, ok)
			}
			if ok {
				hits++
			}
			if cs[i].ToolCalls {
				tools++
			}
			if cs[i].proved {
				proved++
			} else {
				s := ix.segs[cs[i].seg]
				blocks[[2]int{int(cs[i].seg), s.blockOf(cs[i].doc)}] = true
			}
		}
		if hits == 0 || st.Matched != hits {
			t.Fatalf("%+v: %d hits, Match says %d", tc.q, hits, st.Matched)
		}
		if tc.proved && proved != len(cs)-tools {
			t.Errorf("%+v: %d of %d candidates proved by the postings (%d with tool calls)", tc.q, proved, len(cs), tools)
		}
		if !tc.proved && proved != 0 {
			t.Errorf("%+v: %d candidates taken as proved", tc.q, proved)
		}
		if st.Blocks != len(blocks) || int(texts.Load()) != len(cs)-proved {
			t.Errorf("%+v: %d blocks decoded for %d holding candidates not proved; %d texts matched for %d", tc.q, st.Blocks, len(blocks), texts.Load(), len(cs)-proved)
		}
	}
}

// A merge's readers (two per segment) hold at most mergeReadBufs together
// however many segments it merges, each at least 4 KiB, at most
// segReadBuf.
func TestMergeReadBufsBounded(t *testing.T) {
	for _, k := range []int{0, 1, 2, 17, 128, 900, 5000} {
		b := mergeReadBuf(k)
		if b < 4<<10 || b > segReadBuf || (2*k*b > mergeReadBufs && b > 4<<10) {
			t.Errorf("a merge of %d segments: readers of %d bytes", k, b)
		}
	}
	if mergeReadBuf(2) != segReadBuf {
		t.Errorf("a merge of 2 segments: readers of %d bytes, not %d", mergeReadBuf(2), segReadBuf)
	}
}
