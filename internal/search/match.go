// Package search finds messages in OpenClaw transcripts at disk speed.
//
// A query (a literal, or an RE2 regular expression; optionally case
// insensitive) is matched against the searchable text of each message
// (Extract). Transcript files are streamed through a bounded buffer and,
// whenever the query implies a literal, searched for it as bytes BEFORE any
// JSON is parsed: only the lines that may hold a match are parsed. The
// byte search is a sound pre-filter — it never drops a line the full parse
// would have matched (FuzzScan checks this against a parse-every-line scan):
// the searched bytes are the longest run of the literal that a JSON writer
// writes either as itself or as a \u escape — printable ASCII other than
// `"`, `\` and `/`, and any non-ASCII character, as its raw UTF-8 bytes;
// under --ignore-case no k/s (their case folds leave ASCII) and only
// non-ASCII characters without a case (CJK, not Cyrillic) — and lines that
// hold a \u escape of such a character (of printable ASCII only, when the
// run is ASCII) are parsed as well.
//
// A masked search (Options.Mask: an agent's) has no pre-filter: every line
// in scope is parsed and masked, then matched on the masked text, so its
// work does not depend on whether the raw bytes hold the query (Work
// counts it).
package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is what to look for.
type Query struct {
	Pattern    string
	Regex      bool // Pattern is a Go (RE2) regular expression
	IgnoreCase bool
	// Words: Pattern is words and "quoted phrases", every one of them in
	// a message, in any order, width- and case-folded (words.go).
	Words bool
}

// MaxWordsQuery bounds a words query (Query.Words), in characters, as
// OpenClaw's own sessions_search bounds its query: every word is looked
// for in every message.
const MaxWordsQuery = 4096

// Matcher finds a query in a message's text and pre-filters raw lines.
type Matcher struct {
	lit string         // exact literal (no regex, no case folding)
	re  *regexp.Regexp // regex or case-insensitive literal
	// words: a words query (Query.Words), pre-filtered by wordsPrefilter
	words *wordsQuery
	pre   prefilter
}

// Compile prepares a query. An empty pattern, or an invalid regular
// expression, is an error.
func Compile(q Query) (*Matcher, error) {
	if q.Pattern == "" {
		return nil, fmt.Errorf("the query is empty")
	}
	if !utf8.ValidString(q.Pattern) {
		return nil, fmt.Errorf("the query is not valid UTF-8")
	}
	m := &Matcher{}
	switch {
	case q.Words && q.Regex:
		return nil, fmt.Errorf("--words and --regex cannot be used together")
	case q.Words:
		if utf8.RuneCountInString(q.Pattern) > MaxWordsQuery {
			return nil, fmt.Errorf("a words query is at most %d characters", MaxWordsQuery)
		}
		w, err := parseWords(q.Pattern)
		if err != nil {
			return nil, err
		}
		m.words = w
		m.pre = wordsPrefilter(w)
	case q.Regex:
		expr := q.Pattern
		if q.IgnoreCase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("invalid --regex: %v", err)
		}
		m.re = re
		if lit, fold, ok := requiredLiteral(expr); ok {
			m.pre = newPrefilter(lit, fold)
		}
	case q.IgnoreCase:
		m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(q.Pattern))
		m.pre = newPrefilter(q.Pattern, true)
	default:
		m.lit = q.Pattern
		m.pre = newPrefilter(q.Pattern, false)
	}
	return m, nil
}

// Find returns the first match in text.
func (m *Matcher) Find(text string) (start, end int, ok bool) {
	if m.words != nil {
		wm := m.words.match(text, false)
		return wm.start, wm.end, wm.ok
	}
	if m.re != nil {
		loc := m.re.FindStringIndex(text)
		if loc == nil {
			return 0, 0, false
		}
		return loc[0], loc[1], true
	}
	i := strings.Index(text, m.lit)
	if i < 0 {
		return 0, 0, false
	}
	return i, i + len(m.lit), true
}

// Filtered reports whether raw lines are pre-filtered (false: every line is
// parsed, e.g. a regex without a required literal).
func (m *Matcher) Filtered() bool { return m.pre.needle != nil }

// Words reports whether the query is a words query (Query.Words).
func (m *Matcher) Words() bool { return m.words != nil }

// requiredLiteral finds a literal every match of expr contains: the longest
// literal among the top-level concatenation of the simplified expression.
func requiredLiteral(expr string) (lit string, fold, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false, false
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	for _, s := range subs {
		if s.Op == syntax.OpCapture && len(s.Sub) == 1 {
			s = s.Sub[0]
		}
		if s.Op != syntax.OpLiteral {
			continue
		}
		if l := string(s.Rune); len(l) > len(lit) {
			lit, fold, ok = l, s.Flags&syntax.FoldCase != 0, true
		}
	}
	return lit, fold, ok
}

