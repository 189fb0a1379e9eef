package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

// scriptTranscript: the query's text raw, the same text \u-escaped, and
// lines that hold neither (one with an ANSI \u001b escape, which cannot
// stand for any character of a query's needle).
const scriptTranscript = `{"type":"message","id":"raw","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"サーバーを再起動してください"}}
{"type":"message","id":"esc","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"\u518d\u8d77\u52d5 done"}}
{"type":"message","id":"half","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"再\u8d77動 again"}}
{"type":"message","id":"other","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"サーバーは正常です"}}
{"type":"message","id":"ansi","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":"\u001b[0m再起 動 сервер"}}
{"type":"message","id":"ru","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"перезапустите Сервер и sessão"}}
{"type":"message","id":"latin","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"user","content":"restart the server please"}}
`

// scanWork scans data for q as the operator: the hits' ids and the work.
func scanWork(t *testing.T, data string, q Query) ([]string, Work) {
	t.Helper()
	m, err := Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScanner(&Options{Matcher: m})
	var ids []string
	if _, err := sc.Scan(strings.NewReader(data), func(h Hit) { ids = append(ids, h.ID) }); err != nil {
		t.Fatal(err)
	}
	return ids, sc.Work()
}

// TestScanNonASCIIPrefilter: a query without a run of printable ASCII is
// searched as its raw UTF-8 bytes; the lines that hold it raw or that may
// hold it \u-escaped are parsed, and no other.
func TestScanNonASCIIPrefilter(t *testing.T) {
	for _, c := range []struct {
		q      Query
		ids    string // the hits
		parsed int64  // lines parsed
	}{
		// raw, all escaped, partly escaped; not "other" (no bytes, no \u)
		// nor "ansi" (its only escape is a control character's).
		{Query{Pattern: "再起動"}, "raw esc half", 3},
		// No case in CJK: -i searches the raw bytes just the same.
		{Query{Pattern: "再起動", IgnoreCase: true}, "raw esc half", 3},
		{Query{Pattern: "再起動", Regex: true}, "raw esc half", 3},
		{Query{Pattern: "сервер"}, "ansi", 3}, // + the two escaped lines
		// The ASCII run "sess" alone is common; "sessão" is not.
		{Query{Pattern: "sessão"}, "ru", 3},
		{Query{Pattern: "ã"}, "ru", 3},
	} {
		ids, w := scanWork(t, scriptTranscript, c.q)
		if got := strings.Join(ids, " "); got != c.ids {
			t.Errorf("%+v: hits %q, want %q", c.q, got, c.ids)
		}
		if w.Parsed != c.parsed {
			t.Errorf("%+v: %d lines parsed, want %d (of %d)", c.q, w.Parsed, c.parsed, strings.Count(scriptTranscript, "\n"))
		}
	}
}

// TestScanNonASCIIFold: under -i a character with a case (Cyrillic) may be
// written in another case, so its bytes are not searched: every line is
// parsed, as before, and both cases are found.
func TestScanNonASCIIFold(t *testing.T) {
	ids, w := scanWork(t, scriptTranscript, Query{Pattern: "СЕРВЕР", IgnoreCase: true})
	if got := strings.Join(ids, " "); got != "ansi ru" {
		t.Errorf("hits %q, want %q", got, "ansi ru")
	}
	if n := int64(strings.Count(scriptTranscript, "\n")); w.Parsed != n {
		t.Errorf("%d lines parsed, want every line (%d)", w.Parsed, n)
	}
	// A caseless run beside a cased one: the caseless run is searched.
	ids, w = scanWork(t, scriptTranscript, Query{Pattern: "Sサーバーを再起動", IgnoreCase: true})
	if len(ids) != 0 || w.Parsed != 3 { // "raw" (has the bytes), "esc" and "half" (\u)
		t.Errorf("hits %q, %d parsed, want none and 3", ids, w.Parsed)
	}
}

func TestNewPrefilterNonASCII(t *testing.T) {
	for _, c := range []struct {
		lit    string
		fold   bool
		needle string
	}{
		{"再起動", false, "再起動"},
		{"再起動", true, "再起動"},
		{"сервер", false, "сервер"},
		{"сервер", true, ""}, // Cyrillic has case
		{"sessão", false, "sessão"},
		{"sessão", true, "e"},        // s folds to ſ, ã to Ã: today's run
		{"Köln API", true, "ln api"}, // K folds to K, ö to Ö
		{"東京 Tower", true, "東京 tower"},
		{"a/再起動/b", false, "再起動"},
		{"ok 👍", false, "ok 👍"},
	} {
		p := newPrefilter(c.lit, c.fold)
		if string(p.needle) != c.needle {
			t.Errorf("newPrefilter(%q, %v).needle = %q, want %q", c.lit, c.fold, p.needle, c.needle)
		}
	}
}

