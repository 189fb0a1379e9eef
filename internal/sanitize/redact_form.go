package sanitize

import (
	"regexp"
	"strings"
)

// Form bodies (user=bob&password=…) and "body: token=…" have their
// credential values replaced by "***" after the URL pass, as OpenClaw's
// redactFormBody does, line by line.

const (
	formInvisible = `\p{C}\x{00A0}\x{1680}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}\x{115F}\x{1160}\x{3164}\x{FFA0}`
	formKey       = `[` + formInvisible + `+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{2}|[` + formInvisible + `+])*`
	formValue     = `[^&\s<>]*`
	formPair      = formKey + `=` + formValue
)

var (
	formBodyRE        = regexp.MustCompile(jsWhitespace(`^` + formPair + `(?:&` + formPair + `)+$`))
	formSubstringRE   = regexp.MustCompile(jsWhitespace(`(^|[\s:({\[,="'` + "`" + `])(` + formPair + `(?:&` + formPair + `)+)`))
	encodedPairRE     = regexp.MustCompile(jsWhitespace(`(^|[\s:({\[,="'` + "`" + `&])(` + formKey + `)=(` + formValue + `)`))
	contextPairRE     = regexp.MustCompile(jsWhitespace(`(?i)(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*(["'` + "`" + `]?))(` + formKey + `)=(` + formValue + `)(["'` + "`" + `]?)`))
	formObfuscationRE = regexp.MustCompile(`[` + formInvisible + `+]`)
	formSeparatorRE   = regexp.MustCompile(`[\p{C}\p{Z}\x{115F}\x{1160}\x{3164}\x{FFA0}+]`)
	percentEscapeRE   = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
	lineBreakRE       = regexp.MustCompile(`\r\n|\r|\n`)
)

// sensitiveBodyKey is isSensitiveBodyKey: a URL credential parameter name,
// or one of the body keys once invisible characters and "+" are dropped.
func sensitiveBodyKey(key string) bool {
	return sensitiveQueryKey(formSeparatorRE.ReplaceAllString(key, ""))
}

type formKind int

const (
	formEncoded formKind = iota // keys with %xx or invisible characters
	formContext                 // body: key=value
	formWhole                   // a whole k=v&k=v body
)

// maskFormPairs replaces with "***" the values of the sensitive pairs of
// text found as kind says.
func maskFormPairs(text string, kind formKind) string {
	type span struct{ start, end int }
	var spans []span
	visit := func(key, token string, valueOffset int) {
		if kind == formEncoded && !percentEscapeRE.MatchString(key) && formObfuscationRE.ReplaceAllString(key, "") == key {
			return
		}
		if !sensitiveBodyKey(key) {
			return
		}
		_, _, end := splitSecretValue(token)
		spans = append(spans, span{valueOffset, valueOffset + end})
	}
	switch kind {
	case formEncoded:
		if !strings.Contains(text, "%") && formObfuscationRE.ReplaceAllString(text, "") == text {
			return text
		}
		for _, m := range encodedPairRE.FindAllStringSubmatchIndex(text, -1) {
			visit(text[m[4]:m[5]], text[m[6]:m[7]], m[6])
		}
	case formContext:
		if !strings.ContainsAny(text, "=:") {
			return text
		}
		for _, m := range contextPairRE.FindAllStringSubmatchIndex(text, -1) {
			visit(text[m[6]:m[7]], text[m[8]:m[9]], m[8])
		}
	case formWhole:
		cursor := 0
		for _, pair := range strings.Split(text, "&") {
			if eq := strings.IndexByte(pair, '='); eq >= 0 {
				visit(pair[:eq], pair[eq+1:], cursor+eq+1)
			}
			cursor += len(pair) + 1
		}
	}
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	cursor := 0
	for _, s := range spans {
		if s.start < cursor {
			continue
		}
		b.WriteString(text[cursor:s.start])
		b.WriteString("***")
		cursor = s.end
	}
	b.WriteString(text[cursor:])
	return b.String()
}

