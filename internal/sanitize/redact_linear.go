package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Masking is linear in the text. The patterns with a lookaround RE2
// lacks are searched match by match (findAll): a match the lookaround
// refuses is searched again one character later, as a backtracking engine
// would. Each search costs the bytes up to its match's end, so matches
// that overlap and are all refused cost the square of their length: a
// run of "Authorization:" (each one's credential runs to the same far
// end), of ",token=" in a form value, or of "+ATATT…" in a base64 payload
// whose lookbehind also walked back to the payload's start each time.
// 9.6's backtracking engine pays the same.
//
// After such a refusal, the search here goes on past the matches that are
// certain to be refused alike (skip), each rule below with why; the
// lookbehind remembers the run it walked (base64Memo). The matches found
// are the same (TestLinearSameMatches runs both on the shapes and fuzzed
// texts); TestRedactLinear counts the bytes scanned.

type skipKind uint8

const (
	skipNone skipKind = iota
	// skipBase64: the base64-boundary vendor tokens, refused inside a
	// data URL's base64 payload.
	skipBase64
	// skipFormValue: the form pattern's value, refused when no "&name="
	// follows it.
	skipFormValue
	// skipAuthValue: the Authorization and Proxy-Authorization
	// credentials without a scheme, refused when the value does not end
	// there.
	skipAuthValue
)

// resume is where to search after the refused match loc (0: one character
// later).
func (p redactPattern) resume(s string, loc []int) int {
	switch p.skip {
	case skipBase64:
		// Every start up to the first character after the token's that is
		// not of [A-Za-z0-9+/=] puts the token (which starts with a
		// letter) in the same base64 run, so in the same payload: refused.
		i := loc[4]
		for i < len(s) && isBase64DataChar(s[i]) {
			i++
		}
		scanWork.Add(int64(i - loc[4]))
		return i
	case skipFormValue:
		// key=value without "&" or a space, ended by one (or the text's
		// end): a match starting inside it has its key there too (after a
		// "," or ";") and its value runs to the same end, where the same
		// lookahead fails.
		from := loc[3] // after the boundary
		if !allRunes(s[from:loc[1]], isFormValueRune) || loc[1] < len(s) && startsWith(s[loc[1]:], isFormValueRune) {
			return 0
		}
		return loc[1]
	case skipAuthValue:
		// Refused because the value does not end there (for a reason that
		// depends on the match's end only). Inside a credential without
		// whitespace, quotes, backslashes or "]", a match starting more
		// than 30 bytes before its end has "Authorization" (or
		// "Proxy-Authorization") there, then ":" or "=" with no room for a
		// quote or a space, and its credential is the rest of the same
		// run (not "[REDACTED]": its "]" would be in the run): the same
		// end, refused alike. 64 bytes keep a margin.
		if authValueEndRE.MatchString(afterValue(s, loc)) {
			return 0
		}
		cs, ce := loc[4], loc[5]
		if ce-cs < 128 || !allRunes(s[cs:ce], isAuthCredentialRune) {
			return 0
		}
		return ce - 64
	}
	return 0
}

// allRunes: every rune of s passes ok (counted as scanned).
func allRunes(s string, ok func(rune) bool) bool {
	scanWork.Add(int64(len(s)))
	for _, r := range s {
		if !ok(r) {
			return false
		}
	}
	return true
}

func startsWith(s string, ok func(rune) bool) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return ok(r)
}

// isFormValueRune is [^&\s] (JavaScript's \s).
func isFormValueRune(r rune) bool { return r != '&' && !isJSSpaceRune(r) }

// isAuthCredentialRune is authCredential's [^\s\\"',;&#?<>)}\]].
func isAuthCredentialRune(r rune) bool {
	return !isJSSpaceRune(r) && !strings.ContainsRune("\\\"',;&#?<>)}]", r)
}

// base64Memo is inBase64Data for one findAll: the token starts it is asked
// about only grow, so the base64 run before each is found from the last
// one's instead of walked back to its start every time.
type base64Memo struct {
	at, runStart int // the run of base64 characters before at starts at runStart
	ok           bool
}

// inData is inBase64Data(s, loc) for the token starting at i.
func (m *base64Memo) inData(s string, i int) bool {
	floor := 0
	if m.ok && i >= m.at {
		floor = m.at
	}
	j := i
	for j > floor && isBase64DataChar(s[j-1]) {
		j--
	}
	scanWork.Add(int64(i - j))
	if j > floor || floor == 0 {
		m.runStart = j
	} // else s[m.at:i] is all base64: the same run as at m.at
	m.at, m.ok = i, true
	return strings.HasSuffix(s[:m.runStart], ";base64,")
}
