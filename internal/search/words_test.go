package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func compileWords(t testing.TB, q string) *Matcher {
	t.Helper()
	m, err := Compile(Query{Pattern: q, Words: true})
	if err != nil {
		t.Fatalf("Compile(%q): %v", q, err)
	}
	return m
}

func TestParseWords(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"restart gateway", []string{"RESTART", "GATEWAY"}},
		{`  "restart  the gateway"  now `, []string{"RESTART THE GATEWAY", "NOW"}},
		{"“curly quoted” x", []string{"CURLY QUOTED", "X"}},
		{`open "phrase runs to the end`, []string{"OPEN", "PHRASE RUNS TO THE END"}},
		{"deploy? (why) deploy", []string{"DEPLOY", "WHY"}},
		{"-> a", []string{"->", "A"}},
		{"ＤＥＰＬＯＹ　再起動", []string{"DEPLOY", "再起動"}},
		{`"" x`, []string{"X"}},
	} {
		w, err := parseWords(c.q)
		if err != nil {
			t.Fatalf("parseWords(%q): %v", c.q, err)
		}
		var got []string
		for _, tm := range w.terms {
			got = append(got, tm.text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("parseWords(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	for _, q := range []string{"", "   ", `""`, "\u3000", `" "`} {
		if _, err := Compile(Query{Pattern: q, Words: true}); err == nil {
			t.Errorf("Compile(%q, words): no error", q)
		}
	}
	if _, err := Compile(Query{Pattern: "x", Words: true, Regex: true}); err == nil {
		t.Error("words with regex: no error")
	}
}

func TestWordsMatch(t *testing.T) {
	for _, c := range []struct {
		q, text string
		match   string // the text found (the earliest term), "" = no hit
	}{
		{"gateway restart", "I will restart the gateway now", "restart"},
		{"gateway restart", "the gateway is up", ""},
		{"cat", "concatenate the files", ""}, // whole words
		{"cat", "apache tomcat", ""},
		{"cat", "the cat, sat", "cat"},       // punctuation is a boundary
		{"v2.3", "upgrade to v2.3.", "v2.3"}, // inner punctuation kept
		{`"restart the gateway"`, "please restart  the\ngateway", "restart  the\ngateway"},
		{`"gateway restart"`, "restart the gateway", ""}, // a phrase keeps its order
		{"RESTART", "Restart it", "Restart"},             // case
		{"kelvin", "\u212aelvin scale", "\u212aelvin"},   // Kelvin sign folds with k
		{"mass", "ma\u017f\u017f", "ma\u017f\u017f"},     // long s folds with s
		{"deploy", "ＤＥＰＬＯＹ done", "ＤＥＰＬＯＹ"},              // fullwidth to ASCII
		{"ＤＥＰＬＯＹ", "deploy done", "deploy"},              // and back
		{"ガイド", "ｶﾞｲﾄﾞを読む", "ｶﾞｲﾄﾞ"},                     // halfwidth katakana, sound marks composed
		{"ﾊﾟｽ", "パスワード", "パス"},                           // semi-voiced
		{"再起動", "ゲートウェイを再起動しました", "再起動"},                 // CJK is text
		{"再起動 gateway", "gateway再起動しました", "gateway"},     // Latin beside CJK
		{"сервер", "Сервер упал", "Сервер"},              // Cyrillic case
		{"café", "un café noir", "café"},                 // accents are letters
		{"cafe", "un cafe\u0301 noir", ""},               // a combining mark is part of the word
		{"ok", "ok", "ok"},
		{"a b", "b a", "b"}, // the earliest term is the match
	} {
		m := compileWords(t, c.q)
		s, e, ok := m.Find(c.text)
		got := ""
		if ok {
			got = c.text[s:e]
		}
		if got != c.match {
			t.Errorf("words %q in %q: found %q, want %q", c.q, c.text, got, c.match)
		}
	}
}

func TestFoldText(t *testing.T) {
	if n := len(halfKana); n != 0xff9f-0xff61+1 {
		t.Fatalf("halfKana has %d runes", n)
	}
	for _, c := range []struct{ in, out string }{
		{"Ａｂｃ　 \t x", "ABC X"},
		{"ｶﾞｷﾞﾊﾟﾎﾞｳﾞｯﾞ", "ガギパボヴッ\u3099"},
		{"か\u3099", "か\u3099"},
	} {
		got, _ := foldText(c.in, nil)
		if got != c.out {
			t.Errorf("foldText(%q) = %q, want %q", c.in, got, c.out)
		}
	}
	for _, c := range []struct {
		in    string
		words int
	}{{"hello, world", 2}, {"再起動しました ok", 8}, {"--", 0}, {"a_b", 2}} {
		if _, n := foldText(c.in, nil); n != c.words {
			t.Errorf("foldText(%q): %d words, want %d", c.in, n, c.words)
		}
	}
}

// rank runs a words search over messages (the timestamp is the index)
// spread over three transcripts searched by two workers, and returns the
// texts in the order found.
func rank(t *testing.T, q string, texts []string, limit int) []string {
	t.Helper()
	var b [3]strings.Builder
	for i, s := range texts {
		fmt.Fprintf(&b[i%3], `{"type":"message","id":"m%d","timestamp":"2026-01-01T00:%02d:%02d.000Z","message":{"role":"user","content":%q}}`+"\n", i, i/60, i%60, s)
	}
	var srcs []Source
	for i := range b {
		srcs = append(srcs, writeSources(t, b[i].String())...)
	}
	res := Run(srcs, &Options{Matcher: compileWords(t, q), Relevance: true}, limit, 0, 2)
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Snippet)
	}
	return out
}

