// Package sanitize prepares transcript messages for display the way OpenClaw
// does: inbound-envelope stripping of chat.history (format Appendix C) and
// the sessions_history sanitising of CONTRACT §4 (format Appendix B). Pure
// functions on raw JSON; no I/O. Object key order is always kept.
package sanitize

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/openclaw/sessions/internal/jsonx"
)

const (
	// DefaultCapBytes is the sessions_history cap on the JSON of the
	// returned messages (SESSIONS_HISTORY_MAX_BYTES).
	DefaultCapBytes = 80 * 1024
	// TextMaxChars is the longest text, in UTF-16 code units, kept whole
	// (SESSIONS_HISTORY_TEXT_MAX_CHARS).
	TextMaxChars = 4000
)

// truncationSuffix is appended to a text cut at TextMaxChars.
var truncationSuffix = units("\n…(truncated)…")

// History prepares messages as CONTRACT §4 `sessions history` (default
// output) says, following OpenClaw's sessions_history:
//
//   - each message object is shallow-copied without its top-level
//     "details", "usage" and "cost";
//   - a string "content", a string top-level "text", and in an array
//     "content" every block's string "text", a "thinking" block's
//     "thinking" and any block's string "partialJson", when longer than
//     TextMaxChars UTF-16 code units, are cut to TextMaxChars (one unit
//     fewer when the cut would split a surrogate pair) plus
//     "\n…(truncated)…";
//   - "thinking" blocks lose "thinkingSignature";
//   - "image" blocks lose "data" and get "omitted":true and "bytes" (the
//     decoded size of the base64 data, or an estimate from its length when
//     it is not base64; an existing numeric "bytes" is kept when there is no
//     string data). Other keys keep their order; new keys are appended.
//   - then the oldest messages are dropped while the compact JSON array of
//     the messages is longer than capBytes; at least one is always kept.
//
// Messages that are not JSON objects are passed through; messages that are
// not valid JSON at all are left out (they cannot be part of a JSON array).
// capBytes 0 means DefaultCapBytes; a negative capBytes means no cap.
//
// out holds compact JSON; truncated reports whether the cap dropped any
// message; bytes is the byte length of the JSON array of out.
func History(msgs []json.RawMessage, capBytes int) (out []json.RawMessage, truncated bool, bytes int) {
	out, _, dropped, bytes := HistoryPage(msgs, capBytes)
	return out, dropped > 0, bytes
}

// HistoryPage is History that also says which messages were kept: out[0]
// is msgs[first] (first is len(msgs) when out is empty), and dropped is how
// many valid messages the cap dropped (0 when it dropped none, so
// truncated = dropped > 0). A history page's cursor names msgs[first].
func HistoryPage(msgs []json.RawMessage, capBytes int) (out []json.RawMessage, first, dropped, bytes int) {
	p := historyPage(msgs, capBytes)
	return p.Messages, p.First, p.Dropped, p.Bytes
}

// Page is a prepared history page with sessions_history's marks.
type Page struct {
	Messages []json.RawMessage
	First    int // Messages[0] is msgs[First]
	Dropped  int // valid messages the byte cap dropped
	Bytes    int // the byte length of the JSON array of Messages
	// ContentTruncated: a message lost its details, usage or cost, or a
	// text of it was cut (sessions_history's contentTruncated).
	ContentTruncated bool
	// HardCapped: the one message left was still over the cap and stands
	// as a placeholder (enforceSessionsHistoryHardCap).
	HardCapped bool
}

// HistoryPageCapped is HistoryPage as 9.6's sessions_history answers an
// agent: with its marks, and a message that alone is over capBytes
// replaced by {"role":"assistant","content":"[sessions_history omitted:
// message too large]"} (with its __openclaw seq and id, when it has them).
func HistoryPageCapped(msgs []json.RawMessage, capBytes int) Page {
	if capBytes == 0 {
		capBytes = DefaultCapBytes
	}
	p := historyPage(msgs, capBytes)
	if capBytes > 0 && len(p.Messages) == 1 && p.Bytes > capBytes {
		ph := omittedPlaceholder(p.Messages[0])
		p.Messages = []json.RawMessage{ph}
		p.Bytes = len(ph) + 2
		p.HardCapped = true
	}
	return p
}

