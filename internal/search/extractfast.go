package search

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/jsonscan"
	"github.com/openclaw/sessions/internal/transcript"
)

// extractFast is extractReference in one pass over the line. The reference
// walks a line three times and more (utf8.Valid, gjson.ValidBytes, a
// ForEach over the top-level keys, then a Get per wanted value, each
// skipping the nested values before it again) and copies the whole line to
// a string; an index build spent almost half its time there. Here one
// validating walk (jsonscan, gjson's grammar) keeps only the spans of the
// few values a Message is made of, and only those are decoded: a string
// without escapes is one copy of its bytes.
//
// It answers only when it reads the line without doubt: a valid JSON
// object, nested no deeper than jsonscan's default limit (gjson has none).
// Anything else — invalid UTF-8 or JSON, an empty or non-object line —
// is handed to extractReference (ok false), which decides as it always
// did: those lines are rare, and the reference stays the one definition.
// FuzzExtractIsItsReference holds the two equal.
func extractFast(line []byte, includeTools bool, mask Masker) (m Message, st transcript.Status, ok bool) {
	if !includeTools && gjson.GetBytes(line, "message.role").Str == "toolResult" {
		// As the reference: passed over unvalidated. (gjson's Get reads
		// only up to the role, and tolerates what the walk below would
		// reject, so it stays the judge of this.)
		return Message{}, transcript.StatusSilent, true
	}
	m, _, st, ok = readFast(line, includeTools, false, mask)
	return m, st, ok
}

// readFast is extractFast past its first check; with both (and
// includeTools), noTools is the text extractFast gives the line without
// tool calls too: the same string when it is the same text, "" when that
// passes the line over (a tool result; a line whose first message is one).
func readFast(line []byte, includeTools, both bool, mask Masker) (m Message, noTools string, st transcript.Status, ok bool) {
	if !utf8.Valid(line) {
		return Message{}, "", 0, false
	}
	r := newLineReader(line)
	defer r.free()
	if !r.document() {
		return Message{}, "", 0, false
	}
	if r.msg.kind != '{' {
		return Message{}, "", transcript.StatusSilent, true
	}
	role := "tool"
	switch r.str(r.msg.role) {
	case "user":
		role = "user"
	case "assistant":
		role = "assistant"
	case "toolResult":
		if !includeTools {
			return Message{}, "", transcript.StatusSilent, true
		}
	default:
		return Message{}, "", transcript.StatusSilent, true
	}
	toolCalls := includeTools && role == "assistant"
	m = Message{Role: role}
	if mask != nil {
		m.Text, noTools = r.maskedText(toolCalls, both, mask)
	} else {
		m.Text, noTools = r.msg.searchTexts(&r.Scanner, toolCalls, both)
	}
	if role == "tool" || both && r.msgs > 1 && gjson.GetBytes(line, "message.role").Str == "toolResult" {
		// (with one message, its role is the one extractFast reads first)
		noTools = ""
	}
	if r.id.kind == '"' {
		if m.ID = r.str(r.id); !both {
			m.ID = strings.Clone(m.ID)
		}
	}
	m.Timestamp = r.timestamp(r.ts)
	if m.Timestamp == 0 {
		m.Timestamp = r.timestamp(r.msg.ts)
	}
	return m, noTools, transcript.StatusMessage, true
}

// jspan is one JSON value of the line: its kind ('"' string, 'n' number,
// '{' object, '[' array, 'l' literal; 0 when absent) and its bytes, a
// string's without the quotes.
type jspan struct {
	start, end int
	kind       byte
	esc        bool // a string holding escapes
}

// raw is the value as written (a string with its quotes): gjson's Raw.
func (v jspan) raw(d []byte) []byte {
	if v.kind == '"' {
		return d[v.start-1 : v.end+1]
	}
	return d[v.start:v.end]
}

// block is what a content block holds of interest (the first of each key,
// as gjson's Get finds it).
type block struct{ typ, text, name, args jspan }

// msgFields are the message's values of interest: the first of each key,
// as gjson's Get finds it (the reference reads them with msg.Get).
type msgFields struct {
	kind                    byte // the message value's kind
	start, end              int  // the message value's bytes
	role, content, text, ts jspan
	blocks                  []block // content's, when it is an array
}

