package searchindex

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// foldRune maps r to one member of its simple case-folding orbit (the
// smallest), the orbit Go's (?i) matches a rune against: two runes match
// case-insensitively exactly when they fold to the same rune. ASCII letters
// fold to upper case (min of {K, k, U+212A} is K).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	if r < rune(len(foldTable)) {
		return rune(foldTable[r])
	}
	if r >= 0x2E80 && r < 0xA640 {
		// CJK radicals to Yi, Lisu and Vai (Kana, Hangul Jamo, the CJK
		// ideographs): no case (TestFoldRuneTable checks every rune).
		return r
	}
	return foldOrbit(r)
}

// foldOrbit is foldRune the slow way: the smallest rune of r's orbit.
func foldOrbit(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// foldTable is foldRune of the runes of two UTF-8 bytes (Latin, Greek,
// Cyrillic, …): an orbit's smallest rune is never above the rune.
var foldTable = func() (t [0x800]uint16) {
	for r := range t {
		t[r] = uint16(foldOrbit(rune(r)))
	}
	return t
}()

// appendFold appends the folded form of s to dst: every rune replaced by
// foldRune's, encoded as UTF-8. A substring of s (at rune boundaries) folds
// to a substring of fold(s), so the trigrams of a folded query are among
// those of every folded text that holds it, with or without case.
func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, c) // not UTF-8: the byte as is
		} else {
			dst = utf8.AppendRune(dst, foldRune(r))
		}
		i += n
	}
	return dst
}

// trigram is three bytes as one number (b0<<16 | b1<<8 | b2).
type trigram = uint32

// appendTrigrams appends every trigram of b (each 3-byte window) to dst.
func appendTrigrams(dst []trigram, b []byte) []trigram {
	for i := 0; i+3 <= len(b); i++ {
		dst = append(dst, trigram(b[i])<<16|trigram(b[i+1])<<8|trigram(b[i+2]))
	}
	return dst
}

// uniq sorts t and removes repeats.
func uniq(t []trigram) []trigram {
	slices.Sort(t)
	return slices.Compact(t)
}