func historyPage(msgs []json.RawMessage, capBytes int) Page {
	if capBytes == 0 {
		capBytes = DefaultCapBytes
	}
	prepared := make([]json.RawMessage, 0, len(msgs))
	index := make([]int, 0, len(msgs))
	contentTruncated := false
	for i, m := range msgs {
		s, cut := sanitizeMessage(m)
		p := compact(s)
		if p == nil {
			continue
		}
		contentTruncated = contentTruncated || cut
		prepared = append(prepared, p)
		index = append(index, i)
	}
	if len(prepared) == 0 {
		return Page{Messages: prepared, First: len(msgs), Bytes: 2, ContentTruncated: contentTruncated}
	}
	total := 2 + len(prepared) - 1
	for _, p := range prepared {
		total += len(p)
	}
	start := 0
	if capBytes > 0 {
		for total > capBytes && start < len(prepared)-1 {
			total -= len(prepared[start]) + 1
			start++
		}
	}
	return Page{Messages: prepared[start:], First: index[start], Dropped: start, Bytes: total, ContentTruncated: contentTruncated}
}

// Omitted is the placeholder 9.6's sessions_history hands out for a
// message too large to show ("[sessions_history omitted: message too
// large]", with the message's seq and id).
func Omitted(src json.RawMessage) json.RawMessage { return omittedPlaceholder(src) }

// omittedPlaceholder is buildSessionsHistoryOmittedPlaceholder.
func omittedPlaceholder(src json.RawMessage) json.RawMessage {
	var meta struct {
		OpenClaw struct {
			Seq json.RawMessage `json:"seq"`
			ID  json.RawMessage `json:"id"`
		} `json:"__openclaw"`
	}
	_ = json.Unmarshal(src, &meta)
	var o jsonx.Object
	o.SetRaw("role", json.RawMessage(`"assistant"`))
	o.SetRaw("content", json.RawMessage(`"[sessions_history omitted: message too large]"`))
	var m jsonx.Object
	if n, err := strconv.ParseInt(string(meta.OpenClaw.Seq), 10, 64); err == nil && n > 0 && n <= 1<<53-1 {
		m.SetRaw("seq", json.RawMessage(strconv.FormatInt(n, 10)))
	}
	var id string
	if json.Unmarshal(meta.OpenClaw.ID, &id) == nil && id != "" {
		m.SetRaw("id", meta.OpenClaw.ID)
	}
	if m.Has("seq") || m.Has("id") {
		b, _ := m.MarshalJSON()
		o.SetRaw("__openclaw", b)
	}
	b, _ := o.MarshalJSON()
	return compact(b)
}

// compact returns raw without insignificant whitespace (string contents are
// untouched), or nil when raw is not valid JSON.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil
	}
	return b.Bytes()
}

// sanitizeMessage prepares one message; cut says it lost details, usage or
// cost or had a text cut (what sessions_history calls truncated).
func sanitizeMessage(raw json.RawMessage) (json.RawMessage, bool) {
	if !isObject(raw) {
		return raw, false
	}
	var o jsonx.Object
	if err := o.UnmarshalJSON(raw); err != nil {
		return raw, false
	}
	changed, cut := false, false
	for _, k := range []string{"details", "usage", "cost"} {
		if o.Has(k) {
			o.Delete(k)
			changed, cut = true, true
		}
	}
	content := o.Raw("content")
	switch {
	case isString(content):
		if s, ok := truncateRaw(content); ok {
			o.SetRaw("content", s)
			changed, cut = true, true
		}
	case isArray(content):
		if c, ok, c2 := sanitizeBlocks(content); ok {
			o.SetRaw("content", c)
			changed, cut = true, cut || c2
		}
	}
	if t := o.Raw("text"); isString(t) {
		if s, ok := truncateRaw(t); ok {
			o.SetRaw("text", s)
			changed, cut = true, true
		}
	}
	if !changed {
		return raw, false
	}
	out, err := o.MarshalJSON()
	if err != nil {
		return raw, false
	}
	return out, cut
}

