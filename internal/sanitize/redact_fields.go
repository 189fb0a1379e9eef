package sanitize

import (
	"regexp"
	"strings"

	"github.com/openclaw/sessions/internal/lazyre"
)

// The structured-field rules of 9.6's default list (DEFAULT_REDACT_FIELD_
// PATTERNS): env and config assignments (API_KEY=…, password: …), JSON
// fields ("apiKey": "…"), CLI flags (--token …), HTTP auth headers
// (Authorization: Bearer/Basic/Bot/<scheme> …, X-Api-Key: …), form pairs and
// AWS secret access keys. OpenClaw writes them as JavaScript regular
// expressions with backreferences and lookarounds; here each backreference
// is spelled out as one alternative per quote character, and each lookaround
// RE2 cannot express is a check on the match (reject) that makes the search
// go on one character later, as a backtracking engine would.

const (
	paymentEnvKeys   = `CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN`
	paymentQueryKeys = `card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token`
	paymentJSONKeys  = `cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token`
	awsSecretKeys    = `aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey`
	authQueryKeys    = `access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey|client[-_]?secret|app[-_]?secret|private[-_]?key|` + awsSecretKeys + `|credential|authorization|token|key|secret|password|pass|passwd|auth|jwt|session|code|signature|x[-_]?amz[-_]?(?:signature|security[-_]?token)`
	formFirstKeys    = authQueryKeys + `|app[-_]?secret|credential|` + paymentQueryKeys
	standaloneKeys   = `access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|` + paymentQueryKeys
	configKeys       = `access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|` + paymentQueryKeys
	configDirectKeys = `access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|passphrase`
	configPassKeys   = `password|passphrase|pass|passwd`
	configQuotedKeys = `access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|` + paymentQueryKeys
	cliFlagKeys      = awsSecretKeys + `|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|` + paymentQueryKeys
	envKeyPrefix     = `\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|` + paymentEnvKeys + `)\b\s*[=:]\s*`

	// The HTTP auth header pieces (structured-auth-redaction).
	authScheme      = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
	authCredential  = `(?:\[REDACTED\]|[^\s\\"',;&#?<>)}\]]+)`
	authTab         = `\\{1,64}t`
	authIndent      = `(?:[ \t]+|` + authTab + `)`
	authOptionalWS  = `(?:[ \t]*\r?\n` + authIndent + `|[ \t]*\\{1,64}r\\{1,64}n` + authIndent + `|[ \t]*\\{1,64}n` + authIndent + `|[ \t]*` + authTab + `[ \t]*|[ \t]*)`
	authRequiredWS  = `(?:[ \t]*\r?\n` + authIndent + `|[ \t]*\\{1,64}r\\{1,64}n` + authIndent + `|[ \t]*\\{1,64}n` + authIndent + `|[ \t]*` + authTab + `[ \t]*|[ \t]+)`
	authLegacyWS    = `(?:[ \t\r\n]*|[ \t]*\\{1,64}r\\{1,64}n(?:[ \t]*|` + authTab + `)|[ \t]*\\{1,64}n(?:[ \t]*|` + authTab + `)|[ \t]*` + authTab + `[ \t]*)`
	authBoundary    = `(^|[^A-Za-z0-9_-]|\\{1,64}[rn])`
	authQuote       = `(?:\\{1,64}["']|["']|)`
	logBoundary     = `(^|[^A-Za-z0-9_?&-]|\\{1,64}[rn])`
	credHeaderKeys  = `x-goog-api-key|api-key|apikey|x-api-token|x-access-token`
	gatewayHdrKeys  = `X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token`
	authLegacyStart = `Authorization` + authQuote + `[ \t]*[:=]` + authLegacyWS + authQuote
)

