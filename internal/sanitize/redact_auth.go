package sanitize

import (
	"strings"

	"github.com/openclaw/sessions/internal/lazyre"
)

// The auth-parameter pass OpenClaw runs first (redactStructuredAuthHeaders):
// in "Authorization: <scheme> name=value, name=value" (Digest, Hawk, AWS4-…,
// or any scheme whose parameters start with a name=), everything from the
// first parameter to the end of the last one becomes "***". A line-by-line
// port of its scanner; every character it tests is ASCII, so byte offsets
// serve for its UTF-16 ones.

var (
	structuredAuthHeaderRE = lazyre.New(`(?i)` + authBoundary + `(?:Proxy-)?Authorization` + authQuote + `[ \t]*[:=]` + authOptionalWS + authQuote + `(` + authScheme + `)` + authRequiredWS)
	authTokenRE            = lazyre.New("^[A-Za-z0-9!#$%&'*+.^_`|~-]+")
	awsScopeValueRE        = lazyre.New("^[A-Za-z0-9!#$%&'*+.^_`|~:/-]+")
	signedHeadersRE        = lazyre.New("^:?[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:;:?[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")
)

// at is value[i], or 0 past either end (JavaScript's undefined).
func at(v string, i int) byte {
	if i < 0 || i >= len(v) {
		return 0
	}
	return v[i]
}

func skipHorizontalWhitespace(v string, i int) int {
	for at(v, i) == ' ' || at(v, i) == '\t' {
		i++
	}
	return i
}

// readSerializedLineEnd: "\n" or "\r\n" written with backslashes; -1 when
// there is none at i.
func readSerializedLineEnd(v string, i int) int {
	n := 0
	for n < 64 && at(v, i) == '\\' {
		n++
		i++
	}
	if n == 0 {
		return -1
	}
	if at(v, i) == 'n' {
		return i + 1
	}
	if at(v, i) != 'r' {
		return -1
	}
	i++
	n = 0
	for n < 64 && at(v, i) == '\\' {
		n++
		i++
	}
	if n > 0 && at(v, i) == 'n' {
		return i + 1
	}
	return -1
}

func readSerializedTabEnd(v string, i int) int {
	n := 0
	for n < 64 && at(v, i) == '\\' {
		n++
		i++
	}
	if n > 0 && at(v, i) == 't' {
		return i + 1
	}
	return -1
}

func skipAuthWhitespace(v string, i int) int {
	for {
		i = skipHorizontalWhitespace(v, i)
		if t := readSerializedTabEnd(v, i); t >= 0 {
			i = t
			continue
		}
		var end int
		switch {
		case at(v, i) == '\r' && at(v, i+1) == '\n':
			end = i + 2
		case at(v, i) == '\n':
			end = i + 1
		default:
			end = readSerializedLineEnd(v, i)
		}
		if end < 0 || at(v, end) != ' ' && at(v, end) != '\t' && readSerializedTabEnd(v, end) < 0 {
			return i
		}
		i = end
	}
}

// readAuthParamName is the parameter name at i (lower-cased) and its end.
func readAuthParamName(v string, i int) (string, int, bool) {
	if i > len(v) {
		return "", 0, false
	}
	m := authTokenRE.FindString(v[i:])
	if m == "" {
		return "", 0, false
	}
	return strings.ToLower(m), i + len(m), true
}

func isIdentChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isAuthHeaderStart(v string, i int) bool {
	prev := at(v, i-1)
	serialized := false
	if prev == 'n' || prev == 'r' {
		j, n := i-2, 0
		for n < 64 && at(v, j) == '\\' {
			n++
			j--
		}
		serialized = n > 0
	}
	if !serialized && i > 0 && isIdentChar(prev) {
		return false
	}
	end := min(i+19, len(v))
	if i > len(v) {
		return false
	}
	cand := strings.ToLower(v[i:end])
	var name string
	switch {
	case cand == "proxy-authorization":
		name = cand
	case strings.HasPrefix(cand, "authorization"):
		name = "authorization"
	default:
		return false
	}
	c := i + len(name)
	n := 0
	for n < 64 && at(v, c) == '\\' {
		n++
		c++
	}
	if at(v, c) == '"' || at(v, c) == '\'' {
		c++
	} else if n > 0 {
		return false
	}
	c = skipHorizontalWhitespace(v, c)
	return at(v, c) == ':' || at(v, c) == '='
}

// findNextAuthParamStart is where the next name= parameter starts, -1 when
// the field ends first.
func findNextAuthParamStart(v string, start int) int {
	c := start
	for {
		c = skipAuthWhitespace(v, c)
		if c > start && isAuthHeaderStart(v, c) {
			return -1
		}
		if c >= len(v) || v[c] == '\r' || v[c] == '\n' || v[c] == ';' {
			return -1
		}
		if v[c] == ',' {
			c++
			continue
		}
		if _, end, ok := readAuthParamName(v, c); ok {
			eq := skipAuthWhitespace(v, end)
			if at(v, eq) == '=' && at(v, eq+1) != '=' {
				return c
			}
		}
		for c < len(v) {
			if ws := skipAuthWhitespace(v, c); ws > c {
				c = ws
				continue
			}
			if c > start && isAuthHeaderStart(v, c) {
				return -1
			}
			ch := v[c]
			if ch == '\r' || ch == '\n' || ch == ';' {
				return -1
			}
			c++
			if ch == ',' {
				break
			}
		}
	}
}

