package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words mode (Query.Words): the question people and agents ask — every
// word of the query somewhere in one message, in any order, and each
// "quoted phrase" as it is written (its words in order, separated by
// whitespace only). Both sides are folded before they are compared
// (foldText): width (fullwidth ASCII and the ideographic space to ASCII,
// halfwidth katakana to fullwidth, its sound marks composed), case (each
// character to the smallest of its simple case folds, as (?i) does) and
// whitespace (a run of it is one space).
//
// A term of a spaced script matches whole words: where it starts with a
// letter or digit, the text before it holds none; where it ends with one,
// the text after it holds none. A run of an unspaced script — Han,
// Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar — needs no
// boundary: `再起動` is found inside `再起動しました`, as text. A bare
// word's leading and trailing punctuation is not part of it (`deploy?`
// looks for deploy); a quoted phrase is kept as written.

// term is one word or phrase of a words query, folded.
type term struct {
	text        string // folded (foldText), a phrase's words joined by one space
	left, right bool   // a word boundary is needed before / after it
}

// wordsQuery is a compiled words query.
type wordsQuery struct {
	terms []term
}

// parseWords splits a query into its words and "quoted phrases" (also
// “curly” quotes; an unclosed quote runs to the end), folded and without
// repeats. A query with no word is an error.
func parseWords(q string) (*wordsQuery, error) {
	f, _ := foldText(q, nil)
	w := &wordsQuery{}
	seen := map[string]bool{}
	add := func(s string, phrase bool) {
		s = strings.TrimSpace(s)
		if !phrase {
			if t := strings.TrimFunc(s, func(r rune) bool { return !isWordRune(r) && !unspaced(r) }); t != "" {
				s = t
			}
		}
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		w.terms = append(w.terms, term{text: s, left: isWordRune(first), right: isWordRune(last)})
	}
	var cur strings.Builder
	inQuote := false
	for _, r := range f {
		switch {
		case isQuote(r):
			add(cur.String(), inQuote)
			cur.Reset()
			inQuote = !inQuote
		case r == ' ' && !inQuote:
			add(cur.String(), false)
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	add(cur.String(), inQuote)
	if len(w.terms) == 0 {
		return nil, fmt.Errorf("the query has no words")
	}
	return w, nil
}

func isQuote(r rune) bool { return r == '"' || r == '“' || r == '”' }

// isWordRune reports whether r is part of a word of a spaced script: a
// letter, digit or mark that is not of an unspaced script.
func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !unspaced(r)
}

// unspacedScripts are the scripts written without spaces between words.
var unspacedScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// unspaced reports whether r belongs to a script written without spaces
// (and the katakana prolonged sound mark ー, which Unicode counts as common).
func unspaced(r rune) bool {
	if r < 0x0e00 {
		return false
	}
	return r == 'ー' || unicode.In(r, unspacedScripts...)
}

// foldRune is r case-folded: the smallest rune of its simple case folding
// orbit (K, k and the Kelvin sign all fold to K).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A' // the orbits of K and S hold larger runes only
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// halfKana maps halfwidth katakana (U+FF61..U+FF9F) to their fullwidth forms.
var halfKana = []rune("。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゙゚")

// widthRune is r width-folded: fullwidth ASCII and the ideographic space
// to ASCII, halfwidth katakana to fullwidth (its sound marks to the
// combining U+3099 and U+309A, composed by foldText).
func widthRune(r rune) rune {
	switch {
	case r == 0x3000:
		return ' '
	case r >= 0xff01 && r <= 0xff5e:
		return r - 0xff01 + '!'
	case r >= 0xff61 && r <= 0xff9f:
		switch k := halfKana[r-0xff61]; k {
		case '゙':
			return 0x3099
		case '゚':
			return 0x309a
		default:
			return k
		}
	}
	return r
}

// compose is katakana k with the combining sound mark m (U+3099 voiced,
// U+309A semi-voiced) as one character, or 0 when there is none.
func compose(k, m rune) rune {
	switch {
	case m == 0x3099 && k == 'ウ':
		return 'ヴ'
	case m == 0x3099 && k >= 'カ' && k <= 'ト' && (k <= 'チ' && k%2 == 1 || k >= 'ツ' && k%2 == 0):
		// カキクケコサシスセソタチ are odd code points, ツテト even
		return k + 1
	case k >= 'ハ' && k <= 'ホ' && (k-'ハ')%3 == 0:
		if m == 0x3099 {
			return k + 1
		}
		return k + 2
	}
	return 0
}

// foldText is s folded for words mode (width, then case; every run of
// whitespace one space) and its length in words (each run of word runes
// one word, each character of an unspaced script one). With offs, it
// also records for each byte of the result the offset in s of the
// character it came from, and at the end len(s).
func foldText(s string, offs *[]int32) (string, int) {
	b := make([]byte, 0, len(s))
	words := 0
	inWord, space := false, false
	var last rune // the last rune written, for sound marks
	var lastAt int
	record := func(at, n int) {
		if offs != nil {
			for range n {
				*offs = append(*offs, int32(at))
			}
		}
	}
	for i, r := range s {
		r = widthRune(r)
		if r == 0x3099 || r == 0x309a {
			if c := compose(last, r); c != 0 {
				// the katakana just written and its mark are one character
				n := utf8.RuneLen(last)
				b = utf8.AppendRune(b[:len(b)-n], c)
				if offs != nil {
					*offs = (*offs)[:len(*offs)-n]
					record(lastAt, utf8.RuneLen(c))
				}
				last = c
				continue
			}
		}
		if unicode.IsSpace(r) {
			if !space {
				b = append(b, ' ')
				record(i, 1)
				space = true
			}
			inWord, last = false, 0
			continue
		}
		space = false
		r = foldRune(r)
		switch {
		case unspaced(r):
			words++
			inWord = false
		case isWordRune(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
		b = utf8.AppendRune(b, r)
		record(i, utf8.RuneLen(r))
		last, lastAt = r, i
	}
	if offs != nil {
		*offs = append(*offs, int32(len(s)))
	}
	return string(b), words
}

// count returns how many times t occurs in the folded text f, not
// overlapping, at word boundaries where it needs them, and where the
// first one starts and ends.
func (t *term) count(f string) (n, start, end int) {
	start = -1
	for pos := 0; pos <= len(f)-len(t.text); {
		i := strings.Index(f[pos:], t.text)
		if i < 0 {
			break
		}
		i += pos
		j := i + len(t.text)
		if (!t.left || !wordBefore(f, i)) && (!t.right || !wordAfter(f, j)) {
			if n == 0 {
				start, end = i, j
			}
			n++
			pos = j
			continue
		}
		_, sz := utf8.DecodeRuneInString(f[i:])
		pos = i + sz
	}
	return n, start, end
}

func wordBefore(f string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(f[:i])
	return i > 0 && isWordRune(r)
}

func wordAfter(f string, j int) bool {
	r, _ := utf8.DecodeRuneInString(f[j:])
	return j < len(f) && isWordRune(r)
}

// wordsMatch is a message matched against a words query.
type wordsMatch struct {
	ok         bool
	start, end int     // the earliest occurrence of a term, in the original text
	tf         []int32 // each term's occurrences (nil unless ok or counting)
	words      int     // the message's length in words (foldText)
}

// match matches text; with all, each term's count is kept even when the
// message is no hit (what ranking counts: how many messages hold a term).
func (w *wordsQuery) match(text string, all bool) wordsMatch {
	f, words := foldText(text, nil)
	m := wordsMatch{ok: true, words: words, start: -1}
	tf := make([]int32, len(w.terms))
	fs, fe := -1, -1
	for i := range w.terms {
		n, s, e := w.terms[i].count(f)
		tf[i] = int32(n)
		if n == 0 {
			m.ok = false
			if !all {
				return wordsMatch{}
			}
			continue
		}
		if fs < 0 || s < fs || s == fs && e > fe {
			fs, fe = s, e
		}
	}
	m.tf = tf
	if !m.ok {
		return m
	}
	// Map the folded span back to the original text.
	var offs []int32
	foldText(text, &offs)
	m.start, m.end = int(offs[fs]), int(offs[fe])
	return m
}