// quoted is `(["'<q>])((?:(?!\N)[^<cls>])+)\N` with one alternative per
// quote: each value its own group.
func quoted(quotes, cls string) string {
	alts := make([]string, 0, len(quotes))
	for _, q := range quotes {
		alts = append(alts, regexp.QuoteMeta(string(q))+`([^`+string(q)+cls+`]+)`+regexp.QuoteMeta(string(q)))
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// maskMode says how a pattern's secret is replaced (prepareRedactionCapture).
type maskMode int

const (
	// maskHinted: maskToken of the value without its quotes and trailing
	// closing punctuation, which stay after it (maskSecretValue, hinted).
	maskHinted maskMode = iota
	// maskShellRef: maskToken of the whole value, except a reference to
	// the variable being assigned (KEY=$KEY, KEY=${KEY:-x}) which is kept
	// (SHELL_REFERENCE_PRESERVING_PATTERN_SOURCES).
	maskShellRef
)

// fieldSpec is one default pattern: its RE2 source, whether it is
// case-sensitive (OpenClaw's "/…/g" literals) and its mask rules.
type fieldSpec struct {
	src           string
	caseSensitive bool
	mode          maskMode
	// formAware: a "&name=" in the value starts a form's next pair, kept.
	formAware bool
	// reject: the lookaround RE2 lacks fails for this match.
	reject func(s string, loc []int) bool
	// chunkUnsafe: run on the whole of a long text (CHUNK_UNSAFE_PATTERN_SOURCES).
	chunkUnsafe bool
	// need: a text is scanned only when, lower-cased, it holds one string
	// of each list (where the literals RE2's parse yields are too weak).
	need [][]string
	// skip: how the search goes on after a rejected match (redact_linear.go).
	skip skipKind
}

// assignment: every assignment pattern holds one of them.
var assignment = []string{"=", ":"}

// secretWords: every key of the assignment patterns holds one of them.
var secretWords = []string{"key", "token", "secret", "pass", "auth", "jwt", "session", "code", "signature", "credential", "cvc", "cvv", "card", "security", "payment", "amz", "material"}

var (
	authRequiredWSStartRE = lazyre.New(`^` + authRequiredWS)
	authValueEndRE        = lazyre.New(`^` + authQuote + `(?:$|[,;)}\]]|\r?\n(?:$|[^ \t]))`)
	formNextPairRE        = lazyre.New(`^&[A-Za-z_][A-Za-z0-9_.-]*=`)
	orAndFlagRE           = lazyre.New(`(?i)^(?:or|and)\b[` + jsSpaces + `]+--`)
)

// lastGroup is the last non-empty capture group of loc (-1 when none).
func lastGroup(loc []int) int {
	for g := len(loc)/2 - 1; g >= 1; g-- {
		if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
			return g
		}
	}
	return -1
}

// isBasicScheme: the text at i starts "Bearer", "Basic" or "Bot" followed
// by the required whitespace — (?!(?:Bearer|Basic|Bot)(?=WS)) fails there.
func isBasicScheme(s string, i int) bool {
	rest := s[i:]
	for _, w := range []string{"bearer", "basic", "bot"} {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) && authRequiredWSStartRE.MatchString(rest[len(w):]) {
			return true
		}
	}
	return false
}

// afterValue is the text after a match (where a trailing lookahead looks).
func afterValue(s string, loc []int) string { return s[loc[1]:] }