func redactFormLine(line string) string {
	if line == "" {
		return line
	}
	out := maskFormPairs(maskFormPairs(line, formEncoded), formContext)
	if !strings.Contains(out, "&") {
		return out
	}
	if formBodyRE.MatchString(out) {
		return maskFormPairs(out, formWhole)
	}
	locs := formSubstringRE.FindAllStringSubmatchIndex(out, -1)
	if locs != nil {
		var b strings.Builder
		cursor := 0
		for _, m := range locs {
			b.WriteString(out[cursor:m[4]])
			b.WriteString(maskFormPairs(out[m[4]:m[5]], formWhole))
			cursor = m[5]
		}
		b.WriteString(out[cursor:])
		out = b.String()
	}
	return maskFormPairs(maskFormPairs(out, formEncoded), formContext)
}

// redactFormBody is OpenClaw's redactFormBody.
func redactFormBody(text string) string {
	if !strings.Contains(text, "=") {
		return text
	}
	breaks := lineBreakRE.FindAllStringIndex(text, -1)
	if breaks == nil {
		return redactFormLine(text)
	}
	var b strings.Builder
	cursor := 0
	for _, br := range breaks {
		b.WriteString(redactFormLine(text[cursor:br[0]]))
		b.WriteString(text[br[0]:br[1]])
		cursor = br[1]
	}
	b.WriteString(redactFormLine(text[cursor:]))
	return b.String()
}

// AWS secret access keys standing alone (AWS_SECRET_ACCESS_KEY_MATCHER): a
// run of exactly 40 of [A-Za-z0-9/+=] with an upper and a lower case
// letter, a digit or one of /+=, and a letter past F (so not hex), not
// touching "_" or a longer run, not base64 data, not inside a URL. 9.6
// tells a URL's host and path (public) from its credentials by parsing its
// authority; here a run inside a URL is left alone unless an "@" follows it
// in the same URL.

func isAWSChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '+' || c == '='
}

// hasAWSRun: text holds 40 [A-Za-z0-9/+=] in a row (couldMatch).
func hasAWSRun(text string) bool {
	n := 0
	for i := 0; i < len(text); i++ {
		if isAWSChar(text[i]) {
			if n++; n >= 40 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

func awsLooksSecret(run string) bool {
	var upper, lower, digit, nonHex bool
	for i := 0; i < len(run); i++ {
		c := run[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		default:
			digit = true
		}
		if c >= 'G' && c <= 'Z' || c >= 'g' && c <= 'z' || c == '/' || c == '+' || c == '=' {
			nonHex = true
		}
	}
	return upper && lower && digit && nonHex
}

// redactAWSSecrets masks such runs with maskToken.
func redactAWSSecrets(text string) string {
	if !hasAWSRun(text) {
		return text
	}
	var b strings.Builder
	cursor := 0
	fields := jsSpaceRE.Split(text, -1)
	offset := 0
	seps := jsSpaceRE.FindAllStringIndex(text, -1)
	for fi, f := range fields {
		urlAt := strings.Index(f, "://")
		for i := 0; i < len(f); {
			if !isAWSChar(f[i]) {
				i++
				continue
			}
			j := i
			for j < len(f) && isAWSChar(f[j]) {
				j++
			}
			start, end := i, j
			slash := false
			if j-i > 40 && j < len(f) && f[j] == '@' && f[j-41] == '/' {
				start, slash = j-40, true
			}
			i = j
			if end-start != 40 {
				continue
			}
			if !slash && start > 0 && f[start-1] == '_' || end < len(f) && f[end] == '_' {
				continue
			}
			if start >= 8 && f[start-8:start] == ";base64," {
				continue
			}
			if urlAt >= 0 && start > urlAt && !strings.Contains(f[end:], "@") {
				continue
			}
			run := f[start:end]
			if !awsLooksSecret(run) {
				continue
			}
			b.WriteString(text[cursor : offset+start])
			b.WriteString(maskToken(run))
			cursor = offset + end
		}
		if fi < len(seps) {
			offset = seps[fi][1]
		}
	}
	if cursor == 0 {
		return text
	}
	b.WriteString(text[cursor:])
	return b.String()
}

var jsSpaceRE = regexp.MustCompile(`[` + jsSpaces + `]`)
