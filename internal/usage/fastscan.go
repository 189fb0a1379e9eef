package usage

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// extractFast is Extract in one pass: it validates the line as it walks it
// and picks out the few fields a Message needs, without building gjson
// results or walking the message's content twice. Whenever the line is
// anything but plain valid JSON it can read without doubt (a key or a wanted
// value spelled with escapes, a non-object line, nesting deeper than
// fastMaxDepth, any syntax error), it hands the line to Extract, which
// decides: Extract stays the reference (FuzzScan holds the scan, which uses
// this, equal to ScanNaive, which uses Extract).
func extractFast(line []byte) (Message, lineStatus) {
	if !utf8.Valid(line) {
		return Message{}, lineBadUTF8
	}
	p := fastParser{b: line}
	if m, st, ok := p.line(); ok {
		return m, st
	}
	return Extract(line)
}

const fastMaxDepth = 256

// fval is a value the parser kept: its kind ('s' string, 'n' number, 'o'
// object, or 'x' anything else) and its bytes (a string's without quotes).
type fval struct {
	kind  byte
	start int
	end   int
	set   bool
}

type fastParser struct {
	b     []byte
	i     int
	depth int
	fail  bool
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// str reads a string whose opening quote is at p.i; it reports the bytes
// between the quotes and whether an escape is among them.
func (p *fastParser) str() (start, end int, esc bool) {
	b := p.b
	i := p.i + 1
	start = i
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if hasLess(w, 0x20) || hasZero(w^(0x22*lsb)) || hasZero(w^(0x5c*lsb)) {
				break
			}
			i += 8
		}
		if i >= len(b) {
			p.fail = true
			return
		}
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			return start, i, esc
		case c < ' ':
			p.fail = true
			return
		case c == '\\':
			esc = true
			i++
			if i >= len(b) {
				p.fail = true
				return
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for range 4 {
					i++
					if i >= len(b) || !ishex(b[i]) {
						p.fail = true
						return
					}
				}
				i++
			default:
				p.fail = true
				return
			}
		default:
			i++
		}
	}
}

const lsb = 0x0101010101010101

func hasZero(w uint64) bool           { return (w-lsb)&^w&(0x80*lsb) != 0 }
func hasLess(w uint64, n uint64) bool { return (w-n*lsb)&^w&(0x80*lsb) != 0 }

func ishex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

func (p *fastParser) num() {
	b, i := p.b, p.i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) || !digit(b[i]) {
		p.fail = true
		return
	}
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && digit(b[i]) {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !digit(b[i]) {
			p.fail = true
			return
		}
		for i < len(b) && digit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !digit(b[i]) {
			p.fail = true
			return
		}
		for i < len(b) && digit(b[i]) {
			i++
		}
	}
	p.i = i
}

func (p *fastParser) lit(s string) {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		p.fail = true
		return
	}
	p.i += len(s)
}

// value reads any value at p.i (whitespace skipped before it) and reports
// what it was.
func (p *fastParser) value() fval {
	p.ws()
	if p.i >= len(p.b) {
		p.fail = true
		return fval{}
	}
	start := p.i
	switch c := p.b[p.i]; {
	case c == '"':
		s, e, esc := p.str()
		if esc {
			return fval{kind: 'e', start: s, end: e, set: true}
		}
		return fval{kind: 's', start: s, end: e, set: true}
	case c == '{':
		p.object(nil)
		return fval{kind: 'o', start: start, end: p.i, set: true}
	case c == '[':
		p.array()
	case c == '-' || digit(c):
		p.num()
		return fval{kind: 'n', start: start, end: p.i, set: true}
	case c == 't':
		p.lit("true")
	case c == 'f':
		p.lit("false")
	case c == 'n':
		p.lit("null")
	default:
		p.fail = true
	}
	return fval{kind: 'x', start: start, end: p.i, set: true}
}

func (p *fastParser) array() {
	p.depth++
	if p.depth > fastMaxDepth {
		p.fail = true
		return
	}
	p.i++ // '['
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		return
	}
	for !p.fail {
		p.value()
		if p.fail {
			return
		}
		p.ws()
		if p.i >= len(p.b) {
			p.fail = true
			return
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return
		default:
			p.fail = true
		}
	}
}

