package sanitize

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// OpenClaw runs on JavaScript strings: lengths, slices and regular
// expressions work on UTF-16 code units, and a string may hold a lone
// surrogate (JSON.stringify writes it as "\udXXX"). To cut and match exactly
// as the gateway does, text is decoded from its raw JSON literal into UTF-16
// code units and encoded back the way JSON.stringify writes strings.

// decodeString decodes a raw JSON string literal (with its quotes) into
// UTF-16 code units. Lone surrogate escapes are kept; invalid UTF-8 bytes
// become U+FFFD (as Node's UTF-8 decoder does). ok is false when raw is not
// a well-formed string literal.
func decodeString(raw []byte) (u []uint16, ok bool) { return decodePrefix(raw, -1) }

// decodePrefix is decodeString stopping once more than limit code units
// are decoded (limit < 0: no limit): what a cut at limit needs of a huge
// text, without the whole of it in UTF-16 (twice its size). Only the part
// decoded is checked: raw must come from validated JSON.
func decodePrefix(raw []byte, limit int) (u []uint16, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	size := len(s)
	if limit >= 0 && limit+2 < size {
		size = limit + 2
	}
	u = make([]uint16, 0, size)
	for i := 0; i < len(s); {
		if limit >= 0 && len(u) > limit {
			break
		}
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return nil, false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				u = append(u, uint16(s[i+1]))
			case 'b':
				u = append(u, '\b')
			case 'f':
				u = append(u, '\f')
			case 'n':
				u = append(u, '\n')
			case 'r':
				u = append(u, '\r')
			case 't':
				u = append(u, '\t')
			case 'u':
				if i+6 > len(s) {
					return nil, false
				}
				v, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 16)
				if err != nil {
					return nil, false
				}
				u = append(u, uint16(v))
				i += 6
				continue
			default:
				return nil, false
			}
			i += 2
		case c == '"':
			return nil, false // unescaped quote inside the literal
		case c < utf8.RuneSelf:
			u = append(u, uint16(c))
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				u = append(u, uint16(r1), uint16(r2))
			} else {
				u = append(u, uint16(r))
			}
			i += size
		}
	}
	return u, true
}

// maxUnits is a cheap upper bound of the UTF-16 length of a raw JSON string
// literal: every code unit takes at least one byte of the literal.
func maxUnits(raw []byte) int { return len(raw) - 2 }

const hexDigits = "0123456789abcdef"

// encodeString writes u as a JSON string literal exactly like JSON.stringify:
// `"` `\` and control characters escaped (\b \f \n \r \t, else \u00xx), lone
// surrogates as \udxxx, everything else as raw UTF-8 (no HTML escaping, no
// escaping of U+2028/U+2029).
func encodeString(u []uint16) []byte {
	b := make([]byte, 0, len(u)+16)
	b = append(b, '"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c < 0x20:
			switch c {
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
		case c < utf8.RuneSelf:
			b = append(b, byte(c))
		case isHighSurrogate(c) && i+1 < len(u) && isLowSurrogate(u[i+1]):
			b = utf8.AppendRune(b, utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
		case isHighSurrogate(c) || isLowSurrogate(c):
			b = append(b, '\\', 'u', hexDigits[c>>12], hexDigits[c>>8&0xf], hexDigits[c>>4&0xf], hexDigits[c&0xf])
		default:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return append(b, '"')
}

func isHighSurrogate(c uint16) bool { return c >= 0xd800 && c <= 0xdbff }
func isLowSurrogate(c uint16) bool  { return c >= 0xdc00 && c <= 0xdfff }

// isJSSpace reports whether c is matched by JavaScript's \s (and removed by
// String.prototype.trim): WhiteSpace and LineTerminator of ECMA-262.
func isJSSpace(c uint16) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00a0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return c >= 0x2000 && c <= 0x200a
}

// isJSWordChar reports whether c is a \w character (for \b) in a
// non-unicode JavaScript regular expression.
func isJSWordChar(c uint16) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isDigit(c uint16) bool { return c >= '0' && c <= '9' }

// units converts an ASCII/BMP Go string to UTF-16 code units.
func units(s string) []uint16 { return utf16.Encode([]rune(s)) }

func hasPrefix(u, p []uint16) bool {
	if len(u) < len(p) {
		return false
	}
	for i, c := range p {
		if u[i] != c {
			return false
		}
	}
	return true
}

// hasPrefixFoldASCII is hasPrefix with ASCII letters compared
// case-insensitively (a non-unicode /i regular expression never folds a
// non-ASCII unit onto an ASCII one).
func hasPrefixFoldASCII(u, p []uint16) bool {
	if len(u) < len(p) {
		return false
	}
	for i, c := range p {
		if lowerASCII(u[i]) != lowerASCII(c) {
			return false
		}
	}
	return true
}

func lowerASCII(c uint16) uint16 {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func index(u, p []uint16) int {
	for i := 0; i+len(p) <= len(u); i++ {
		if hasPrefix(u[i:], p) {
			return i
		}
	}
	return -1
}

func indexUnit(u []uint16, c uint16) int {
	for i, x := range u {
		if x == c {
			return i
		}
	}
	return -1
}