var fieldSpecs = []fieldSpec{
	{src: envKeyPrefix + `(?:"([^\s"'\\]+)"|'([^\s"'\\]+)'|([^\s"'\\]+))`, caseSensitive: true, mode: maskShellRef, need: [][]string{secretWords, assignment}},
	{src: envKeyPrefix + `\\+(?:"([^\s"'\\]+)\\+"|'([^\s"'\\]+)\\+')`, caseSensitive: true, mode: maskShellRef, need: [][]string{secretWords, assignment}},
	{src: `"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd|` + awsSecretKeys + `|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret|secret_input|key_material)"\s*:\s*"([^"]+)"`, need: [][]string{{":"}}},
	{src: `"(?:` + paymentJSONKeys + `)"\s*:\s*"([^"]+)"`, need: [][]string{{":"}}},
	{src: `(^|[\s,{])["']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)["']?\s*[:=]\s*(?:"([^"'\r\n]+)"|'([^"'\r\n]+)')`, need: [][]string{assignment}},
	{src: `(^|[\s,{])["']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)["']?\s*[:=]\s*(?:"([^"'\r\n]+)"|'([^"'\r\n]+)')`, need: [][]string{assignment}},
	{src: `--(?:` + cliFlagKeys + `)=([^\s"']+)`},
	{src: `--(?:` + cliFlagKeys + `)\s+(?:"([^\s"']+)"|'([^\s"']+)'|([^\s"']+))`, reject: func(s string, loc []int) bool {
		g := lastGroup(loc)
		return g == 3 && orAndFlagRE.MatchString(s[loc[2*g]:])
	}},
	{chunkUnsafe: true, src: authLegacyStart + `Bearer` + authRequiredWS + `(` + authCredential + `)`},
	{chunkUnsafe: true, src: authLegacyStart + `Basic` + authRequiredWS + `(` + authCredential + `)`},
	{chunkUnsafe: true, src: authLegacyStart + `Bot` + authRequiredWS + `(` + authCredential + `)`},
	{chunkUnsafe: true, src: authBoundary + `Proxy-Authorization` + authQuote + `[ \t]*[:=]` + authOptionalWS + authQuote + authScheme + authRequiredWS + `(` + authCredential + `)`},
	{chunkUnsafe: true, skip: skipAuthValue, src: authBoundary + `Proxy-Authorization` + authQuote + `[ \t]*[:=]` + authOptionalWS + authQuote + `(` + authCredential + `)[ \t]*`, reject: func(s string, loc []int) bool {
		return !authValueEndRE.MatchString(afterValue(s, loc))
	}},
	{chunkUnsafe: true, src: authBoundary + `Authorization` + authQuote + `[ \t]*[:=]` + authOptionalWS + authQuote + `(` + authScheme + `)` + authRequiredWS + `(` + authCredential + `)`, reject: func(s string, loc []int) bool {
		// JavaScript backtracks a ' taken as the quote into the scheme
		// ('Bearer is a scheme), and the credential is the same.
		i := loc[4]
		quoteInScheme := i > 0 && s[i-1] == '\'' && (i < 2 || s[i-2] != '\\')
		return isBasicScheme(s, i) && !quoteInScheme
	}},
	{chunkUnsafe: true, skip: skipAuthValue, src: authBoundary + `Authorization` + authQuote + `[ \t]*[:=]` + authOptionalWS + authQuote + `(` + authCredential + `)[ \t]*`, reject: func(s string, loc []int) bool {
		return isBasicScheme(s, loc[4]) || !authValueEndRE.MatchString(afterValue(s, loc))
	}},
	{chunkUnsafe: true, src: logBoundary + `(?:` + credHeaderKeys + `)` + authQuote + `[ \t]*:` + authOptionalWS + authQuote + `([^\s\\"',;]+)`},
	{chunkUnsafe: true, src: logBoundary + `(?:` + credHeaderKeys + `)` + authQuote + `[ \t]*=` + authOptionalWS + authQuote + `([^\s\\"',;]+)`, formAware: true},
	{src: logBoundary + `(?:` + gatewayHdrKeys + `)\s*:\s*([^\s"',;]+)`},
	{src: logBoundary + `(?:` + gatewayHdrKeys + `)\s*=\s*([^\s"',;]+)`, formAware: true},
	{chunkUnsafe: true, src: `\bBearer\s+([-A-Za-z0-9._~+/=]{18,})`},
	{src: `\b(?:https?|wss?|ftp):\/\/[^\/\s:@]*:([^\/\s@]+)@`},
	{src: `\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]*:([^@\s]+)@`},
	{src: `(^|[\s,;])(?:` + formFirstKeys + `)=([^&\s]+)`, need: [][]string{secretWords, {"&"}, {"="}}, skip: skipFormValue, reject: func(s string, loc []int) bool {
		return !formNextPairRE.MatchString(s[loc[1]:])
	}},
	{src: `(^|[\s,;({\["])(?:` + standaloneKeys + `)=` + quoted("\"'`", `\r\n`), mode: maskShellRef, need: [][]string{secretWords, assignment}},
	{src: `(^|[\s,;({\["])(?:` + standaloneKeys + `)=(["'` + "`" + `]?[^\s&#"'` + "`" + `<>]+)`, mode: maskShellRef, need: [][]string{secretWords, assignment}},
	{src: `(^|[\s,{])(?:(?:` + configQuotedKeys + `)(?:\s*:\s*|\s+=\s*|=\s*)|[a-z0-9][a-z0-9._-]{0,79}[-_](?:` + configPassKeys + `)\s*[:=]\s*|[a-z0-9_.-]{1,80}\.(?:` + configKeys + `)\s*[:=]\s*)` + quoted("\"'`", `\r\n`), caseSensitive: true, need: [][]string{secretWords, assignment}},
	{src: `(^|[\s,{])(?:` + configKeys + `)(?:\s*:\s*|\s+=\s*|=\s+)([^\s#"'` + "`" + `<>]+)`, caseSensitive: true, need: [][]string{secretWords, assignment}},
	{src: `(^|[\s,{])(?:` + configDirectKeys + `)=([^\s#"'` + "`" + `<>]+)`, caseSensitive: true, need: [][]string{secretWords, assignment}},
	{src: `(^|[\s,{])[a-z0-9][a-z0-9._-]{0,79}[-_](?:` + configPassKeys + `)\s*[:=]\s*([^\s#"'` + "`" + `<>]+)`, caseSensitive: true, need: [][]string{{"pass"}, assignment}},
	{src: `(^|[\s,{])[a-z0-9_.-]{1,80}\.(?:` + configKeys + `)\s*[:=]\s*([^\s#"'` + "`" + `<>]+)`, caseSensitive: true, need: [][]string{secretWords, assignment}},
	// (the PEM block comes here: see compiledDefaults)
	{src: `(^|[\s,{])["']?(?:` + awsSecretKeys + `)["']?\s*[:=]\s*(?:"([A-Za-z0-9/+=]{40})"|'([A-Za-z0-9/+=]{40})'|([A-Za-z0-9/+=]{40}))`, need: [][]string{assignment}, reject: func(s string, loc []int) bool {
		return loc[8] >= 0 && loc[1] < len(s) && isAWSChar(s[loc[1]])
	}},
}