// prefilter is the byte search run on raw transcript bytes.
type prefilter struct {
	needle []byte // nil: no pre-filter
	fold   bool   // ASCII case-insensitive (needle is lower case)
	anchor int    // index in needle of the byte searched with IndexByte
	a1, a2 byte   // the anchor byte in both cases (a1 == a2 when caseless)
	// pair: the needle has two caseless bytes: the rarest two, at p1 < p2,
	// are searched together 16 bytes at a time (pairChunk).
	pair   bool
	p1, p2 int
	// wide: the needle holds non-ASCII characters, so a line may hold it
	// with any of them \u-escaped (wideEsc), not only printable ASCII.
	wide bool
	// forms: a line holding a Halfwidth and Fullwidth Forms character may
	// hold the needle (a words query's width folding: wordsPrefilter).
	forms bool
}

// verbatim reports whether a JSON writer can only write c as itself inside
// a string: printable ASCII except the three characters JSON may escape
// ('"', '\\', '/'); under case folding, also not k or s (their folds,
// U+212A and U+017F, are not ASCII).
func verbatim(c byte, fold bool) bool {
	if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '/' {
		return false
	}
	if fold {
		switch c {
		case 'k', 'K', 's', 'S':
			return false
		}
	}
	return true
}

// usable reports whether the rune at lit[i:] (of size n) may be part of
// the searched bytes: a byte a JSON writer can only write verbatim, or a
// non-ASCII character, which a writer writes as its raw UTF-8 bytes or as
// a \u escape (a line with one is parsed: wideEsc) — under case folding
// only one without a case (unicode.SimpleFold maps it to itself: CJK, not
// Cyrillic), whose every match is those bytes.
func usable(lit string, i int, fold bool) (n int, ok bool) {
	if lit[i] < utf8.RuneSelf {
		return 1, verbatim(lit[i], fold)
	}
	r, n := utf8.DecodeRuneInString(lit[i:])
	if r == utf8.RuneError && n == 1 {
		return 1, false
	}
	return n, !fold || unicode.SimpleFold(r) == r
}

