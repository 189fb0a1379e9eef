package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Beyond 9.6: what an agent reads of a transcript is masked in every string,
// not only in the texts sessions_history masks. 9.6 leaves a tool call's
// arguments, a tool result's details and an assistant's errorMessage as
// stored, and an agent that may read another session's tool arguments
// would read its credentials. MaskMessage and MaskJSON mask every string
// value at any depth:
//   - the texts 9.6 masks ("text", "thinking", "partialJson", a string
//     "content") exactly as RedactMessage does (Redact once), so they stay
//     byte for byte what 9.6 hands out;
//   - any other string that holds JSON (string-encoded tool arguments) is
//     masked as JSON, value by value;
//   - a value under a key that names a secret (apiKey, OPENAI_API_KEY,
//     password, token, authorization, secret, …), and every string below
//     it, is masked whole (maskToken), since a bare value may match no
//     pattern;
//   - every other string, keys included, goes through Redact;
//   - then a secret split across two content blocks is masked in both
//     (maskBlockEdges, mask_blocks.go).
// Bytes outside the strings that change are kept as they are.

// MaskMessage masks one transcript message (or any JSON value) for an
// agent, as above; masked reports whether anything changed. Input that is
// not valid JSON comes back as one masked JSON string.
func (r *Redactor) MaskMessage(raw json.RawMessage) (out json.RawMessage, masked bool) {
	if r == nil {
		return raw, false
	}
	if !gjson.ValidBytes(raw) {
		// Not JSON (nothing a transcript reader hands out): its strings
		// masked all the same, the whole as one JSON string.
		b, _ := r.maskJSON(raw, false)
		s, _ := r.Redact(string(b))
		return encodeString(units(s)), true
	}
	b, changed := r.maskJSON(raw, false)
	// a secret split across two content blocks (mask_blocks.go)
	if nb, edged := r.maskBlockEdges(raw, b); edged {
		b, changed = nb, true
	}
	if !changed {
		return raw, false
	}
	return b, true
}

// MaskJSON masks a valid JSON text (a tool call's arguments) as
// MaskMessage does, returning it unchanged (and false) when nothing is
// masked. The caller has validated raw.
func (r *Redactor) MaskJSON(raw []byte) ([]byte, bool) {
	if r == nil {
		return raw, false
	}
	return r.maskJSON(raw, false)
}

// textKeys are the keys whose strings 9.6 masks as text (Redact only).
func textKey(k string) bool {
	switch k {
	case "text", "thinking", "partialJson", "content":
		return true
	}
	return false
}

// secretKeySuffixes name a secret when a key, lower-cased without '-', '_',
// '.' and spaces, ends with one of them.
var secretKeySuffixes = []string{
	"apikey", "token", "secret", "password", "passwd", "passphrase", "privatekey", "secretkey",
	"credential", "credentials", "authorization", "cookie", "accesskey", "bearer", "jwt", "pwd",
}

// IsSecretKey reports whether a JSON key names a secret (its value is
// masked whole).
func IsSecretKey(k string) bool {
	if len(k) > 128 {
		return false
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	n := b.String()
	switch n {
	case "pass", "auth", "pin", "otp":
		return true
	}
	for _, s := range secretKeySuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// maskFrame is one open object or array of the walk.
type maskFrame struct {
	obj     bool
	wantKey bool   // in an object: the next string is a key
	key     string // in an object: the key of the value being read
	secret  bool   // everything below is masked whole
}

// maskJSON walks valid JSON without recursion (a hostile depth cannot
// exhaust the stack) and masks its strings; secret masks every string
// whole.
func (r *Redactor) maskJSON(raw []byte, secret bool) ([]byte, bool) {
	var out []byte // nil until the first change
	copied := 0    // raw[:copied] is in out
	var stack []maskFrame
	var keys map[string]string // the keys met, masked (keys repeat)
	emit := func(start, end int, repl []byte) {
		if out == nil {
			out = make([]byte, 0, len(raw)+16)
		}
		out = append(out, raw[copied:start]...)
		out = append(out, repl...)
		copied = end
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch c {
		case '{', '[':
			inherit := secret
			if n := len(stack); n > 0 {
				f := &stack[n-1]
				inherit = f.secret || (f.obj && IsSecretKey(f.key))
			}
			stack = append(stack, maskFrame{obj: c == '{', wantKey: c == '{', secret: inherit})
			i++
		case '}', ']':
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].wantKey = true
			}
			i++
		case '"':
			end := stringEnd(raw, i)
			tok := raw[i:end]
			var f *maskFrame
			if n := len(stack); n > 0 {
				f = &stack[n-1]
			}
			if f != nil && f.obj && f.wantKey {
				var k string
				if json.Unmarshal(tok, &k) == nil {
					f.key = k
					m, seen := keys[k]
					if !seen {
						m, _ = r.MaskKey(k)
						if keys == nil {
							keys = map[string]string{}
						}
						keys[k] = m
					}
					if m != k {
						emit(i, end, encodeString(units(m)))
					}
				}
				f.wantKey = false
			} else if repl, ok := r.maskString(tok, f, secret); ok {
				emit(i, end, repl)
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return raw, false
	}
	out = append(out, raw[copied:]...)
	return out, true
}

// maskString masks one string value (its JSON literal tok) in frame f
// (nil at the top); it returns the new literal when it changes.
func (r *Redactor) maskString(tok []byte, f *maskFrame, secret bool) ([]byte, bool) {
	key := ""
	if f != nil {
		secret = f.secret || (f.obj && IsSecretKey(f.key))
		if f.obj {
			key = f.key
		}
	}
	var s string
	if json.Unmarshal(tok, &s) != nil || s == "" {
		return nil, false
	}
	m, changed := r.maskValue(key, secret, s)
	if !changed {
		return nil, false
	}
	return encodeString(units(m)), true
}

// maskValue masks one decoded string value found under key ("" in an
// array or at the top; secret: below a key that names a secret). A value
// the boundary keeps (r.keep: what this Redactor itself produced) is left
// as it is.
func (r *Redactor) maskValue(key string, secret bool, s string) (string, bool) {
	if s == "" {
		return s, false
	}
	if secret {
		m := maskToken(s)
		if m == s || (r.keep != nil && r.keep(s)) {
			return s, false
		}
		if r.rec != nil {
			r.rec(m)
		}
		return m, true
	}
	if !textKey(key) {
		if t := strings.TrimSpace(s); len(t) > 1 && (t[0] == '{' || t[0] == '[') && gjson.Valid(s) {
			if inner, changed := r.maskJSON([]byte(s), false); changed {
				return string(inner), true
			}
			return s, false
		}
	}
	m, changed := r.Redact(s)
	if !changed || (r.keep != nil && r.keep(s)) {
		return s, false
	}
	return m, true
}

// stringEnd is the index after the JSON string literal starting at i.
func stringEnd(raw []byte, i int) int {
	j := i + 1
	for j < len(raw) {
		k := bytes.IndexAny(raw[j:], "\"\\")
		if k < 0 {
			return len(raw)
		}
		j += k
		if raw[j] == '\\' {
			j += 2
			continue
		}
		return j + 1
	}
	return len(raw)
}
