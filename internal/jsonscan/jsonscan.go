// Package jsonscan is the validating one-pass JSON scanner under the fast
// readers of sessions.json (internal/store) and of transcript lines
// (internal/usage). It walks bytes in place, without building a tree:
// callers read the members they want and only validate the rest.
//
// With the default MaxDepth it accepts exactly what encoding/json.Valid
// accepts (the grammar of gjson.ValidBytes, plus encoding/json's nesting
// limit); FuzzScanner holds it to that and to encoding/json's values. Strings are not checked for
// valid UTF-8 (neither encoding/json nor gjson checks it); callers that
// need it check it themselves.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/tidwall/gjson"
)

// DefaultMaxDepth is the nesting a Scanner accepts when MaxDepth is 0:
// encoding/json's limit.
const DefaultMaxDepth = 10000

// Scanner walks D; I is the offset of the next unread byte. A method that
// reports false leaves I somewhere inside the bad value: the scan is over.
type Scanner struct {
	D []byte
	I int
	// MaxDepth is the deepest nesting of objects and arrays accepted
	// (DefaultMaxDepth when 0); deeper input is rejected as invalid.
	MaxDepth int
	depth    int
}

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// SkipWS skips JSON whitespace (space, tab, LF, CR), eight spaces at a
// time through the indentation of pretty-printed documents.
func (s *Scanner) SkipWS() {
	d, i := s.D, s.I
	for i < len(d) {
		switch d[i] {
		case ' ':
			if i+8 <= len(d) && binary.LittleEndian.Uint64(d[i:]) == 0x2020202020202020 {
				i += 8
				continue
			}
			i++
		case '\t', '\n', '\r':
			i++
		default:
			s.I = i
			return
		}
	}
	s.I = i
}

// Str reads a string whose opening quote is at I and returns the span of
// its contents and whether it holds escapes. It validates like gjson's
// validstring: no byte below 0x20, only JSON escapes, \u with 4 hex digits.
func (s *Scanner) Str() (start, end int, esc, ok bool) {
	d := s.D
	i := s.I + 1
	start = i
	for {
		// 8 bytes at a time: stop at the first '"', '\\' or control byte.
		for i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			q := w ^ (swarOnes * '"')
			b := w ^ (swarOnes * '\\')
			m := ((w - swarOnes*0x20) & ^w) | ((q - swarOnes) & ^q) | ((b - swarOnes) & ^b)
			m &= swarHighs
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		if i >= len(d) {
			return 0, 0, false, false
		}
		switch c := d[i]; {
		case c == '"':
			s.I = i + 1
			return start, i, esc, true
		case c == '\\':
			esc = true
			i++
			if i >= len(d) {
				return 0, 0, false, false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+4 >= len(d) || !ishex(d[i+1]) || !ishex(d[i+2]) || !ishex(d[i+3]) || !ishex(d[i+4]) {
					return 0, 0, false, false
				}
				i += 5
			default:
				return 0, 0, false, false
			}
		case c < 0x20:
			return 0, 0, false, false
		default:
			i++ // the tail (< 8 bytes left) goes one byte at a time
		}
	}
}

func ishex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Text returns the value of the string D[start:end], as Str spanned it: a
// copy, unescaped as gjson does when esc. (gjson and encoding/json differ
// on one malformed case: a lone UTF-16 surrogate escape followed by another
// \u escape, which gjson takes as a pair and encoding/json does not.)
func (s *Scanner) Text(start, end int, esc bool) string {
	if !esc {
		return string(s.D[start:end])
	}
	return gjson.ParseBytes(s.D[start-1 : end+1]).Str
}

// View is D[start:end] as a string without a copy: valid only while D is,
// and never to be kept past the bytes' lifetime.
func (s *Scanner) View(start, end int) string {
	if end <= start {
		return ""
	}
	return unsafe.String(&s.D[start], end-start)
}

