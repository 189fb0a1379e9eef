package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/tidwall/gjson"
)

// envelopeChannels are the channel labels an inbound envelope header may
// start with (each followed by a space). Format Appendix C. Built on first use.
var envelopeChannels = sync.OnceValue(func() [][]uint16 {
	labels := []string{
		"WebChat", "WhatsApp", "Telegram", "Signal", "Slack", "Discord",
		"Google Chat", "iMessage", "Teams", "Matrix", "Zalo", "Zalo Personal",
		"BlueBubbles",
	}
	out := make([][]uint16, len(labels))
	for i, l := range labels {
		out[i] = units(l + " ")
	}
	return out
})

var (
	messageIDMarker = units("[message_id:")
)

// StripEnvelope applies format Appendix C (the gateway's chat.history
// sanitising) to one raw message: when its role, lowercased, is "user", the
// inbound envelope prefix ("[Signal Alice … 2026-01-30 12:34] ") and
// "[message_id: …]" lines are removed from a string content, from every
// {"type":"text"} block of an array content, or — when content is neither —
// from a string "text" field. Other roles, non-objects and messages that
// need no change are returned unchanged (the same bytes). Key order is kept.
func StripEnvelope(msg json.RawMessage) json.RawMessage {
	if !isObject(msg) {
		return msg
	}
	// Fast path: most messages are not the user's. When "role" occurs once,
	// gjson's answer is JSON.parse's; otherwise decode (last key wins).
	if r := gjson.GetBytes(msg, "role"); r.Type == gjson.String && !strings.EqualFold(r.Str, "user") &&
		bytes.Count(msg, []byte(`"role"`)) == 1 {
		return msg
	}
	var o jsonx.Object
	if err := o.UnmarshalJSON(msg); err != nil {
		return msg
	}
	role, ok := o.String("role")
	if !ok || strings.ToLower(role) != "user" {
		return msg
	}
	changed := false
	content := o.Raw("content")
	switch {
	case isString(content):
		if s, ok := stripRawText(content); ok {
			o.SetRaw("content", s)
			changed = true
		}
	case isArray(content):
		if c, ok := stripContentBlocks(content); ok {
			o.SetRaw("content", c)
			changed = true
		}
	default:
		if t := o.Raw("text"); isString(t) {
			if s, ok := stripRawText(t); ok {
				o.SetRaw("text", s)
				changed = true
			}
		}
	}
	if !changed {
		return msg
	}
	out, err := o.MarshalJSON()
	if err != nil {
		return msg
	}
	return out
}

// stripContentBlocks strips the text of every {"type":"text","text":string}
// block; other elements are kept byte for byte.
func stripContentBlocks(raw json.RawMessage) (json.RawMessage, bool) {
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return raw, false
	}
	changed := false
	for i, b := range blocks {
		if !isObject(b) {
			continue
		}
		var o jsonx.Object
		if err := o.UnmarshalJSON(b); err != nil {
			continue
		}
		if t, ok := o.String("type"); !ok || t != "text" {
			continue
		}
		text := o.Raw("text")
		if !isString(text) {
			continue
		}
		s, ok := stripRawText(text)
		if !ok {
			continue
		}
		o.SetRaw("text", s)
		nb, err := o.MarshalJSON()
		if err != nil {
			continue
		}
		blocks[i] = nb
		changed = true
	}
	if !changed {
		return raw, false
	}
	return joinArray(blocks), true
}

// stripRawText applies stripMessageIdHints(stripEnvelope(text)) to a raw
// JSON string literal; ok is false when nothing changed.
func stripRawText(raw json.RawMessage) (json.RawMessage, bool) {
	u, ok := decodeString(raw)
	if !ok {
		return raw, false
	}
	s, c1 := stripEnvelopeText(u)
	s, c2 := stripMessageIDHints(s)
	if !c1 && !c2 {
		return raw, false
	}
	return encodeString(s), true
}

// StripEnvelopeText applies Appendix C to a single text (envelope prefix,
// then message_id lines). Exposed for callers that hold plain text.
func StripEnvelopeText(text string) string {
	u := units(text)
	s, c1 := stripEnvelopeText(u)
	s, c2 := stripMessageIDHints(s)
	if !c1 && !c2 {
		return text
	}
	return decodeUnits(s)
}

