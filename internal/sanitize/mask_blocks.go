package sanitize

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// A secret split across two content blocks of one message (beyond 9.6,
// which masks each block alone): renderers show adjacent text blocks next
// to each other, so a half no pattern recognises alone
// (ghp_Q7LfA1mm | LfB1nnpqrstuZk9w) would let an agent put the token
// together again. After the per-block masking (unchanged), MaskMessage
// looks at every edge between consecutive non-empty texts of a "content"
// array at any depth (a text block's "text", a thinking block's
// "thinking"; a tool result's own content array too; any other block
// breaks the run): the raw texts' last edgeWindow bytes before the edge
// and first edgeWindow bytes after it, across as many blocks as that
// takes, are masked joined. When the join masks something the parts
// alone do not, the raw span from the first to the last changed byte of
// the joined window (widened to reach the edge) must not go out as
// stored: in each block it covers, what per-block masking left of it as
// stored becomes "***" (a block it covers whole becomes "***").
//
// Limits: a secret longer than edgeWindow on a side of the edge (a PEM
// key block split in two) is caught only when its pattern matches the
// window's part; another secret in the same window before or after the
// split one widens the span, so the stored text between them is hidden
// too (more masked, never less). The work is a few Redacts of at most
// 2×edgeWindow bytes per edge: linear in the message.
const edgeWindow = 512

// textBlock is one non-empty text of a content array: the ordinal of its
// JSON string literal among all of the message's literals (keys too) and
// its raw value.
type textBlock struct {
	ord int
	raw string
}

// blockFrame is maskBlocks' walk's open object or array.
type blockFrame struct {
	obj, wantKey bool
	key          string
	secret       bool
	content      bool // an array under "content": its elements are blocks
	run          []textBlock
	elem         bool // an object element of a content array
	typ          string
	text, think  *textBlock
}

// blockRuns are the runs of adjacent texts of every content array of raw
// (valid JSON), two blocks or more each.
func blockRuns(raw []byte) [][]textBlock {
	var runs [][]textBlock
	var stack []blockFrame
	ord := 0
	top := func() *blockFrame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	endRun := func(f *blockFrame) {
		if len(f.run) > 1 {
			runs = append(runs, f.run)
		}
		f.run = nil
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		f := top()
		switch c {
		case '{', '[':
			nf := blockFrame{obj: c == '{', wantKey: c == '{'}
			if f != nil {
				nf.secret = f.secret || (f.obj && IsSecretKey(f.key))
				if f.content {
					if c == '{' {
						nf.elem = true
					} else {
						endRun(f)
					}
				}
				nf.content = c == '[' && f.obj && f.key == "content"
			}
			stack = append(stack, nf)
			i++
		case '}', ']':
			if f != nil {
				if f.content {
					endRun(f)
				}
				done := *f
				stack = stack[:len(stack)-1]
				if p := top(); p != nil && done.elem && p.content {
					b := done.text
					if done.typ == "thinking" {
						b = done.think
					}
					switch {
					case done.secret || b == nil:
						endRun(p)
					case b.raw != "":
						p.run = append(p.run, *b)
					}
				}
			}
			i++
		case ',':
			if f != nil && f.obj {
				f.wantKey = true
			}
			i++
		case '"':
			end := stringEnd(raw, i)
			switch {
			case f == nil:
			case f.obj && f.wantKey:
				var k string
				_ = json.Unmarshal(raw[i:end], &k)
				f.key, f.wantKey = k, false
			case f.content:
				endRun(f)
			case f.elem && (f.key == "type" || f.key == "text" || f.key == "thinking"):
				var s string
				if json.Unmarshal(raw[i:end], &s) == nil {
					switch f.key {
					case "type":
						f.typ = s
					case "text":
						f.text = &textBlock{ord: ord, raw: s}
					default:
						f.think = &textBlock{ord: ord, raw: s}
					}
				}
			}
			ord++
			i = end
		default:
			if f != nil && f.content && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				endRun(f) // a number, true, false or null element
			}
			i++
		}
	}
	return runs
}

// blockHide is what of one block's stored text must not go out: all of
// it, its bytes from tail on, its bytes before head.
type blockHide struct {
	whole      bool
	tail, head int
}