// sanitizeBlocks prepares an array content; cut says a text was cut.
func sanitizeBlocks(raw json.RawMessage) (json.RawMessage, bool, bool) {
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return raw, false, false
	}
	changed, cut := false, false
	for i, b := range blocks {
		if nb, ok, c := sanitizeBlock(b); ok {
			blocks[i] = nb
			changed, cut = true, cut || c
		}
	}
	if !changed {
		return raw, false, false
	}
	return joinArray(blocks), true, cut
}

func sanitizeBlock(raw json.RawMessage) (json.RawMessage, bool, bool) {
	if !isObject(raw) {
		return raw, false, false
	}
	var o jsonx.Object
	if err := o.UnmarshalJSON(raw); err != nil {
		return raw, false, false
	}
	typ, _ := o.String("type")
	changed, cut := false, false
	truncateKey := func(k string) {
		if v := o.Raw(k); isString(v) {
			if s, ok := truncateRaw(v); ok {
				o.SetRaw(k, s)
				changed, cut = true, true
			}
		}
	}
	truncateKey("text")
	if typ == "thinking" {
		truncateKey("thinking")
		if o.Has("thinkingSignature") {
			o.Delete("thinkingSignature")
			changed = true
		}
	}
	truncateKey("partialJson")
	if typ == "image" {
		var size json.RawMessage
		if d := o.Raw("data"); isString(d) {
			size = json.RawMessage(strconv.Itoa(base64Size(d)))
		} else if b := o.Raw("bytes"); isNumber(b) {
			size = b
		}
		o.Delete("data")
		o.SetRaw("omitted", json.RawMessage("true"))
		if size != nil {
			o.SetRaw("bytes", size)
		}
		changed = true
	}
	if !changed {
		return raw, false, false
	}
	out, err := o.MarshalJSON()
	if err != nil {
		return raw, false, false
	}
	return out, true, cut
}

// truncateRaw cuts a raw JSON string literal longer than TextMaxChars UTF-16
// code units (JS String.slice, never splitting a surrogate pair) and appends
// the truncation marker. ok is false when the text is short enough.
func truncateRaw(raw json.RawMessage) (json.RawMessage, bool) {
	if maxUnits(raw) <= TextMaxChars {
		return raw, false
	}
	// the units up to the cut and one beyond (a pair split there), not the
	// whole text: raw is a string of a validated line
	u, ok := decodePrefix(raw, TextMaxChars+1)
	if !ok || len(u) <= TextMaxChars {
		return raw, false
	}
	cut := TextMaxChars
	if isHighSurrogate(u[cut-1]) && isLowSurrogate(u[cut]) {
		cut--
	}
	out := make([]uint16, 0, cut+len(truncationSuffix))
	out = append(out, u[:cut]...)
	out = append(out, truncationSuffix...)
	return encodeString(out), true
}

func isNumber(raw []byte) bool {
	c := firstByte(raw)
	return c == '-' || (c >= '0' && c <= '9')
}