// lineReader walks one line, keeping the top-level values of interest:
// the last of each key, as the reference's ForEach (and JSON.parse) keeps.
type lineReader struct {
	jsonscan.Scanner
	id, ts jspan
	msg    msgFields
	msgs   int // the line's message keys
}

// readers keeps lineReaders, and the room for their blocks, between lines.
var readers = sync.Pool{New: func() any { return new(lineReader) }}

func newLineReader(d []byte) *lineReader {
	r := readers.Get().(*lineReader)
	blocks := r.msg.blocks[:0]
	*r = lineReader{Scanner: jsonscan.Scanner{D: d}}
	r.msg.blocks = blocks
	return r
}

// free returns r to the pool, keeping none of the line (nor the room of a
// message with unusually many blocks).
func (r *lineReader) free() {
	r.D = nil
	if cap(r.msg.blocks) > 256 {
		r.msg.blocks = nil
	}
	readers.Put(r)
}

// document reads the whole line as one JSON object.
func (r *lineReader) document() bool {
	r.SkipWS()
	if r.I >= len(r.D) || r.D[r.I] != '{' {
		return false
	}
	ok := r.Object(func(key string, _ bool) bool {
		switch key {
		case "message":
			r.msgs++
			r.msg.reset()
			return r.msg.read(&r.Scanner)
		case "id":
			var ok bool
			r.id, ok = value(&r.Scanner)
			return ok
		case "timestamp":
			var ok bool
			r.ts, ok = value(&r.Scanner)
			return ok
		}
		return r.Value()
	})
	if !ok {
		return false
	}
	r.SkipWS()
	return r.I == len(r.D)
}

func (f *msgFields) reset() {
	blocks := f.blocks[:0]
	*f = msgFields{}
	f.blocks = blocks
}

// read reads the message value at s.I; when it is an object, its values of
// interest.
func (f *msgFields) read(s *jsonscan.Scanner) bool {
	f.start = s.I
	if s.D[s.I] != '{' {
		v, ok := value(s)
		f.kind, f.end = v.kind, s.I
		return ok
	}
	f.kind = '{'
	ok := s.Object(func(key string, _ bool) bool {
		var dst *jspan
		switch key {
		case "role":
			dst = &f.role
		case "text":
			dst = &f.text
		case "timestamp":
			dst = &f.ts
		case "content":
			if f.content.kind == 0 && s.D[s.I] == '[' {
				f.content = jspan{start: s.I, kind: '['}
				ok := s.Array(func() bool { return f.readBlock(s) })
				f.content.end = s.I
				return ok
			}
			dst = &f.content
		}
		if dst == nil || dst.kind != 0 {
			return s.Value()
		}
		var ok bool
		*dst, ok = value(s)
		return ok
	})
	f.end = s.I
	return ok
}

// readBlock reads one element of content; only objects are blocks (gjson's
// Get finds no key in anything else).
func (f *msgFields) readBlock(s *jsonscan.Scanner) bool {
	if s.D[s.I] != '{' {
		return s.Value()
	}
	var b block
	ok := s.Object(func(key string, _ bool) bool {
		var dst *jspan
		switch key {
		case "type":
			dst = &b.typ
		case "text":
			dst = &b.text
		case "name":
			dst = &b.name
		case "arguments":
			dst = &b.args
		}
		if dst == nil || dst.kind != 0 {
			return s.Value()
		}
		var ok bool
		*dst, ok = value(s)
		return ok
	})
	f.blocks = append(f.blocks, b)
	return ok
}

// value reads any value at s.I and spans it.
func value(s *jsonscan.Scanner) (jspan, bool) {
	start := s.I
	switch c := s.D[s.I]; {
	case c == '"':
		a, e, esc, ok := s.Str()
		return jspan{start: a, end: e, kind: '"', esc: esc}, ok
	case c == '{':
		ok := s.Object(nil)
		return jspan{start: start, end: s.I, kind: '{'}, ok
	case c == '[':
		ok := s.Array(nil)
		return jspan{start: start, end: s.I, kind: '['}, ok
	case c == '-' || c >= '0' && c <= '9':
		_, ok := s.Number()
		return jspan{start: start, end: s.I, kind: 'n'}, ok
	}
	ok := s.Value()
	return jspan{start: start, end: s.I, kind: 'l'}, ok
}

