package searchindex

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/search"
)

// pieces are what random texts are made of: every script, cases whose
// folds leave ASCII (Kelvin sign, long s), emoji, and what a JSON writer
// escapes.
var pieces = []string{
	"hello", "Hello", "HELLO", "world", "deploy", "сервер", "СЕРВЕР", "Сервер", "再起動", "日本語", "🙂", "🚀",
	"k", "K", "\u212a", "s", "S", "ſ", "ab", "AB", " ", "\n", "\t", `"`, `\`, "/", "é", "É", "ß", "ǅ", "sk-live-1234567890abcdef",
}

func randText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) + 1 {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// jsonString writes s as a JSON string, its non-ASCII characters raw or
// (esc) as \u escapes, as different writers do.
func jsonString(s string, esc bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		case c >= 0x80 && esc:
			if c > 0xffff {
				c -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var lineNo atomic.Int64

// randLine is one transcript line: a user, assistant (maybe with a tool
// call) or tool result message, sometimes not a message or corrupt.
func randLine(r *rand.Rand) string {
	n := lineNo.Add(1)
	esc := r.IntN(3) == 0
	ts := fmt.Sprintf("2026-11-%02dT10:00:00.000Z", r.IntN(28)+1)
	id := fmt.Sprintf("m%d", n)
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf(`{"type":"session","id":%q}`, id)
	case 1:
		return `{"type":"message","message":{"role":"user","content":` + jsonString(randText(r), esc) // corrupt
	case 2, 3:
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":"c1","name":%s,"arguments":{"q":%s}},{"type":"text","text":%s}]}}`,
			id, ts, jsonString(randText(r), esc), jsonString(randText(r), esc), jsonString(randText(r), esc), jsonString(randText(r), esc))
	case 4:
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":%s}]}}`,
			id, ts, jsonString(randText(r), esc))
	case 5:
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":%s}]}}`,
			id, ts, jsonString(randText(r), esc))
	case 6:
		// its text, then its call: the text without tools is the start
		// of the text with them
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":"c1","name":%s,"arguments":{"q":%s}}]}}`,
			id, ts, jsonString(randText(r), esc), jsonString(randText(r), esc), jsonString(randText(r), esc))
	case 7:
		// two messages: search without tools passes the line over (its
		// first is a tool result), with them reads the last
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"toolResult","content":"r"},"message":{"role":%q,"content":%s}}`,
			id, ts, []string{"user", "assistant"}[r.IntN(2)], jsonString(randText(r), esc))
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"user","content":%s}}`, id, ts, jsonString(randText(r), esc))
}

// randQuery is a literal (a piece of a text, or random pieces), with or
// without -i, or a regex with or without a literal to select by.
func randQuery(r *rand.Rand, texts []string) search.Query {
	lit := randText(r)
	switch src := randText(r); {
	case r.IntN(3) > 0 && len(texts) > 0:
		src = texts[r.IntN(len(texts))] // a message's text: across its parts too
		fallthrough
	case r.IntN(2) == 0:
		// A run of runes of a text.
		if rs := []rune(src); len(rs) > 0 {
			i := r.IntN(len(rs))
			lit = string(rs[i:min(len(rs), i+1+r.IntN(12))])
		}
	}
	if r.IntN(5) == 0 {
		// Three bytes folded, what the postings alone may prove: a CJK
		// character, three ASCII bytes, a letter of two bytes and one.
		if f := appendFold(nil, lit); len(f) > 3 {
			k := 0
			for _, c := range lit {
				if n := k + utf8.RuneLen(c); n <= 3 {
					k = n
				} else {
					break
				}
			}
			lit = lit[:k]
		}
		return search.Query{Pattern: lit, IgnoreCase: r.IntN(2) == 0}
	}
	switch r.IntN(7) {
	case 6:
		// An alternation with a branch too short to select by.
		_, n := utf8.DecodeRuneInString(lit)
		return search.Query{Pattern: "(?:zqzq|" + regexp.QuoteMeta(lit[:n]) + ")" + regexp.QuoteMeta(lit[n:]), Regex: true}
	case 0:
		return search.Query{Pattern: lit, IgnoreCase: true}
	case 1:
		return search.Query{Pattern: regexp.QuoteMeta(lit), Regex: true, IgnoreCase: r.IntN(2) == 0}
	case 2:
		a, b := regexp.QuoteMeta(randText(r)), regexp.QuoteMeta(randText(r))
		exprs := []string{a + ".*" + b, "(" + a + "|" + b + ")x?", "(" + a + "|k)" + b, "(?:" + a + ")+", a + "[0-9]*" + b, "^" + a, "[a-z]+", "(?i)" + a + "\\b"}
		return search.Query{Pattern: exprs[r.IntN(len(exprs))], Regex: true, IgnoreCase: r.IntN(3) == 0}
	}
	return search.Query{Pattern: lit}
}