// maskBlockEdges masks, in out (raw masked block by block), what a secret
// across an edge of a content array left as stored; it reports whether
// anything changed.
func (r *Redactor) maskBlockEdges(raw, out []byte) ([]byte, bool) {
	runs := blockRuns(raw)
	if len(runs) == 0 {
		return out, false
	}
	plain := *r // the windows are neither recorded nor kept
	plain.rec, plain.keep = nil, nil
	repl := map[int]string{} // literal ordinal -> new text
	var lits map[int][2]int  // literal ordinal -> its span in out
	for _, run := range runs {
		hides := plain.runHides(run)
		if hides == nil {
			continue
		}
		if lits == nil {
			lits = literalSpans(out)
		}
		for k, h := range hides {
			if h == nil {
				continue
			}
			b := run[k]
			sp, ok := lits[b.ord]
			if !ok {
				continue
			}
			var m string
			if json.Unmarshal(out[sp[0]:sp[1]], &m) != nil {
				continue
			}
			n := hideText(b.raw, m, *h)
			if n == m || (r.keep != nil && r.keep(b.raw)) {
				continue
			}
			if r.rec != nil {
				r.rec(n)
			}
			repl[b.ord] = n
		}
	}
	if len(repl) == 0 {
		return out, false
	}
	res := make([]byte, 0, len(out)+16)
	copied := 0
	for ord := 0; ord < len(lits); ord++ {
		n, ok := repl[ord]
		if !ok {
			continue
		}
		sp := lits[ord]
		res = append(res, out[copied:sp[0]]...)
		res = append(res, encodeString(units(n))...)
		copied = sp[1]
	}
	return append(res, out[copied:]...), true
}

// literalSpans are the spans of every string literal of valid JSON, by
// ordinal.
func literalSpans(b []byte) map[int][2]int {
	spans := map[int][2]int{}
	for i := 0; i < len(b); {
		if b[i] != '"' {
			i++
			continue
		}
		end := stringEnd(b, i)
		spans[len(spans)] = [2]int{i, end}
		i = end
	}
	return spans
}

// runHides is, for each block of run, what of it must not go out as
// stored (nil: nothing; all nil: nil).
func (r *Redactor) runHides(run []textBlock) []*blockHide {
	var s strings.Builder
	starts := make([]int, len(run)+1)
	for k, b := range run {
		starts[k] = s.Len()
		s.WriteString(b.raw)
	}
	starts[len(run)] = s.Len()
	S := s.String()
	var hides []*blockHide
	for k := 1; k < len(run); k++ {
		e := starts[k]
		// the two blocks of the edge, then the run around it (a secret
		// across three blocks); a span either finds is hidden
		lo := runeStartAt(S, max(starts[k-1], e-edgeWindow), e)
		hi := runeEndAt(S, min(starts[k+1], e+edgeWindow), e)
		hides = r.hideSpan(S, starts, lo, e, hi, hides)
		wlo := runeStartAt(S, max(0, e-edgeWindow), e)
		whi := runeEndAt(S, min(len(S), e+edgeWindow), e)
		if wlo != lo || whi != hi {
			hides = r.hideSpan(S, starts, wlo, e, whi, hides)
		}
	}
	return hides
}

// hideSpan adds to hides (one per block of the run whose texts, joined,
// are S; starts are their offsets) what masking S[lo:hi] joined at e
// says must not go out.
func (r *Redactor) hideSpan(S string, starts []int, lo, e, hi int, hides []*blockHide) []*blockHide {
	x, y, ok := r.edgeSpan(S, lo, e, hi)
	if !ok {
		return hides
	}
	n := len(starts) - 1
	if hides == nil {
		hides = make([]*blockHide, n)
	}
	for j := 0; j < n; j++ {
		bs, be := starts[j], starts[j+1]
		if be <= x || bs >= y {
			continue
		}
		h := hides[j]
		if h == nil {
			h = &blockHide{tail: be - bs}
			hides[j] = h
		}
		u, v := max(x, bs)-bs, min(y, be)-bs
		switch {
		case u == 0 && v == be-bs:
			h.whole = true
		case v == be-bs:
			h.tail = min(h.tail, u)
		default: // u == 0: the span reaches the edge before it
			h.head = max(h.head, v)
		}
	}
	return hides
}

