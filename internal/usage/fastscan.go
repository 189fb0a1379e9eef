package usage

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/jsonscan"
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
	p := newFastParser(line)
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

// fastParser is the shared validating scanner (nesting bounded by
// fastMaxDepth) with the reading of the few wanted values on top.
type fastParser struct {
	jsonscan.Scanner
}

func newFastParser(line []byte) fastParser {
	return fastParser{jsonscan.Scanner{D: line, MaxDepth: fastMaxDepth}}
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// value reads any value at p.I (whitespace skipped before it) and reports
// what it was.
func (p *fastParser) value() (fval, bool) {
	p.SkipWS()
	if p.I >= len(p.D) {
		return fval{}, false
	}
	start := p.I
	switch c := p.D[p.I]; {
	case c == '"':
		s, e, esc, ok := p.Str()
		if esc {
			return fval{kind: 'e', start: s, end: e, set: true}, ok
		}
		return fval{kind: 's', start: s, end: e, set: true}, ok
	case c == '{':
		ok := p.Object(nil)
		return fval{kind: 'o', start: start, end: p.I, set: true}, ok
	case c == '-' || digit(c):
		_, ok := p.Number()
		return fval{kind: 'n', start: start, end: p.I, set: true}, ok
	}
	ok := p.Value()
	return fval{kind: 'x', start: start, end: p.I, set: true}, ok
}

// sub reads a value that may be an object with fields of interest: an
// object through field, anything else through value.
func (p *fastParser) sub(field func(key string, esc bool) bool) (fval, bool) {
	if p.D[p.I] == '{' {
		start := p.I
		ok := p.Object(field)
		return fval{kind: 'o', start: start, end: p.I, set: true}, ok
	}
	return p.value()
}

// line parses the whole line; ok is false when Extract must decide.
func (p *fastParser) line() (m Message, st lineStatus, ok bool) {
	p.SkipWS()
	if p.I >= len(p.D) || p.D[p.I] != '{' {
		return m, 0, false
	}
	var id, ets, msg, role, u, prov, model, mts, in, out, cr, cw, cost, total fval
	// keep reads the value into *dst unless a first one was kept already
	// (gjson's Get finds the first of duplicated keys).
	keep := func(dst *fval) bool {
		v, ok := p.value()
		if dst != nil && !dst.set {
			*dst = v
		}
		return ok
	}
	costField := func(k string, esc bool) bool {
		if esc {
			return false
		}
		if k == "total" {
			return keep(&total)
		}
		return keep(nil)
	}
	usageField := func(k string, esc bool) bool {
		if esc {
			return false
		}
		var dst *fval
		switch k {
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
				var ok bool
				cost, ok = p.sub(costField)
				return ok
			}
		}
		return keep(dst)
	}
	msgField := func(k string, esc bool) bool {
		if esc {
			return false
		}
		var dst *fval
		switch k {
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
				var ok bool
				u, ok = p.sub(usageField)
				return ok
			}
		}
		return keep(dst)
	}
	if !p.Object(func(k string, esc bool) bool {
		if esc {
			return false
		}
		var dst *fval
		switch k {
		case "id":
			dst = &id
		case "timestamp":
			dst = &ets
		case "message":
			if !msg.set {
				var ok bool
				msg, ok = p.sub(msgField)
				return ok
			}
		}
		return keep(dst)
	}) {
		return m, 0, false
	}
	p.SkipWS()
	if p.I != len(p.D) {
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
func (p *fastParser) text(v fval) string { return p.View(v.start, v.end) }

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