// naiveWideEsc is escSearch(s, true) position by position.
func naiveWideEsc(s []byte) int {
	for i := range s {
		if wideEsc(s, i) {
			return i
		}
	}
	return -1
}

func TestWideEscIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alpha := []string{`\`, `u`, `0`, `1`, `e`, `\u001b`, `\u00e9`, `\u0041`, `\ud83d`, `a`, `"`, `再`}
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := r.IntN(30); k > 0; k-- {
			b.WriteString(alpha[r.IntN(len(alpha))])
		}
		s := []byte(b.String())
		if got, want := escSearch(s, true), naiveWideEsc(s); got != want {
			t.Fatalf("escSearch(%q, wide) = %d, want %d", s, got, want)
		}
	}
	for _, c := range []struct {
		s    string
		want int
	}{
		{`abc\u518d`, 3}, {`abc\\u518d`, -1}, {`\\\u518D`, 2}, {`\u001b\u0080`, 6}, {`\u0000\u0041`, 6},
		{`\u00`, -1}, {`x\ud83d\ude00`, 1}, {`\u0019 \u0020`, 7},
	} {
		if got := escSearch([]byte(c.s), true); got != c.want {
			t.Errorf("escSearch(%q, wide) = %d, want %d", c.s, got, c.want)
		}
	}
}

// jsonChar writes r into a JSON string as a writer may: raw, or \u
// escaped (lower or upper case hex; a surrogate pair beyond the BMP).
func jsonChar(b *strings.Builder, r rune, esc, upper bool) {
	if !esc {
		b.WriteRune(r)
		return
	}
	f := "\\u%04x"
	if upper {
		f = "\\u%04X"
	}
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		fmt.Fprintf(b, f+f, r1, r2)
		return
	}
	fmt.Fprintf(b, f, r)
}

// TestScanEscapesRandom: transcripts whose characters (Latin, accented,
// CJK, Cyrillic, emoji, JSON's own escapes) are each written raw or \u
// escaped at random, searched for a piece of one of them or a random
// string, plain or -i, literal or regex: the pre-filtered scan finds
// exactly what parsing every line finds.
func TestScanEscapesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alpha := []rune("aeksKSé ãÃ再起動サーバсерВЕРΣσς👍\"\\/\n\u212a\u017f")
	text := func() []rune {
		t := make([]rune, 1+r.IntN(12))
		for i := range t {
			t[i] = alpha[r.IntN(len(alpha))]
		}
		return t
	}
	hits := 0
	for n := 0; n < 3000; n++ {
		var data strings.Builder
		var texts [][]rune
		for k := 1 + r.IntN(6); k > 0; k-- {
			tx := text()
			texts = append(texts, tx)
			fmt.Fprintf(&data, `{"type":"message","id":"m%d","message":{"role":"user","content":"`, k)
			for _, c := range tx {
				switch c {
				case '"', '\\':
					data.WriteString(`\` + string(c))
				case '\n':
					data.WriteString(`\n`)
				case '/':
					if r.IntN(2) == 0 {
						data.WriteString(`\/`)
						continue
					}
					fallthrough
				default:
					jsonChar(&data, c, r.IntN(4) == 0, r.IntN(2) == 0)
				}
			}
			data.WriteString("\"}}\n")
		}
		var pat string
		if tx := texts[r.IntN(len(texts))]; r.IntN(4) > 0 {
			i := r.IntN(len(tx))
			pat = string(tx[i : i+1+r.IntN(len(tx)-i)])
		} else {
			pat = string(text())
		}
		q := Query{Pattern: pat, IgnoreCase: r.IntN(2) == 0}
		if r.IntN(4) == 0 {
			q.Regex, q.Pattern = true, regexp.QuoteMeta(pat)
		}
		m, err := Compile(q)
		if err != nil {
			t.Fatal(err)
		}
		o := &Options{Matcher: m}
		want := naiveScan([]byte(data.String()), o)
		hits += len(want)
		if got := fastScan(t, []byte(data.String()), o, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v in\n%s\nfast  %+v\nnaive %+v", q, data.String(), got, want)
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d hits: the test tests little", hits)
	}
}