func randFilter(r *rand.Rand) Filter {
	f := Filter{IncludeTools: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		f.Roles = []string{search.Roles[r.IntN(3)]}
	}
	if r.IntN(4) == 0 {
		f.Since = 1795255200000 + int64(r.IntN(28))*86400000
	}
	return f
}

// scanHits is the scan's answer (search's streaming scanner over every
// source): each hit as "source pos id snippet".
func scanHits(t testing.TB, srcs []search.Source, q search.Query, f Filter, mask search.Masker) []string {
	t.Helper()
	m, err := search.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	o := &search.Options{Matcher: m, IncludeTools: f.IncludeTools, Roles: f.Roles, Since: f.Since, Until: f.Until, Mask: mask}
	var out []string
	res := search.Run(srcs, o, 0, 0, 1)
	for _, h := range res.Hits {
		out = append(out, hitKey(&srcs[h.Src], h.Hit))
	}
	slices.Sort(out)
	return out
}

func hitKey(src *search.Source, h search.Hit) string {
	name := filepath.Base(src.Path)
	if src.DB != nil {
		name = src.SessionID
	}
	return fmt.Sprintf("%s %d %s %s %d %q %d-%d", name, h.Pos, h.ID, h.Role, h.Timestamp, h.Snippet, h.MatchStart, h.MatchEnd)
}