// object reads an object whose '{' is at p.i, calling field for each key
// (without quotes; esc when it holds an escape) with p.i just past the
// colon; field reads the value. A nil field reads every value.
func (p *fastParser) object(field func(key []byte, esc bool)) {
	p.depth++
	if p.depth > fastMaxDepth {
		p.fail = true
		return
	}
	p.i++ // '{'
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return
	}
	for !p.fail {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			p.fail = true
			return
		}
		ks, ke, esc := p.str()
		if p.fail {
			return
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			p.fail = true
			return
		}
		p.i++
		if field == nil {
			p.value()
		} else {
			field(p.b[ks:ke], esc)
		}
		if p.fail {
			return
		}
		p.ws()
		if p.i >= len(p.b) {
			p.fail = true
			return
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			p.depth--
			return
		default:
			p.fail = true
		}
	}
}

// sub reads a value that may be an object with fields of interest: an
// object through field, anything else through value.
func (p *fastParser) sub(field func(key []byte, esc bool)) fval {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '{' {
		start := p.i
		p.object(field)
		return fval{kind: 'o', start: start, end: p.i, set: true}
	}
	return p.value()
}

// line parses the whole line; ok is false when Extract must decide.
func (p *fastParser) line() (m Message, st lineStatus, ok bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return m, 0, false
	}
	var id, ets, msg, role, u, prov, model, mts, in, out, cr, cw, cost, total fval
	costField := func(k []byte, esc bool) {
		if esc {
			p.fail = true
			return
		}
		if string(k) == "total" && !total.set {
			total = p.value()
			return
		}
		p.value()
	}
	usageField := func(k []byte, esc bool) {
		if esc {
			p.fail = true
			return
		}
		var dst *fval
		switch string(k) {
		case "input":
			dst = &in
		case "output":
			dst = &out
		case "cacheRead":
			dst = &cr
		case "cacheWrite":
			dst = &cw
		case "cost":
			if !cost.set {
				cost = p.sub(costField)
				return
			}
		}
		v := p.value()
		if dst != nil && !dst.set {
			*dst = v
		}
	}
	msgField := func(k []byte, esc bool) {
		if esc {
			p.fail = true
			return
		}
		var dst *fval
		switch string(k) {
		case "role":
			dst = &role
		case "provider":
			dst = &prov
		case "model":
			dst = &model
		case "timestamp":
			dst = &mts
		case "usage":
			if !u.set {
				u = p.sub(usageField)
				return
			}
		}
		v := p.value()
		if dst != nil && !dst.set {
			*dst = v
		}
	}
	p.object(func(k []byte, esc bool) {
		if esc {
			p.fail = true
			return
		}
		var dst *fval
		switch string(k) {
		case "id":
			dst = &id
		case "timestamp":
			dst = &ets
		case "message":
			if !msg.set {
				msg = p.sub(msgField)
				return
			}
		}
		v := p.value()
		if dst != nil && !dst.set {
			*dst = v
		}
	})
	if p.fail {
		return m, 0, false
	}
	p.ws()
	if p.i != len(p.b) {
		return m, 0, false
	}
	// Wanted values spelled with escapes: Extract unescapes them.
	for _, v := range []*fval{&id, &ets, &role, &prov, &model} {
		if v.kind == 'e' {
			return m, 0, false
		}
	}
	if msg.kind != 'o' || role.kind != 's' || p.text(role) != "assistant" || u.kind != 'o' {
		return m, lineNone, true
	}
	if id.kind == 's' {
		m.EntryID = p.text(id)
	}
	if prov.kind == 's' {
		m.Provider = p.text(prov)
	}
	if model.kind == 's' {
		m.Model = p.text(model)
	}
	if f, isNum := p.number(mts); isNum && finite(f) {
		m.TS = int64(f)
	} else if ets.kind == 's' {
		if t, err := time.Parse(time.RFC3339Nano, p.text(ets)); err == nil {
			m.TS = t.UnixMilli()
		}
	}
	m.Input, m.Output, m.CacheRead, m.CacheWrite = p.tokens(in), p.tokens(out), p.tokens(cr), p.tokens(cw)
	if cost.kind == 'o' {
		if t, isNum := p.number(total); isNum && finite(t) && t >= 0 {
			m.CostMicros = int64(math.Round(t * 1e6))
			m.HasCost = true
		}
	}
	return m, lineRecord, true
}

// text is a view of a kept string (no copy, as Extract's).
func (p *fastParser) text(v fval) string {
	if v.end <= v.start {
		return ""
	}
	return unsafe.String(&p.b[v.start], v.end-v.start)
}

func (p *fastParser) number(v fval) (float64, bool) {
	if v.kind != 'n' {
		return 0, false
	}
	f, _ := strconv.ParseFloat(p.text(v), 64)
	return f, true
}

func (p *fastParser) tokens(v fval) int64 {
	f, isNum := p.number(v)
	if !isNum || !finite(f) || f < 0 || f > 1e15 {
		return 0
	}
	return int64(math.Round(f))
}