func TestRelevance(t *testing.T) {
	filler := "lorem ipsum dolor sit amet consectetur adipiscing elit sed do"
	// tf: more occurrences rank higher
	got := rank(t, "gateway", []string{"gateway once here ok", "gateway gateway twice", filler}, 0)
	if want := []string{"gateway gateway twice", "gateway once here ok"}; !slices.Equal(got, want) {
		t.Errorf("tf: %q, want %q", got, want)
	}
	// length: the shorter message ranks higher at the same tf
	got = rank(t, "gateway", []string{"gateway", "gateway " + filler, filler}, 0)
	if want := []string{"gateway", "gateway " + filler}; !slices.Equal(got, want) {
		t.Errorf("length: %q, want %q", got, want)
	}
	// idf: the rare term weighs more (both hits hold both terms; each once
	// more of one of them; without idf they tie, and the newer comes first)
	texts := []string{"rare rare common", "rare common common", "common", "common", "common"}
	got = rank(t, "rare common", texts, 0)
	if want := []string{"rare rare common", "rare common common"}; !slices.Equal(got, want) {
		t.Errorf("idf: %q, want %q", got, want)
	}
	// ties: newest first
	got = rank(t, "tie", []string{"tie one", "tie two", "tie six"}, 0)
	if want := []string{"tie six", "tie two", "tie one"}; !slices.Equal(got, want) {
		t.Errorf("ties: %q, want %q", got, want)
	}
	// paging: a limit is the same prefix (totals aside), whatever the workers
	var many []string
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"alpha", "beta", "gamma", "delta", "x", "y"}
	for range 50 {
		var s []string
		for range 1 + r.IntN(8) {
			s = append(s, words[r.IntN(len(words))])
		}
		many = append(many, strings.Join(s, " "))
	}
	all := rank(t, "alpha beta", many, 0)
	if len(all) < 5 {
		t.Fatalf("only %d hits", len(all))
	}
	for _, l := range []int{1, 3, 5} {
		if got := rank(t, "alpha beta", many, l); !slices.Equal(got, all[:l]) {
			t.Errorf("limit %d: %q, want %q", l, got, all[:l])
		}
	}
}

// naiveWords is the words mode's oracle, written from its definition on
// runes: fold each rune (width, sound marks, case, whitespace), then try
// every position of every term.
func naiveWords(q, text string) (hit bool, tf []int) {
	fold := func(s string) []rune {
		var out []rune
		for _, r := range s {
			r = widthRune(r)
			if (r == 0x3099 || r == 0x309a) && len(out) > 0 {
				if c := compose(out[len(out)-1], r); c != 0 {
					out[len(out)-1] = c
					continue
				}
			}
			if unicode.IsSpace(r) {
				if len(out) == 0 || out[len(out)-1] != ' ' {
					out = append(out, ' ')
				}
				continue
			}
			// the smallest rune of the orbit, by brute force
			m := r
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < m {
					m = f
				}
			}
			out = append(out, m)
		}
		return out
	}
	w, err := parseWords(q)
	if err != nil {
		return false, nil
	}
	ft := fold(text)
	hit = true
	for _, tm := range w.terms {
		pat := []rune(tm.text)
		n := 0
		for i := 0; i+len(pat) <= len(ft); {
			if slices.Equal(ft[i:i+len(pat)], pat) &&
				(!tm.left || i == 0 || !isWordRune(ft[i-1])) &&
				(!tm.right || i+len(pat) == len(ft) || !isWordRune(ft[i+len(pat)])) {
				n++
				i += len(pat)
				continue
			}
			i++
		}
		tf = append(tf, n)
		hit = hit && n > 0
	}
	return hit, tf
}

func FuzzWords(f *testing.F) {
	for _, s := range [][2]string{
		{"gateway restart", "restart the gateway"}, {`"a b" c`, "c a  b"}, {"ガイド", "ｶﾞｲﾄﾞ"},
		{"再起動", "再起動しました"}, {"kelvin", "\u212aELVIN"}, {"x", "xx x"}, {"ab", "ＡＢab"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, text string) {
		if !utf8.ValidString(q) || !utf8.ValidString(text) {
			return
		}
		w, err := parseWords(q)
		if err != nil {
			return
		}
		wm := w.match(text, true)
		hit, tf := naiveWords(q, text)
		var got []int
		for _, c := range wm.tf {
			got = append(got, int(c))
		}
		if wm.ok != hit || !reflect.DeepEqual(got, tf) {
			t.Fatalf("words %q in %q: hit %v tf %v, oracle hit %v tf %v", q, text, wm.ok, got, hit, tf)
		}
		if hit {
			if wm.start < 0 || wm.end > len(text) || wm.start >= wm.end || !utf8.ValidString(text[wm.start:wm.end]) {
				t.Fatalf("words %q in %q: span [%d,%d)", q, text, wm.start, wm.end)
			}
			// the span holds a term, folded
			f, _ := foldText(text[wm.start:wm.end], nil)
			ok := false
			for _, tm := range w.terms {
				ok = ok || strings.Contains(f, tm.text)
			}
			if !ok {
				t.Fatalf("words %q in %q: span %q holds no term", q, text, text[wm.start:wm.end])
			}
		}
	})
}

// writeSources writes a transcript into a temporary file: its one source.
func writeSources(t *testing.T, jsonl string) []Source {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(jsonl), 0o600); err != nil {
		t.Fatal(err)
	}
	return []Source{{Key: "agent:main:main", Path: p}}
}
