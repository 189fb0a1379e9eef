package searchindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// docTrigramsByDefinition is docTrigrams the simple way, the oracle of the
// fast one: fold each text whole (appendFold), then each 3-byte window of
// the fold, kept the first time it is seen, in the order seen.
func docTrigramsByDefinition(texts ...string) []trigram {
	var out []trigram
	seen := map[trigram]bool{}
	for _, s := range texts {
		for _, t := range appendTrigrams(nil, appendFold(nil, s)) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

var trigramSeeds = []string{
	"", "a", "ab", "abc", "Hello, World! hello world", "deploy the DEPLOY", "再起動", "перезапуск ПЕРЕЗАПУСК",
	"KKk\u212a", "ǅǄǆ ΣσςΣ", "\xff\xfeabc\xc3", "a\xc3(b", "🙂🙂x🙂", "ſ ß ẞ İ ı", "\u0130\u0131iI",
	strings.Repeat("the quick brown fox ", 50), "x\x00\x00\x00y", "ĀāĂăĄą", "\xe2\x82", "é\xe9e\u0301",
}

// firstSeen is tris without repeats, each where it is first.
func firstSeen(tris []trigram) []trigram {
	seen := map[trigram]bool{}
	var out []trigram
	for _, t := range tris {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// checkDocTrigrams: docTrigrams of texts after dst gives each trigram of
// the definition the first time it is seen, in that order, and nothing
// else (a repeat it forgot may come again).
func checkDocTrigrams(t *testing.T, dst []trigram, texts ...string) []trigram {
	t.Helper()
	got := docTrigrams(slices.Clone(dst), texts...)
	want := docTrigramsByDefinition(texts...)
	if !slices.Equal(got[:len(dst)], dst) || !slices.Equal(firstSeen(got[len(dst):]), want) {
		t.Fatalf("docTrigrams(%q) = %x, want %x (repeats aside)", texts, got[len(dst):], want)
	}
	return got[len(dst):]
}

// TestDocTrigramsIsItsDefinition: the trigrams of one or two texts, as the
// fold of each then its windows would give them, in order; repeats are
// seldom, and only where the filter forgot (a text of more distinct
// trigrams than its slots).
func TestDocTrigramsIsItsDefinition(t *testing.T) {
	for _, a := range trigramSeeds {
		for _, b := range [][]string{{a}, {a, a}, {a, "Hello"}, {"再起動 ok", a}} {
			if got := checkDocTrigrams(t, []trigram{7}, b...); len(got) != len(firstSeen(got)) {
				t.Errorf("docTrigrams(%q): a repeat in a short text: %x", b, got)
			}
		}
	}
	// Texts of up to filterMax bytes (the filter's) of many distinct
	// trigrams: each gives them all, and some again; a longer one (the
	// set's) each once.
	r := rand.New(rand.NewPCG(7, 8))
	hexText := func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			fmt.Fprintf(&sb, "%x ", r.Uint64())
		}
		return sb.String()[:n]
	}
	repeats := 0
	for range 50 {
		got := checkDocTrigrams(t, nil, hexText(filterMax))
		repeats += len(got) - len(firstSeen(got))
	}
	if repeats == 0 {
		t.Error("no repeat in 50 texts of as many trigrams as the filter takes: its forgetting is untested")
	}
	long := hexText(200000)
	if got := checkDocTrigrams(t, nil, long[:filterMax], long[filterMax:]); len(got) != len(firstSeen(got)) {
		t.Errorf("a text of %d bytes: %d trigrams, %d of them repeats", len(long), len(got), len(got)-len(firstSeen(got)))
	}
	// A filter's every document, past the 255 its tags tell apart.
	for i := range 600 {
		checkDocTrigrams(t, nil, fmt.Sprintf("message %d says hello %x", i, i*7919))
	}
}

// TestFoldIsNoLonger: no rune's fold takes more bytes than the rune, so
// that a text's trigrams are at most its bytes (docTrigrams' room).
func TestFoldIsNoLonger(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.RuneLen(foldRune(r)) > max(utf8.RuneLen(r), 1) {
			t.Fatalf("%U folds to %U, longer", r, foldRune(r))
		}
	}
}

// FuzzDocTrigramsIsItsDefinition: any bytes, any script, invalid UTF-8.
func FuzzDocTrigramsIsItsDefinition(f *testing.F) {
	for i, s := range trigramSeeds {
		f.Add(s, trigramSeeds[(i+1)%len(trigramSeeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkDocTrigrams(t, nil, a)
		checkDocTrigrams(t, nil, a, b)
	})
}

// FuzzWithinText: a part withinText says is within a text adds no trigram
// to the text's (addDoc indexes the text alone then), at any cut of any
// bytes; and a part that is not the text's start is never within it.
func FuzzWithinText(f *testing.F) {
	for i, s := range trigramSeeds {
		f.Add(s+"\nexec\n{}", uint(i), "x")
	}
	f.Add("再起動\nexec", uint(9), "再")
	f.Add("ab\xe3\x81\x82c", uint(4), "ab\xe3\x81")
	f.Fuzz(func(t *testing.T, text string, cut uint, other string) {
		k := int(cut % uint(len(text)+1))
		for _, part := range []string{text[:k], other} {
			if !withinText(text, part) {
				if strings.HasPrefix(text, part) && len(part) < len(text) && text[len(part)] < utf8.RuneSelf {
					t.Fatalf("withinText(%q, %q) false", text, part)
				}
				continue
			}
			if !strings.HasPrefix(text, part) || len(part) == len(text) {
				t.Fatalf("withinText(%q, %q) true", text, part)
			}
			both := docTrigramsByDefinition(text, part)
			one := docTrigramsByDefinition(text)
			if !slices.Equal(both, one) {
				t.Fatalf("withinText(%q, %q), but it adds %x", text, part, both[len(one):])
			}
		}
	})
}

// BenchmarkDocTrigrams: one message's trigrams, by its length, over 64
// different texts in turn (as a build meets them: not the same trigrams'
// cache lines each time).
func BenchmarkDocTrigrams(b *testing.B) {
	words := strings.Fields("the deploy failed because the Config file was missing; restarting service after 再起動 and перезапуск of worker id")
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{100, 1000, 10000, 100000} {
		var texts []string
		for range 64 {
			var sb strings.Builder
			for sb.Len() < n {
				sb.WriteString(words[r.IntN(len(words))])
				fmt.Fprintf(&sb, " %x ", r.IntN(1<<16))
			}
			texts = append(texts, sb.String())
		}
		benchDocTrigrams(b, fmt.Sprint(n), texts)
	}
	// Short messages of common words, 4,096 different ones in turn (as the
	// generated state's): whether a trigram was seen before in its message
	// is about even, and no branch predictor learns it over so many.
	var texts []string
	for range 4096 {
		texts = append(texts, wordsMessage(r, words, 5+r.IntN(25)))
	}
	benchDocTrigrams(b, "varied", texts)
}

// benchDocTrigrams times docTrigrams on texts in turn; MB/s is of a text.
func benchDocTrigrams(b *testing.B, name string, texts []string) {
	total := 0
	for _, t := range texts {
		total += len(t)
	}
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(total / len(texts)))
		var dst []trigram
		i := 0
		for b.Loop() {
			dst = docTrigrams(dst[:0], texts[i%len(texts)])
			i++
		}
	})
}