// stripEnvelopeText is /^\[([^\]]+)\]\s*/ followed by the header test.
func stripEnvelopeText(u []uint16) ([]uint16, bool) {
	if len(u) < 3 || u[0] != '[' {
		return u, false
	}
	j := indexUnit(u[1:], ']')
	if j < 1 { // no "]" at all, or "[]" (the header needs one character)
		return u, false
	}
	j++ // index of "]" in u
	if !looksLikeEnvelopeHeader(u[1:j]) {
		return u, false
	}
	k := j + 1
	for k < len(u) && isJSSpace(u[k]) {
		k++
	}
	return u[k:], true
}

// looksLikeEnvelopeHeader: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z\b/, or
// /\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/, or a channel label and a space at the
// start.
func looksLikeEnvelopeHeader(h []uint16) bool {
	for i := 0; i+16 <= len(h); i++ {
		if !isDate(h[i:]) {
			continue
		}
		t := h[i+10:]
		// "THH:MMZ" then \b: Z is a word character, so the next one must not be.
		if len(t) >= 7 && t[0] == 'T' && isClock(t[1:]) && t[6] == 'Z' && (len(t) == 7 || !isJSWordChar(t[7])) {
			return true
		}
		// " HH:MM" then \b after a digit.
		if t[0] == ' ' && isClock(t[1:]) && (len(t) == 6 || !isJSWordChar(t[6])) {
			return true
		}
	}
	for _, l := range envelopeChannels() {
		if hasPrefix(h, l) {
			return true
		}
	}
	return false
}

// isDate matches \d{4}-\d{2}-\d{2} at the start of u.
func isDate(u []uint16) bool {
	return len(u) >= 10 && isDigit(u[0]) && isDigit(u[1]) && isDigit(u[2]) && isDigit(u[3]) &&
		u[4] == '-' && isDigit(u[5]) && isDigit(u[6]) && u[7] == '-' && isDigit(u[8]) && isDigit(u[9])
}

// isClock matches \d{2}:\d{2} at the start of u.
func isClock(u []uint16) bool {
	return len(u) >= 5 && isDigit(u[0]) && isDigit(u[1]) && u[2] == ':' && isDigit(u[3]) && isDigit(u[4])
}

// stripMessageIDHints: only when the text contains "[message_id:" (case
// sensitive), split on /\r?\n/, drop every line matching
// /^\s*\[message_id:\s*[^\]]+\]\s*$/i and join with "\n".
func stripMessageIDHints(u []uint16) ([]uint16, bool) {
	if index(u, messageIDMarker) < 0 {
		return u, false
	}
	var lines [][]uint16
	start := 0
	for i, c := range u {
		if c == '\n' {
			end := i
			if end > start && u[end-1] == '\r' {
				end--
			}
			lines = append(lines, u[start:end])
			start = i + 1
		}
	}
	lines = append(lines, u[start:])
	kept := lines[:0:0]
	for _, l := range lines {
		if !isMessageIDLine(l) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(lines) {
		return u, false
	}
	out := make([]uint16, 0, len(u))
	for i, l := range kept {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, l...)
	}
	return out, true
}

func isMessageIDLine(l []uint16) bool {
	i := 0
	for i < len(l) && isJSSpace(l[i]) {
		i++
	}
	if !hasPrefixFoldASCII(l[i:], messageIDMarker) {
		return false
	}
	rest := l[i+len(messageIDMarker):]
	// \s*[^\]]+ : at least one character before the first "]".
	p := indexUnit(rest, ']')
	if p < 1 {
		return false
	}
	for _, c := range rest[p+1:] {
		if !isJSSpace(c) {
			return false
		}
	}
	return true
}

// decodeUnits turns UTF-16 units into a Go string (lone surrogates become
// U+FFFD, as Go strings cannot hold them).
func decodeUnits(u []uint16) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if isHighSurrogate(c) && i+1 < len(u) && isLowSurrogate(u[i+1]) {
			b.WriteRune(rune(0x10000 + (rune(c)-0xd800)<<10 + (rune(u[i+1]) - 0xdc00)))
			i++
			continue
		}
		b.WriteRune(rune(c)) // a lone surrogate is written as U+FFFD
	}
	return b.String()
}

func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

func isObject(raw []byte) bool { return firstByte(raw) == '{' }
func isArray(raw []byte) bool  { return firstByte(raw) == '[' }

// isString reports whether raw is a JSON string literal (no surrounding
// space: values taken from jsonx.Object never have any).
func isString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' }

func joinArray(elems []json.RawMessage) json.RawMessage {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	var b bytes.Buffer
	b.Grow(n)
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}
