package sanitize

import (
	"strings"
	"unicode/utf8"
)

// AWS secret access keys standing alone (9.6's AWS_SECRET_ACCESS_KEY_MATCHER,
// ported line by line): a run of exactly 40 of [A-Za-z0-9/+=] with an upper
// and a lower case letter, a digit or one of /+=, and a letter past F (so
// not hex), not touching "_" or a longer run (but the last 40 of a longer
// run between "/" and "@" are: a credential in a URL), not base64 data
// (";base64," before it), and not inside the host or path of a URL without
// credentials. Each is masked with maskToken. The characters it tests are
// ASCII, so byte offsets serve for its UTF-16 ones.

func isAWSChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '+' || c == '='
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

// awsURL is the URL the scan is in (from after its "://").
type awsURL struct {
	start, end, authorityEnd, portStart int
	portValid, hasAt, queryOrFragment   bool
	closing                             byte // 0: none
	closingEscapeDepth                  int
}

type awsRun struct {
	start, end, origin int
	url                *awsURL
}

func isSchemeChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isJSSpaceRune(r rune) bool {
	return r <= 0xffff && isJSSpace(uint16(r))
}

// awsSecretSpans are the [start,end) of the keys matchAwsSecretAccessKeys
// finds.
func awsSecretSpans(text string) [][2]int {
	closingOf := map[byte]byte{'"': '"', '\'': '\'', '`': '`', '<': '>', '(': ')', '[': ']', '{': '}'}
	runStart, schemeStart, backslashes := -1, -1, 0
	var url *awsURL
	var runs []awsRun
	var out [][2]int
	at := func(i int) byte {
		if i < 0 || i >= len(text) {
			return 0
		}
		return text[i]
	}
	for index := 0; index <= len(text); {
		var char rune
		var c byte // the character when ASCII, else 0 (no ASCII test matches it)
		width := 1
		if index < len(text) {
			char, width = utf8.DecodeRuneInString(text[index:])
			if char < utf8.RuneSelf {
				c = byte(char)
			}
		}
		whitespace := index == len(text) || isJSSpaceRune(char)
		escapeDepth := backslashes
		if c == '\\' {
			backslashes++
		} else {
			backslashes = 0
		}
		if index < len(text) && c != 0 && isAWSChar(c) {
			if runStart == -1 {
				runStart = index
			}
		} else if runStart != -1 {
			if index-runStart == 40 {
				runs = append(runs, awsRun{runStart, index, runStart, url})
			} else if index-runStart > 40 && c == '@' && at(index-41) == '/' {
				runs = append(runs, awsRun{index - 40, index, runStart, url})
			}
			runStart = -1
		}
		if whitespace {
			if url != nil {
				url.end = min(url.end, index)
			}
			for _, run := range runs {
				ctx := run.url
				publicURL := false
				if ctx != nil && !ctx.hasAt && ctx.portValid {
					end := ctx.authorityEnd
					if end == -1 {
						end = ctx.end
					}
					publicURL = ctx.portStart == -1 || end > ctx.portStart+1
				}
				before, after := at(run.start-1), at(run.end)
				slashCredential := run.start != run.origin
				portCredential := ctx != nil && ctx.portStart != -1 && run.origin == ctx.portStart+1 &&
					ctx.authorityEnd > run.origin && run.end > ctx.authorityEnd && after == '@'
				if !slashCredential && run.start > 0 && (before == '_' || isAWSChar(before)) || after == '_' ||
					run.origin >= 8 && text[run.origin-8:run.origin] == ";base64," ||
					publicURL && !portCredential && run.start >= ctx.start && run.end <= ctx.end {
					continue
				}
				if awsLooksSecret(text[run.start:run.end]) {
					out = append(out, [2]int{run.start, run.end})
				}
			}
			runs = runs[:0]
			schemeStart, url = -1, nil
			index += width
			continue
		}
		if url != nil && index >= url.start {
			if url.closing != 0 && c == url.closing && escapeDepth == url.closingEscapeDepth {
				url.end = min(url.end, index)
				url = nil
			} else {
				if c != 0 && strings.IndexByte("?#\"'<>`|()[]{}", c) >= 0 {
					url.end = min(url.end, index)
				}
				url.queryOrFragment = url.queryOrFragment || c == '?' || c == '#'
				if url.authorityEnd == -1 {
					url.hasAt = url.hasAt || c == '@'
					if c == '/' || c == '?' || c == '#' {
						url.authorityEnd = index
					} else if index < url.end {
						if c == ':' {
							url.portValid = url.portValid && url.portStart == -1
							url.portStart = index
						} else if url.portStart != -1 && (c < '0' || c > '9') {
							url.portValid = false
						}
					}
				}
			}
		}
		if c != 0 && isSchemeChar(c) {
			if schemeStart == -1 {
				schemeStart = index
			}
		} else {
			if (url == nil || index >= url.end && !url.queryOrFragment) && c == ':' && strings.HasPrefix(text[index+1:], "//") &&
				schemeStart != -1 && (at(schemeStart) >= 'A' && at(schemeStart) <= 'Z' || at(schemeStart) >= 'a' && at(schemeStart) <= 'z') {
				u := &awsURL{start: index + 3, end: len(text), authorityEnd: -1, portStart: -1, portValid: true}
				if schemeStart > 0 {
					u.closing = closingOf[text[schemeStart-1]]
					for o := schemeStart - 2; o >= 0 && text[o] == '\\'; o-- {
						u.closingEscapeDepth++
					}
				}
				url = u
			}
			schemeStart = -1
		}
		index += width
	}
	return out
}

// redactAWSSecrets masks the keys awsSecretSpans finds.
func redactAWSSecrets(text string) string {
	if !hasAWSRun(text) {
		return text
	}
	spans := awsSecretSpans(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	cursor := 0
	for _, s := range spans {
		b.WriteString(text[cursor:s[0]])
		b.WriteString(maskToken(text[s[0]:s[1]]))
		cursor = s[1]
	}
	b.WriteString(text[cursor:])
	return b.String()
}