// Number reads a number at I (gjson's validnumber grammar, encoding/json's
// too) and returns its offset.
func (s *Scanner) Number() (start int, ok bool) {
	d, i := s.D, s.I
	start = i
	digit := func(j int) bool { return j < len(d) && d[j] >= '0' && d[j] <= '9' }
	if d[i] == '-' {
		i++
	}
	if !digit(i) {
		return 0, false
	}
	if d[i] == '0' {
		i++
	} else {
		for digit(i) {
			i++
		}
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digit(i) {
			return 0, false
		}
		for digit(i) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digit(i) {
			return 0, false
		}
		for digit(i) {
			i++
		}
	}
	s.I = i
	return start, true
}

// Literal reads lit (true, false or null) at I.
func (s *Scanner) Literal(lit string) bool {
	if bytes.HasPrefix(s.D[s.I:], []byte(lit)) {
		s.I += len(lit)
		return true
	}
	return false
}

// Value reads any JSON value at I (after whitespace) and reports whether
// it is valid.
func (s *Scanner) Value() bool {
	s.SkipWS()
	if s.I >= len(s.D) {
		return false
	}
	switch c := s.D[s.I]; c {
	case '{':
		return s.Object(nil)
	case '[':
		return s.Array(nil)
	case '"':
		_, _, _, ok := s.Str()
		return ok
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			_, ok := s.Number()
			return ok
		}
		return false
	}
}

// Document reads D whole as one JSON value with optional whitespace around
// it: encoding/json.Valid.
func (s *Scanner) Document() bool {
	if !s.Value() {
		return false
	}
	s.SkipWS()
	return s.I == len(s.D)
}

// enter counts one more level of nesting and reports whether it is allowed.
func (s *Scanner) enter() bool {
	s.depth++
	if s.MaxDepth == 0 {
		return s.depth <= DefaultMaxDepth
	}
	return s.depth <= s.MaxDepth
}

// Array reads an array whose '[' is at I. For every element it calls elem
// (when not nil) positioned at the element (after whitespace); elem must
// read it and report whether it is valid. Without elem the elements are
// only validated.
func (s *Scanner) Array(elem func() bool) bool {
	if !s.enter() {
		return false
	}
	s.I++
	s.SkipWS()
	if s.I < len(s.D) && s.D[s.I] == ']' {
		s.I++
		s.depth--
		return true
	}
	for {
		if elem == nil {
			if !s.Value() {
				return false
			}
		} else if s.I >= len(s.D) || !elem() {
			return false
		}
		s.SkipWS()
		if s.I >= len(s.D) {
			return false
		}
		switch s.D[s.I] {
		case ',':
			s.I++
			s.SkipWS()
		case ']':
			s.I++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// Object reads an object whose '{' is at I. For every member it calls
// member (when not nil) with the key, positioned at the value (after
// whitespace); member must read the value and report whether it is valid.
// The key is unescaped when esc (it held escapes) and otherwise a view of
// D, valid only during the call. Without member the values are only
// validated.
func (s *Scanner) Object(member func(key string, esc bool) bool) bool {
	if !s.enter() {
		return false
	}
	s.I++
	s.SkipWS()
	if s.I < len(s.D) && s.D[s.I] == '}' {
		s.I++
		s.depth--
		return true
	}
	for {
		if s.I >= len(s.D) || s.D[s.I] != '"' {
			return false
		}
		ks, ke, kesc, ok := s.Str()
		if !ok {
			return false
		}
		s.SkipWS()
		if s.I >= len(s.D) || s.D[s.I] != ':' {
			return false
		}
		s.I++
		if member == nil {
			if !s.Value() {
				return false
			}
		} else {
			var key string
			if kesc {
				key = s.Text(ks, ke, true)
			} else {
				key = unsafe.String(unsafe.SliceData(s.D[ks:]), ke-ks) // read only during the call
			}
			s.SkipWS()
			if s.I >= len(s.D) || !member(key, kesc) {
				return false
			}
		}
		s.SkipWS()
		if s.I >= len(s.D) {
			return false
		}
		switch s.D[s.I] {
		case ',':
			s.I++
			s.SkipWS()
		case '}':
			s.I++
			s.depth--
			return true
		default:
			return false
		}
	}
}