// str is a string value as gjson's Str (empty for any other kind): a view
// of the line when it holds no escapes, valid only while the line is.
func (r *lineReader) str(v jspan) string {
	return strOf(r.D, v)
}

func strOf(d []byte, v jspan) string {
	if v.kind != '"' {
		return ""
	}
	if v.esc {
		return unescaped(d[v.start:v.end])
	}
	return view(d[v.start:v.end])
}

// unescaped is the value of a string's contents that hold escapes (a new
// string: no longer than the escaped text).
func unescaped(s []byte) string {
	b := appendUnescaped(make([]byte, 0, len(s)), s)
	return view(b) // b is never written again
}

// view is b as a string without a copy.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// timestamp is the reference's timestamp of a value.
func (r *lineReader) timestamp(v jspan) int64 {
	switch v.kind {
	case 'n':
		f, _ := strconv.ParseFloat(view(r.D[v.start:v.end]), 64)
		return int64(f)
	case '"':
		str := r.str(v)
		if ms, ok := utcMillis(str); ok {
			return ms
		}
		if t, err := time.Parse(time.RFC3339Nano, str); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

// utcMillis reads the one shape OpenClaw writes every timestamp in,
// "2006-01-02T15:04:05.000Z", as time.Parse(time.RFC3339Nano, s) then
// UnixMilli would (FuzzUTCMillis): ok false for any other string, which
// time.Parse then decides. (time.Parse was 1% of a first index build.)
func utcMillis(s string) (int64, bool) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	ms, ok7 := num(20, 3)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	leap := y%4 == 0 && (y%100 != 0 || y%400 == 0)
	if dim := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mo-1]; d > dim && !(mo == 2 && leap && d == 29) {
		return 0, false
	}
	// days from 1970-01-01 to y-mo-d (the proleptic Gregorian calendar's
	// days-from-civil)
	yy := y
	if mo <= 2 {
		yy--
	}
	era := yy / 400
	yoe := yy - era*400
	doy := (153*((mo+9)%12)+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era)*146097 + int64(doe) - 719468
	return ((days*24+int64(h))*60+int64(mi))*60000 + int64(sec)*1000 + int64(ms), true
}

// searchTexts is searchText with toolCalls and, with both, without them:
// noTools is text itself unless a block is a tool call.
func (f *msgFields) searchTexts(s *jsonscan.Scanner, toolCalls, both bool) (text, noTools string) {
	text = f.searchText(s, toolCalls, both)
	if both && toolCalls && f.hasCall(s.D) {
		return text, f.searchText(s, false, both)
	}
	return text, text
}

// hasCall reports whether a content block is a tool call.
func (f *msgFields) hasCall(d []byte) bool {
	if f.content.kind != '[' {
		return false
	}
	for i := range f.blocks {
		if strOf(d, f.blocks[i].typ) == "toolCall" {
			return true
		}
	}
	return false
}

