package sanitize

import (
	"strings"

	"github.com/openclaw/sessions/internal/lazyre"
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
	formBodyRE        = lazyre.NewFunc(`^`+formPair+`(?:&`+formPair+`)+$`, jsWhitespace)
	formSubstringRE   = lazyre.NewFunc(`(^|[\s:({\[,="'`+"`"+`])(`+formPair+`(?:&`+formPair+`)+)`, jsWhitespace)
	encodedPairRE     = lazyre.NewFunc(`(^|[\s:({\[,="'`+"`"+`&])(`+formKey+`)=(`+formValue+`)`, jsWhitespace)
	contextPairRE     = lazyre.NewFunc(`(?i)(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*(["'`+"`"+`]?))(`+formKey+`)=(`+formValue+`)(["'`+"`"+`]?)`, jsWhitespace)
	formObfuscationRE = lazyre.New(`[` + formInvisible + `+]`)
	formSeparatorRE   = lazyre.New(`[\p{C}\p{Z}\x{115F}\x{1160}\x{3164}\x{FFA0}+]`)
	percentEscapeRE   = lazyre.New(`%[0-9A-Fa-f]{2}`)
	lineBreakRE       = lazyre.New(`\r\n|\r|\n`)
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