func newPrefilter(lit string, fold bool) prefilter {
	// The longest run of usable bytes (whole characters).
	best, bs := 0, 0
	for i := 0; i < len(lit); {
		if n, ok := usable(lit, i, fold); !ok {
			i += n
			continue
		}
		j := i
		for j < len(lit) {
			n, ok := usable(lit, j, fold)
			if !ok {
				break
			}
			j += n
		}
		if j-i > best {
			best, bs = j-i, i
		}
		i = j
	}
	if best == 0 {
		return prefilter{}
	}
	n := []byte(lit[bs : bs+best])
	if fold {
		n = bytes.ToLower(n)
	}
	p := prefilter{needle: n, fold: fold}
	for _, c := range n {
		p.wide = p.wide || c >= utf8.RuneSelf
	}
	// Anchor on the rarest byte; a caseless byte beats a letter under folding.
	rank := func(c byte) int {
		r := int(byteRank[c])
		if fold && isLetter(c) {
			r += 256
		}
		return r
	}
	for i := range n {
		if rank(n[i]) < rank(n[p.anchor]) {
			p.anchor = i
		}
	}
	p.a1, p.a2 = n[p.anchor], n[p.anchor]
	if fold && isLetter(p.a1) {
		p.a2 = p.a1 - 'a' + 'A'
	}
	// The rarest two caseless bytes, preferring two different values.
	p1, p2 := -1, -1
	for i := range n {
		if fold && isLetter(n[i]) {
			continue
		}
		switch {
		case p1 < 0 || rank(n[i]) < rank(n[p1]):
			p1, p2 = i, p1
		case p2 < 0 || rank(n[i]) < rank(n[p2]) || (n[p2] == n[p1] && n[i] != n[p1]):
			p2 = i
		}
	}
	if p1 >= 0 && p2 >= 0 {
		p.pair, p.p1, p.p2 = true, min(p1, p2), max(p1, p2)
	}
	return p
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// index returns the first position in s where the needle occurs, or -1.
func (p *prefilter) index(s []byte) int {
	n := p.needle
	if len(s) < len(n) {
		return -1
	}
	if p.pair {
		return p.pairIndex(s)
	}
	// Candidate starts are in [0, len(s)-len(n)]; the anchor lies at +anchor.
	lo, hi := p.anchor, len(s)-len(n)+p.anchor+1
	if p.a1 == p.a2 {
		for i := lo; i < hi; {
			j := bytes.IndexByte(s[i:hi], p.a1)
			if j < 0 {
				return -1
			}
			i += j
			if st := i - p.anchor; p.equal(s[st : st+len(n)]) {
				return st
			}
			i++
		}
		return -1
	}
	// Two cases of the anchor: merge both IndexByte streams.
	n1, n2 := -2, -2
	for i := lo; i < hi; {
		if n1 != -1 && n1 < i {
			if j := bytes.IndexByte(s[i:hi], p.a1); j >= 0 {
				n1 = i + j
			} else {
				n1 = -1
			}
		}
		if n2 != -1 && n2 < i {
			if j := bytes.IndexByte(s[i:hi], p.a2); j >= 0 {
				n2 = i + j
			} else {
				n2 = -1
			}
		}
		switch {
		case n1 < 0 && n2 < 0:
			return -1
		case n1 < 0:
			i = n2
		case n2 < 0:
			i = n1
		default:
			i = min(n1, n2)
		}
		if st := i - p.anchor; p.equal(s[st : st+len(n)]) {
			return st
		}
		i++
	}
	return -1
}

// pairIndex is index by the needle's two rarest bytes.
func (p *prefilter) pairIndex(s []byte) int {
	n := p.needle
	last := len(s) - len(n) // the last possible start
	r := s[p.p1:]           // a start st has its first pair byte at r[st]
	a, b, d := n[p.p1], n[p.p2], p.p2-p.p1
	checked := min(chunked(len(r), d), last+1)
	for off := 0; off < checked; {
		c := pairChunk(r[off:], a, b, d)
		if c < 0 {
			break
		}
		off += c
		for st := off; st < off+16 && st <= last; st++ {
			if r[st] == a && p.equal(s[st:st+len(n)]) {
				return st
			}
		}
		off += 16
	}
	for st := max(checked, 0); st <= last; st++ {
		if p.equal(s[st : st+len(n)]) {
			return st
		}
	}
	return -1
}

func (p *prefilter) equal(b []byte) bool {
	if !p.fold {
		return bytes.Equal(b, p.needle)
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p.needle[i] {
			return false
		}
	}
	return true
}

// escIndex returns the first position in s of a JSON \u escape that may
// stand for a character of the needle, or -1: of a printable ASCII
// character, or with a wide needle of any character but a control
// character (wideEsc).
func (p *prefilter) escIndex(s []byte) int {
	if p.forms {
		// the first escape, or a form before it (searched no further, so
		// that no byte is searched twice for a form)
		e := escSearch(s, true)
		lim := len(s)
		if e >= 0 {
			lim = e
		}
		if f := formsIndex(s[:lim]); f >= 0 {
			return f
		}
		return e
	}
	if p.wide {
		return escSearch(s, true)
	}
	return escIndex(s)
}

// escIndex returns the first position in s of a JSON \u escape of a
// printable ASCII character (\u0020-\u007f, which a writer may use in
// place of the character itself), or -1.
func escIndex(s []byte) int { return escSearch(s, false) }

// escSearch is escIndex, or with wide the first \u escape wideEsc holds.
// Backslashes are too common in JSON for a byte-by-byte search: the pair
// `\u` is searched 16 bytes at a time (pairChunk), then each candidate
// checked.
func escSearch(s []byte, wide bool) int {
	at := isEsc
	if wide {
		at = wideEsc
	}
	n := len(s)
	checked := chunked(n, 1) // pair starts below this are pairChunk's
	for off := 0; off < checked; {
		c := pairChunk(s[off:], '\\', 'u', 1)
		if c < 0 {
			break
		}
		off += c
		for i := off; i < off+16; i++ {
			if at(s, i) {
				return i
			}
		}
		off += 16
	}
	for i := checked; i < n; i++ {
		if at(s, i) {
			return i
		}
	}
	return -1
}

// chunked is how many positions of an n-byte slice pairChunk looks at for
// pairs d bytes apart: its whole chunks of 16 (each needing 16+d bytes).
func chunked(n, d int) int {
	if n < 16+d {
		return 0
	}
	return ((n-16-d)/16 + 1) * 16
}

// isEsc reports whether s[i:] starts a \u00[2-7]X escape (its backslash
// not itself escaped).
func isEsc(s []byte, i int) bool {
	return i+4 < len(s) && s[i] == '\\' && s[i+1] == 'u' && s[i+2] == '0' && s[i+3] == '0' &&
		s[i+4] >= '2' && s[i+4] <= '7' && !oddBackslashes(s[:i])
}

// wideEsc reports whether s[i:] starts a \u escape other than a control
// character's (\u0000-\u001f, never part of a needle): one that may stand
// for printable ASCII or for a non-ASCII character (a surrogate's half
// included), its backslash not itself escaped.
func wideEsc(s []byte, i int) bool {
	return i+4 < len(s) && s[i] == '\\' && s[i+1] == 'u' &&
		!(s[i+2] == '0' && s[i+3] == '0' && (s[i+4] == '0' || s[i+4] == '1')) && !oddBackslashes(s[:i])
}

// oddBackslashes reports whether s ends in an odd number of backslashes
// (then a following backslash is itself escaped).
func oddBackslashes(s []byte) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// byteRank orders bytes by how common they are in transcripts (lower is
// rarer): the anchor of the byte search is the needle's rarest byte.
var byteRank = func() (r [256]byte) {
	// From rare to common, roughly as in English text inside JSON.
	const common = ` eta"oinsrhl:,dcumfpgwybv.{}k0123456789_-TASICEMONRPDLHBFGWqxjzUVYKJQXZ[]/\()'!?;=<>@#$%&*+^|~` + "`"
	for i := range r {
		r[i] = 0 // unlisted bytes (control, UTF-8 continuation) are rarest
	}
	for i := 0xc0; i < 0x100; i++ {
		r[i] = 1 // a UTF-8 lead byte is shared by a whole script's letters
	}
	for i := 0; i < len(common); i++ {
		r[common[i]] = byte(255 - i)
	}
	return r
}()