// edgeSpan is the raw span [x, y) of S, around the edge e, that masking
// the window S[lo:hi] joined masks and its two parts alone do not.
func (r *Redactor) edgeSpan(S string, lo, e, hi int) (x, y int, ok bool) {
	w := S[lo:hi]
	m, changed := r.Redact(w)
	if !changed {
		return 0, 0, false
	}
	ml, _ := r.Redact(S[lo:e])
	mr, _ := r.Redact(S[e:hi])
	a := ml + mr
	if m == a {
		return 0, 0, false
	}
	pa := commonPrefix(m, a)
	sa := min(commonSuffix(m, a), min(len(m), len(a))-pa)
	// The join matters only where it masks what a part alone shows as
	// stored next to the edge (a masked value's own first 6 and last 4
	// aside): a value that merely reads on into the next block (9.6
	// masks `token=abc…stuv` and then `{"apiKey":…}` alone) is no leak.
	// A part's mask whose kept characters next to the edge the join hides
	// all of is a leak too (`ghp_Q7…rstu` | `Zk9w`).
	d := len(a) - sa // a[pa:d] is what the join changes
	wl, wr := S[lo:e], S[e:hi]
	cl, cr := visibleTail(wl, ml), visibleHead(wr, mr)
	fl, fr := commonSuffix(wl, ml), commonPrefix(wr, mr)
	n := len(ml)
	leak := (cl > 0 && max(pa, n-cl) < min(d, n)) ||
		(cr > 0 && max(pa, n) < min(d, n+cr)) ||
		(fl > cl && pa <= n-fl && d >= n-cl) ||
		(fr > cr && pa <= n+cr && d >= n+fr)
	if !leak {
		return 0, 0, false
	}
	p := commonPrefix(w, m)
	q := min(commonSuffix(w, m), min(len(w), len(m))-p)
	x, y = e, e
	if pa < len(ml) {
		x = min(lo+p, e)
	}
	if sa < len(mr) {
		y = max(hi-q, e)
	}
	if x == y {
		// the join changed what masking shows, not where: the bytes
		// around the edge
		x, y = lo+p, max(hi-q, lo+p)
		x, y = min(x, e), max(y, e)
	}
	return x, y, x < y
}

// hideText is m (the per-block masking of the stored text t) with what h
// says must not go out, where m still shows it as stored, made "***".
func hideText(t, m string, h blockHide) string {
	if h.whole || h.head >= h.tail {
		return "***"
	}
	head := min(commonPrefix(t, m), h.head)
	tail := 0
	if h.tail < len(t) {
		tail = min(commonSuffix(t, m), len(t)-h.tail)
		for tail > 0 && !utf8.RuneStart(m[len(m)-tail]) {
			tail--
		}
	}
	if head+tail >= len(m) {
		return "***"
	}
	out := m
	if tail > 0 {
		out = out[:len(out)-tail] + "***"
	}
	if head > 0 {
		out = "***" + out[head:]
	}
	return out
}

// commonPrefix is the length of a's and b's longest common prefix, at a
// character boundary.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

// commonSuffix is the length of a's and b's longest common suffix, at a
// character boundary.
func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	for i > 0 && !utf8.RuneStart(a[len(a)-i]) {
		i--
	}
	return i
}

// runeStartAt is i moved forward to a character's start (at most to end).
func runeStartAt(s string, i, end int) int {
	for i < end && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// runeEndAt is i moved back to a character's start (at least to start).
func runeEndAt(s string, i, start int) int {
	for i > start && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// visibleTail is how many bytes at the end of m (t masked) are t's as
// stored, a mask's last 4 characters after "…" not counted.
func visibleTail(t, m string) int {
	c := commonSuffix(t, m)
	if strings.HasSuffix(m[:len(m)-c], "…") {
		kept := m[len(m)-c:]
		for n := 0; n < 4 && kept != ""; n++ {
			_, w := utf8.DecodeRuneInString(kept)
			kept = kept[w:]
		}
		c = len(kept)
	}
	return c
}

// visibleHead is how many bytes at the start of m (t masked) are t's as
// stored, a mask's first 6 characters before "…" not counted.
func visibleHead(t, m string) int {
	c := commonPrefix(t, m)
	if strings.HasPrefix(m[c:], "…") {
		kept := m[:c]
		for n := 0; n < 6 && kept != ""; n++ {
			_, w := utf8.DecodeLastRuneInString(kept)
			kept = kept[:len(kept)-w]
		}
		c = len(kept)
	}
	return c
}