// wordsMessage is a message of n words drawn from words, each followed by
// a space.
func wordsMessage(r *rand.Rand, words []string, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return sb.String()
}

// BenchmarkPostings: a segment's sort of its (trigram, document) pairs
// into posting lists, for documents of 20 words of a small vocabulary (as
// the generated state's messages: most pairs in a few thousand trigrams),
// by the segment's documents (34,000: about the 4 MiB of text a build's
// segment holds).
func BenchmarkPostings(b *testing.B) {
	words := strings.Fields("the deploy failed because config file was missing restarting service after worker timeout path report user merge before agent again meeting token request cache run and review commit please журнал 服务器 build test queue retry error warning")
	for _, docs := range []int{8500, 34000} {
		r := rand.New(rand.NewPCG(5, 6))
		var tris []trigram
		var tends []int
		for range docs {
			tris = docTrigrams(tris, wordsMessage(r, words, 20))
			tends = append(tends, len(tris))
		}
		b.Run(fmt.Sprint(docs), func(b *testing.B) {
			b.SetBytes(int64(len(tris)) * 4)
			b.ReportMetric(float64(len(tris)), "pairs")
			var tmp, scr []uint32
			n := 0
			for b.Loop() {
				tmp, scr = postings(tris, tends, tmp, scr, func(t trigram, ids []uint32) { n += len(ids) })
			}
		})
	}
}