// indexHits is the index's answer: the candidates verified by the real
// match on their lines. It also checks that the candidates hold every scan
// hit, even where the verification would not be run (all: nil).
func indexHits(t testing.TB, ix *Index, srcs []search.Source, q search.Query, f Filter, mask search.Masker) (hits []string, all bool) {
	t.Helper()
	res, err := ix.Candidates(q, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.All {
		return nil, true
	}
	m, err := search.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	o := &search.Options{Matcher: m, IncludeTools: f.IncludeTools, Roles: f.Roles, Since: f.Since, Until: f.Until, Mask: mask}
	for i := range srcs {
		cs := res.Sources[SourceID(&srcs[i])]
		pos := make([]int64, len(cs))
		for k, c := range cs {
			pos[k] = c.Pos
		}
		if !slices.IsSorted(pos) || len(slices.Compact(slices.Clone(pos))) != len(pos) {
			t.Fatalf("candidates of %s not in position order or repeated: %v", srcs[i].Path, pos)
		}
		err := Lines(&srcs[i], pos, func(p int64, line []byte) {
			if h, ok, _ := o.Line(line, p); ok {
				hits = append(hits, hitKey(&srcs[i], h))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(hits)
	// The same answer from the text the index keeps (Texts), no line read.
	if err := ix.Texts(res); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for i := range srcs {
		for _, c := range res.Sources[SourceID(&srcs[i])] {
			if h, ok := o.Accept(c.Message(o.IncludeTools), c.Pos); ok {
				kept = append(kept, hitKey(&srcs[i], h))
			}
		}
	}
	slices.Sort(kept)
	if !slices.Equal(kept, hits) {
		t.Fatalf("query %+v filter %+v:\nfrom the kept text %d hits %q\nfrom the lines     %d hits %q", q, f, len(kept), kept, len(hits), hits)
	}
	// The same hits counted by Match (proved by the postings, or matched
	// on the kept text without a copy of it), the shown ones' text then
	// read (TextsOf).
	mres, err := ix.Candidates(q, f)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Match(mres, o.IncludeTools, o.Accepts)
	if err != nil {
		t.Fatal(err)
	}
	var matched []*Candidate
	var srcOf []int
	for i := range srcs {
		cs := mres.Sources[SourceID(&srcs[i])]
		for k := range cs {
			if cs[k].Matched {
				matched, srcOf = append(matched, &cs[k]), append(srcOf, i)
			}
		}
	}
	if st.Matched != len(hits) || len(matched) != len(hits) {
		t.Fatalf("query %+v filter %+v: Match counts %d (%d marked, %d proved), the lines give %d hits", q, f, st.Matched, len(matched), st.Proved, len(hits))
	}
	if err := ix.TextsOf(mres, matched); err != nil {
		t.Fatal(err)
	}
	var marked []string
	for k, c := range matched {
		h, ok := o.Accept(c.Message(o.IncludeTools), c.Pos)
		if !ok {
			t.Fatalf("query %+v filter %+v: a candidate Match marked (proved %v) is no hit: %q", q, f, c.proved, c.Message(o.IncludeTools).Text)
		}
		marked = append(marked, hitKey(&srcs[srcOf[k]], h))
	}
	slices.Sort(marked)
	if !slices.Equal(marked, hits) {
		t.Fatalf("query %+v filter %+v:\nmarked by Match %q\nfrom the lines  %q", q, f, marked, hits)
	}
	return hits, false
}

// world is a state of JSONL transcripts that random edits change.
type world struct {
	dir  string
	srcs []search.Source
}

func (w *world) path(i int) string { return filepath.Join(w.dir, fmt.Sprintf("s%d.jsonl", i)) }

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func lines(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(randLine(r) + "\n")
	}
	return b.String()
}

// edit changes the world at random: appends (sometimes a torn last line,
// sometimes finishing one), rewrites in place or by rename, truncations,
// deletions and new files.
func (w *world) edit(t testing.TB, r *rand.Rand) {
	i := r.IntN(5)
	p := w.path(i)
	_, err := os.Stat(p)
	exists := err == nil
	switch op := r.IntN(8); {
	case !exists || op == 0:
		writeFile(t, p, lines(r, r.IntN(6)))
	case op <= 2:
		appendFile(t, p, lines(r, 1+r.IntN(3)))
	case op == 3:
		appendFile(t, p, randLine(r)) // torn or complete JSON without its '\n'
	case op == 4: // rewritten in place (same inode)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(lines(r, r.IntN(6)))
		f.Close()
	case op == 5: // replaced by rename
		writeFile(t, p+".new", lines(r, r.IntN(6)))
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	case op == 6: // truncated mid-line
		fi, _ := os.Stat(p)
		if err := os.Truncate(p, r.Int64N(fi.Size()+1)); err != nil {
			t.Fatal(err)
		}
	default:
		os.Remove(p)
	}
	w.srcs = w.srcs[:0]
	for k := range 5 {
		if _, err := os.Stat(w.path(k)); err == nil {
			w.srcs = append(w.srcs, search.Source{Path: w.path(k)})
		}
	}
}

// checkQueries asks n random queries of both the scan and the index.
func checkQueries(t testing.TB, r *rand.Rand, ix *Index, srcs []search.Source, n int, mask search.Masker) {
	t.Helper()
	var texts []string
	for i := range srcs {
		for _, tools := range []bool{false, true} {
			_, msgs, _ := search.Messages(&srcs[i], tools, 0)
			for _, m := range msgs {
				texts = append(texts, m.Text)
			}
		}
	}
	for range n {
		q, f := randQuery(r, texts), randFilter(r)
		if _, err := search.Compile(q); err != nil {
			continue
		}
		want := scanHits(t, srcs, q, f, mask)
		got, all := indexHits(t, ix, srcs, q, f, mask)
		if all {
			if lit, _ := plan(q); !q.Regex && len(appendFold(nil, q.Pattern)) >= 3 {
				t.Fatalf("literal %q of %d folded bytes cannot select (%v)", q.Pattern, len(appendFold(nil, q.Pattern)), lit)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %+v filter %+v:\nindex %d hits %q\nscan  %d hits %q", q, f, len(got), got, len(want), want)
		}
	}
}

// oracle runs random edits and queries from seed.
func oracle(t testing.TB, seed uint64, steps int, mask search.Masker) {
	r := rand.New(rand.NewPCG(seed, seed>>32|1))
	w := &world{dir: t.TempDir()}
	var ix *Index
	var err error
	if mask != nil {
		ix, err = OpenMasked(t.TempDir(), "state", "default", mask)
	} else {
		ix, err = Open(t.TempDir(), "state")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// Many small segments and merges of all; or a segment per update, and
	// merges of the small ones that follow the first.
	ix.segText, ix.maxSegs = 1+r.IntN(400), 1+r.IntN(4)
	if r.IntN(2) == 0 {
		ix.segText = 1 << 20
	}
	for range steps {
		for range 1 + r.IntN(3) {
			w.edit(t, r)
		}
		// Updated as Update does it, or as a search does: the backlog
		// first, its stamps (the sources' own, or the listing's) handed
		// to the update.
		switch r.IntN(3) {
		case 0:
			if _, err := ix.Update(context.Background(), w.srcs); err != nil {
				t.Fatal(err)
			}
		default:
			srcs := w.srcs
			if r.IntN(2) == 0 {
				srcs = listed(t, srcs)
			}
			b, err := ix.Backlog(srcs)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ix.UpdateStamped(context.Background(), srcs, b.Stamps); err != nil {
				t.Fatal(err)
			}
		}
		// the records it holds are those on disk (edited in place)
		sameOnDisk(t, ix)
		checkQueries(t, r, ix, w.srcs, 6, mask)
	}
}

// FuzzIndex is the index's oracle: random transcripts in every script
// (Latin, CJK, Cyrillic, emoji, \u escapes, cases that fold out of ASCII),
// random appends, rewrites, truncations and deletions between queries, and
// random queries (literal, -i, regex) with random filters: the candidates,
// verified by the real match on their lines, give exactly the scan's hits
// — so they hold every true match — and a query that cannot select says
// so.
func FuzzIndex(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { oracle(t, seed, 8, nil) })
}

// FuzzIndexMasked is FuzzIndex for an agent's index, built from the masked
// text, against the agent's (masked) scan.
func FuzzIndexMasked(f *testing.F) {
	for _, s := range []uint64{7, 8, 9} {
		f.Add(s)
	}
	mask := sanitize.NewRedactor(nil, nil)
	f.Fuzz(func(t *testing.T, seed uint64) { oracle(t, seed, 6, mask) })
}

func TestFoldMatchesRegexpFolding(t *testing.T) {
	// Two runes match under (?i) exactly when they fold alike.
	for _, rs := range [][2]rune{{'k', '\u212a'}, {'s', 'ſ'}, {'с', 'С'}, {'ǅ', 'ǆ'}, {'é', 'É'}} {
		a, b := string(rs[0]), string(rs[1])
		if !regexp.MustCompile("(?i)"+regexp.QuoteMeta(a)).MatchString(b) || !bytes.Equal(appendFold(nil, a), appendFold(nil, b)) {
			t.Errorf("%q and %q: fold %q vs %q", a, b, appendFold(nil, a), appendFold(nil, b))
		}
	}
	if !utf8.Valid(appendFold(nil, "再起動🙂Ǆ")) {
		t.Error("fold broke UTF-8")
	}
}

// TestIndexOracle runs the oracle over more seeds than the fuzz corpus, on
// every run of the tests.
func TestIndexOracle(t *testing.T) {
	n := uint64(24)
	if testing.Short() {
		n = 8
	}
	mask := sanitize.NewRedactor(nil, nil)
	for s := range n {
		oracle(t, 1000+s, 8, nil)
		if s%4 == 0 {
			oracle(t, 2000+s, 6, mask)
		}
	}
}

// builtIndex is an index of state in cache, brought up to date over srcs,
// closed when the test ends.
func builtIndex(t *testing.T, cache string, srcs []search.Source) *Index {
	t.Helper()
	return builtIndexOf(t, cache, srcs, 0)
}

// builtIndexOf is builtIndex in segments of about segText bytes of text (0:
// the index's own).
func builtIndexOf(t *testing.T, cache string, srcs []search.Source, segText int) *Index {
	t.Helper()
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if segText > 0 {
		ix.segText = segText
	}
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	return ix
}