// jsSpaces is JavaScript's \s (Go's is ASCII only).
const jsSpaces = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsWhitespace rewrites \s in an RE2 source as JavaScript's \s.
func jsWhitespace(src string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			if src[i+1] == 's' {
				if inClass {
					b.WriteString(jsSpaces)
				} else {
					b.WriteString("[" + jsSpaces + "]")
				}
			} else {
				b.WriteByte(c)
				b.WriteByte(src[i+1])
			}
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// a leading "^" or "]" belongs to the class
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// splitSecretValue is splitSecretValueForMask: the part of a value to mask,
// what stays after the mask, and the end (in token) of the masked span.
func splitSecretValue(token string) (maskable, suffix string, maskEnd int) {
	if token != "" && strings.ContainsRune("\"'`", rune(token[0])) {
		q := token[:1]
		if closing := strings.LastIndex(token, q); closing > 0 {
			if rest := token[closing+1:]; strings.Trim(rest, "\"'`,;)}]") == "" {
				return token[1:closing], rest, closing + 1
			}
		}
		inner := token[1:]
		d := trailingDelimiterRE.FindString(inner)
		if d != "" && len(d) < len(inner) {
			return inner[:len(inner)-len(d)], d, len(inner) - len(d) + 1
		}
		return inner, "", len(token)
	}
	d := trailingDelimiterRE.FindString(token)
	if d != "" && len(d) < len(token) {
		return token[:len(token)-len(d)], d, len(token) - len(d)
	}
	return token, "", len(token)
}

var (
	envAssignmentKeyRE = lazyre.New(`\b([A-Z_][A-Z0-9_]*)\b\s*[=:]`)
	shellBareRefRE     = lazyre.New(`^\$([A-Z_][A-Z0-9_]*)$`)
	shellBracedRefRE   = lazyre.New(`^\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}$`)
	emptyExpansionRE   = lazyre.New(`^[-=?+]\}$`)
	formPairBoundaryRE = lazyre.New(`&[A-Za-z_][A-Za-z0-9_.-]*=`)
	upperKeyRE         = lazyre.New(`^[A-Z_][A-Z0-9_]*$`)
)

// keepsShellReference: the value is $KEY or ${KEY} of the key the match
// assigns, or the tail of an empty expansion.
func keepsShellReference(match, token string) bool {
	if emptyExpansionRE.MatchString(token) {
		return true
	}
	m := envAssignmentKeyRE.FindStringSubmatch(match)
	if m == nil || !upperKeyRE.MatchString(m[1]) {
		return false
	}
	if r := shellBareRefRE.FindStringSubmatch(token); r != nil {
		return r[1] == m[1]
	}
	r := shellBracedRefRE.FindStringSubmatch(token)
	return r != nil && r[1] == m[1]
}

// maskFor is the replacement of one secret (token) of a match, ok false
// when the match is left as it is.
func (p redactPattern) maskFor(match, token string) (string, bool) {
	if token == "***" {
		return "", false
	}
	secret, rest := token, ""
	if p.formAware {
		if i := formPairBoundaryRE.FindStringIndex(token); i != nil {
			secret, rest = token[:i[0]], token[i[0]:]
		}
	}
	maskable, suffix, _ := splitSecretValue(secret)
	if maskable == "***" {
		return "", false
	}
	if p.mode == maskShellRef {
		if keepsShellReference(match, token) {
			return "", false
		}
		return maskToken(token), true
	}
	return maskToken(maskable) + suffix + rest, true
}