// base64Size returns the decoded size of base64 text (standard or URL
// alphabet, padded or not, ASCII whitespace ignored as Node's Buffer does).
// When the text is not base64 it falls back to OpenClaw's estimate:
// floor(length*3/4) minus the "=" padding, at least 0, with the length in
// UTF-16 code units.
func base64Size(raw json.RawMessage) int {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0
	}
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			clean = append(clean, c)
		}
	}
	pad := 0
	for pad < len(clean) && pad < 3 && clean[len(clean)-1-pad] == '=' {
		pad++
	}
	body := clean[:len(clean)-pad]
	valid := pad <= 2 && len(body)%4 != 1 && (pad == 0 || len(clean)%4 == 0)
	for _, c := range body {
		if !isBase64Char(c) {
			valid = false
			break
		}
	}
	if valid {
		return len(body) * 3 / 4
	}
	// Estimate, as estimateBase64DecodedBytes does on the raw string.
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	p := 0
	if len(s) >= 2 && s[len(s)-2:] == "==" {
		p = 2
	} else if len(s) >= 1 && s[len(s)-1] == '=' {
		p = 1
	}
	return max(0, n*3/4-p)
}

func isBase64Char(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == '+' || c == '/' || c == '-' || c == '_'
}

// Shaped is a page of messages as a history page gives them (Shape).
type Shaped struct {
	Messages []json.RawMessage // never nil unless raw (stored as given)
	// First is the index of the oldest message returned; Dropped how
	// many older ones the cap left out; Bytes the page's size.
	First, Dropped, Bytes int
	// Truncated: the cap dropped messages or (capped) cut a text.
	Truncated bool
	// With capped: sessions_history's own marks.
	DroppedMessages, ContentTruncated bool
}

// Shape makes a history page of stored (oldest first): raw keeps them as
// stored (only measured); else each is stripped of its envelope and the
// page is cut to DefaultCapBytes — with capped, as sessions_history cuts an
// agent's page (its hard cap and marks).
func Shape(stored []json.RawMessage, raw, capped bool) Shaped {
	var p Shaped
	if raw {
		p.Messages = stored
		b, _ := jsonx.Marshal(stored)
		p.Bytes = len(b)
	} else {
		msgs := make([]json.RawMessage, len(stored))
		for i, m := range stored {
			msgs[i] = StripEnvelope(m)
		}
		if capped {
			c := HistoryPageCapped(msgs, DefaultCapBytes)
			p.Messages, p.First, p.Dropped, p.Bytes = c.Messages, c.First, c.Dropped, c.Bytes
			p.DroppedMessages, p.ContentTruncated = c.Dropped > 0 || c.HardCapped, c.ContentTruncated
			p.Truncated = p.DroppedMessages || p.ContentTruncated
		} else {
			p.Messages, p.First, p.Dropped, p.Bytes = HistoryPage(msgs, DefaultCapBytes)
			p.Truncated = p.Dropped > 0
		}
		if p.Messages == nil {
			p.Messages = []json.RawMessage{}
		}
	}
	return p
}

// Appended prepares messages appended to a followed transcript one by one
// (each on its own: they were not part of a page's cap), unless raw.
func Appended(msgs []json.RawMessage, raw bool) []json.RawMessage {
	if raw {
		return msgs
	}
	out := make([]json.RawMessage, 0, len(msgs))
	for _, m := range msgs {
		s, _, _ := History([]json.RawMessage{StripEnvelope(m)}, DefaultCapBytes)
		out = append(out, s...)
	}
	return out
}

// ShapeAround is the page around stored[t] shaped (p: all of stored
// shaped) so that the message asked for stays on it: when the 80 KiB cap
// would drop it with the oldest, the newest are left out instead, as few
// as keep it (end: the messages kept end before stored[end]).
func ShapeAround(stored []json.RawMessage, t int, raw, capped bool, p Shaped) (Shaped, int) {
	if p.First <= t {
		return p, len(stored)
	}
	// Shape(stored[:e]).First only grows with e: the largest e that keeps
	// t, by bisection over (t, len(stored)).
	lo, hi := t+1, len(stored)-1 // stored[:lo] keeps t (or nothing does); stored[:hi+1] does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if Shape(stored[:mid], raw, capped).First <= t {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return Shape(stored[:lo], raw, capped), lo
}
