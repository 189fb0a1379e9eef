package search

import (
	"bytes"
	"strings"
)

// wordsPrefilter is the byte pre-filter of a words query: every term is in
// every hit, so the longest run any one of them gives (newPrefilter, case
// folded) rules lines out — with two more ways a text may hold it that
// the literal's filter need not see. Width: a character that a
// Halfwidth and Fullwidth Forms character (U+FF00..U+FFEF) folds to (all
// printable ASCII, the katakana) may be written in that form, so a line
// that holds one of them (bytes EF BC..EF BF) is parsed too (forms), and so
// is one with any \u escape (wide), which may stand for one. Sound marks:
// a voiced or semi-voiced katakana may be a katakana and a combining mark
// in the text, so it never takes part in the run.
func wordsPrefilter(w *wordsQuery) prefilter {
	var best prefilter
	for _, t := range w.terms {
		for _, piece := range strings.FieldsFunc(t.text, func(r rune) bool { return r == ' ' || composed(r) }) {
			if p := newPrefilter(piece, true); len(p.needle) > len(best.needle) {
				best = p
			}
		}
	}
	for _, r := range string(best.needle) {
		if formsTarget(r) {
			best.forms, best.wide = true, true
			break
		}
	}
	return best
}

// composed reports whether r is a katakana compose makes of one and a mark.
func composed(r rune) bool {
	return r == 'ヴ' || compose(r-1, 0x3099) == r || compose(r-2, 0x309a) == r
}

// formsTarget reports whether some Halfwidth and Fullwidth Forms character
// folds (widthRune, then case) to r, as the needle holds it (lower case).
func formsTarget(r rune) bool {
	if r > ' ' && r <= '~' {
		return true
	}
	for _, k := range halfKana {
		if k == r {
			return true
		}
	}
	return false
}

// formsIndex returns the first position in s of a character of the
// Halfwidth and Fullwidth Forms block (U+FF00..U+FFFF: EF BC..BF xx), or -1.
func formsIndex(s []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], 0xef)
		if j < 0 {
			return -1
		}
		i += j
		if i+1 < len(s) && s[i+1] >= 0xbc && s[i+1] <= 0xbf {
			return i
		}
		i++
	}
}