func usesAuthParams(scheme string) bool {
	return scheme == "digest" || scheme == "hawk" || strings.HasPrefix(scheme, "aws4-")
}

func findAuthFieldEnd(v string, start int) int {
	c := start
	for c < len(v) {
		if ws := skipAuthWhitespace(v, c); ws > c {
			c = ws
			continue
		}
		if c > start && isAuthHeaderStart(v, c) {
			break
		}
		switch v[c] {
		case '\r', '\n', ';', '\\', '"', '\'', '}', ']':
			return c
		}
		c++
	}
	return c
}

// readParamValue is the end of the parameter value at start, -1 when none.
func readParamValue(v string, start int, awsScope, signedHeaders bool) int {
	slashes := 0
	for at(v, start+slashes) == '\\' {
		slashes++
	}
	escaped := slashes > 0 && at(v, start+slashes) == '"'
	quote := byte(0)
	if at(v, start) == '"' || at(v, start) == '\'' {
		quote = v[start]
	}
	if quote != 0 || escaped {
		c := start + 1
		if escaped {
			c = start + slashes + 1
		}
		for c < len(v) {
			if v[c] == '\r' || v[c] == '\n' {
				ws := skipAuthWhitespace(v, c)
				if ws == c {
					break
				}
				c = ws
				continue
			}
			if escaped && v[c] == '\\' {
				e := c + 1
				for at(v, e) == '\\' {
					e++
				}
				if at(v, e) == '"' {
					if (e-c)%(2*(slashes+1)) == slashes {
						return e + 1
					}
					c = e + 1
					continue
				}
				c = e
				continue
			}
			if !escaped && v[c] == '\\' && c+1 < len(v) {
				c += 2
				continue
			}
			if !escaped && v[c] == quote {
				return c + 1
			}
			c++
		}
		if c > start+1 {
			return c
		}
		return -1
	}
	if start > len(v) {
		return -1
	}
	if signedHeaders {
		m := signedHeadersRE.FindString(v[start:])
		if m == "" {
			return -1
		}
		end := start + len(m)
		switch at(v, end) {
		case 0, ',', ' ', '\t', '\r', '\n':
			if end == len(v) || at(v, end) != 0 {
				return end
			}
		}
		return -1
	}
	re := authTokenRE
	if awsScope {
		re = awsScopeValueRE
	}
	m := re.FindString(v[start:])
	if m == "" {
		return -1
	}
	return start + len(m)
}

type authRange struct{ start, end int }

func findStructuredAuthParamRanges(v string) []authRange {
	var ranges []authRange
	for _, h := range structuredAuthHeaderRE.FindAllStringSubmatchIndex(v, -1) {
		scheme := strings.ToLower(v[h[4]:h[5]])
		c := h[1]
		rangeStart, rangeEnd := c, c
		_, nameEnd, ok := readAuthParamName(v, c)
		direct := ok
		if ok {
			eq := skipAuthWhitespace(v, nameEnd)
			direct = at(v, eq) == '=' && at(v, eq+1) != '='
		}
		if !direct {
			if at(v, skipAuthWhitespace(v, c)) != ',' && !usesAuthParams(scheme) {
				continue
			}
			first := findNextAuthParamStart(v, c)
			if first < 0 {
				continue
			}
			c = first
		}
		for {
			name, end, ok := readAuthParamName(v, c)
			if !ok {
				break
			}
			c = skipAuthWhitespace(v, end)
			if at(v, c) != '=' {
				break
			}
			c = skipAuthWhitespace(v, c+1)
			valueEnd := readParamValue(v, c, strings.HasPrefix(scheme, "aws4-") && name == "credential", name == "signedheaders")
			if valueEnd < 0 {
				if next := findNextAuthParamStart(v, c); next >= 0 {
					c = next
					continue
				}
				rangeEnd = max(rangeEnd, findAuthFieldEnd(v, c))
				break
			}
			rangeEnd = valueEnd
			sep := skipAuthWhitespace(v, valueEnd)
			if at(v, sep) != ',' {
				if sep < len(v) && !strings.ContainsRune("\r\n;\\\"'}]", rune(v[sep])) {
					if next := findNextAuthParamStart(v, sep); next >= 0 {
						c = next
						continue
					}
					rangeEnd = max(rangeEnd, findAuthFieldEnd(v, sep))
				}
				break
			}
			next := findNextAuthParamStart(v, sep+1)
			if next < 0 {
				break
			}
			c = next
		}
		if rangeEnd > rangeStart {
			ranges = append(ranges, authRange{rangeStart, rangeEnd})
		}
	}
	return ranges
}

// redactStructuredAuthHeaders replaces each auth-parameter list with "***".
func redactStructuredAuthHeaders(v string) string {
	if !strings.Contains(strings.ToLower(v), "authorization") {
		return v
	}
	ranges := findStructuredAuthParamRanges(v)
	if len(ranges) == 0 {
		return v
	}
	var merged []authRange
	for _, r := range ranges {
		if n := len(merged); n > 0 && r.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, r.end)
		} else {
			merged = append(merged, r)
		}
	}
	var b strings.Builder
	cursor := 0
	for _, r := range merged {
		b.WriteString(v[cursor:r.start])
		b.WriteString("***")
		cursor = r.end
	}
	b.WriteString(v[cursor:])
	return b.String()
}