// searchText is the reference's messageText (without a mask) of the message
// whose fields f holds, read from d; with alias, a text of one part
// without escapes is a view of d, not a copy.
func (f *msgFields) searchText(s *jsonscan.Scanner, toolCalls, alias bool) string {
	d := s.D
	textStr := f.text.kind == '"'
	var one *jspan // the only part, when there is one string
	n, size := 0, 0
	switch {
	case f.content.kind == '"':
		one, n, size = &f.content, 1, f.content.end-f.content.start
	case textStr:
		one, n, size = &f.text, 1, f.text.end-f.text.start
	}
	if f.content.kind == '[' {
		for i := range f.blocks {
			b := &f.blocks[i]
			switch strOf(d, b.typ) {
			case "text", "input_text", "output_text":
				if b.text.kind == '"' && !textStr {
					one, n, size = &b.text, n+1, size+1+b.text.end-b.text.start
				}
			case "toolCall":
				if toolCalls {
					one, n, size = nil, n+1, size+2+b.name.end-b.name.start+len(b.args.raw(d))
				}
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1 && one != nil:
		if one.esc {
			return jsTrim(strOf(d, *one))
		}
		if alias {
			return jsTrim(view(d[one.start:one.end]))
		}
		return strings.Clone(jsTrim(view(d[one.start:one.end])))
	}
	buf := make([]byte, 0, size)
	parts := 0
	sep := func() {
		if parts > 0 {
			buf = append(buf, '\n')
		}
		parts++
	}
	switch {
	case f.content.kind == '"':
		sep()
		buf = appendStr(buf, d, f.content)
	case textStr:
		sep()
		buf = appendStr(buf, d, f.text)
	}
	if f.content.kind == '[' {
		for i := range f.blocks {
			b := &f.blocks[i]
			switch strOf(d, b.typ) {
			case "text", "input_text", "output_text":
				if b.text.kind == '"' && !textStr {
					sep()
					buf = appendStr(buf, d, b.text)
				}
			case "toolCall":
				if toolCalls {
					sep()
					// strings.TrimSpace(name+"\n"+args), as the reference
					mark := len(buf)
					buf = appendName(buf, d, b.name)
					buf = append(buf, '\n')
					buf = append(buf, b.args.raw(d)...)
					t := bytes.TrimSpace(buf[mark:])
					buf = buf[:mark+copy(buf[mark:], t)]
				}
			}
		}
	}
	// buf is never written again: the string may share it.
	return jsTrim(view(buf))
}

// appendStr appends a string value, unescaped.
func appendStr(dst, d []byte, v jspan) []byte {
	if v.esc {
		return appendUnescaped(dst, d[v.start:v.end])
	}
	return append(dst, d[v.start:v.end]...)
}

// appendName appends a tool call's name as gjson's String gives it: a
// string's value, any other value as gjson prints it ("" when absent).
func appendName(dst, d []byte, v jspan) []byte {
	switch v.kind {
	case 0:
		return dst
	case '"':
		return appendStr(dst, d, v)
	}
	return append(dst, gjson.Parse(string(d[v.start:v.end])).String()...)
}

// maskedText is the reference's messageText under a mask: the whole
// message masked (MaskMessage), then its text read from the masked JSON —
// by this reader when that is a valid object, else by the reference. With
// both, noTools is that text without tool calls, from the same masking.
func (r *lineReader) maskedText(toolCalls, both bool, mask Masker) (text, noTools string) {
	raw := r.D[r.msg.start:r.msg.end:r.msg.end]
	masked, _ := mask.MaskMessage(json.RawMessage(raw))
	mr := newLineReader(masked)
	defer mr.free()
	mr.SkipWS()
	if mr.I < len(masked) && masked[mr.I] == '{' && mr.msg.read(&mr.Scanner) {
		if mr.SkipWS(); mr.I == len(masked) {
			return mr.msg.searchTexts(&mr.Scanner, toolCalls, both)
		}
	}
	msg := gjson.ParseBytes(masked)
	text = messageText(msg, toolCalls, nil)
	if both && toolCalls {
		return text, messageText(msg, false, nil)
	}
	return text, text
}

// appendUnescaped appends the value of a string's contents s (between its
// quotes, as jsonscan validated it) exactly as gjson's unescape gives it:
// a UTF-16 surrogate escape followed by any \u escape is taken as a pair
// (U+FFFD when they are not one), a lone surrogate is U+FFFD.
func appendUnescaped(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 || i+1 >= len(s) {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		c := s[i+1]
		s = s[i+2:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s)
			s = s[4:]
			if utf16.IsSurrogate(r) && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				r = utf16.DecodeRune(r, hex4(s[2:]))
				s = s[6:]
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
}

// hex4 reads four hex digits (validated).
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= 'a':
			c -= 'a' - 10
		case c >= 'A':
			c -= 'A' - 10
		default:
			c -= '0'
		}
		r = r<<4 | rune(c)
	}
	return r
}
