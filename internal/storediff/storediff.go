// Package storediff finds which members of a sessions.json differ between
// two versions of the file without parsing the members that did not
// change: OpenClaw rewrites the whole store (JSON.stringify(store, null,
// 2)) to change one session, and a feed that must show that change in a few
// milliseconds on a 50 MB store cannot parse it all again.
//
// In that layout every top-level member starts on its own line at indent 2
// ("\n  \"KEY\": {…}"), and that byte sequence occurs nowhere else: a JSON
// string holds no raw newline, nested members are indented deeper. So the
// common prefix and suffix of the two versions (compared at memory speed)
// bound the members that changed, and only those are parsed. Anything
// else — another layout, a change outside whole members — is reported as
// not found, and the caller parses the file in full. It does no I/O.
package storediff

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// memberStart precedes every top-level member's key.
var memberStart = []byte("\n  \"")

// Layout is where the members of a store file lie.
type Layout struct {
	// Starts[i] is the offset of member i's line: the "\n" before its
	// key. Member i's chunk is data[Starts[i]:Starts[i+1]] (its text and
	// the "," after it), the last one's ends at End.
	Starts []int
	// Keys[i] is member i's key.
	Keys []string
	// End is the offset of the "\n}" (or, empty, the "}") closing the
	// object.
	End int
}

// Scan returns data's layout, or false when data is not laid out one
// member per line at indent 2 (then it must be parsed in full).
func Scan(data []byte) (Layout, bool) {
	var l Layout
	t := bytes.TrimRight(data, " \t\r\n")
	if len(t) < 2 || data[0] != '{' || t[len(t)-1] != '}' {
		return l, false
	}
	if len(bytes.TrimSpace(t[1:len(t)-1])) == 0 {
		l.End = len(t) - 1
		return l, true
	}
	if !bytes.HasSuffix(t, []byte("\n}")) {
		return l, false
	}
	l.End = len(t) - 2
	starts, keys, ok := members(data, 1, l.End)
	if !ok || len(starts) == 0 || starts[0] != 1 {
		return l, false
	}
	l.Starts, l.Keys = starts, keys
	return l, true
}

// members finds the member lines in data[lo:hi], where lo is a member's
// line or hi: each after the first must follow a ",".
func members(data []byte, lo, hi int) (starts []int, keys []string, ok bool) {
	for at := lo; at < hi; {
		i := bytes.Index(data[at:hi], memberStart)
		if i < 0 {
			break
		}
		s := at + i
		if (s == lo) != (len(starts) == 0) || s != lo && data[s-1] != ',' {
			return nil, nil, false
		}
		key, ok := keyAt(data[s+len(memberStart)-1 : hi])
		if !ok {
			return nil, nil, false
		}
		starts, keys = append(starts, s), append(keys, key)
		at = s + len(memberStart)
	}
	return starts, keys, true
}

// keyAt reads the JSON string at the start of b (valid UTF-8 only: the
// parsers differ on the rest, which is parsed in full).
func keyAt(b []byte) (string, bool) {
	esc := false
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			esc = true
			i++
		case '"':
			if !utf8.Valid(b[1:i]) {
				return "", false
			}
			if !esc {
				return string(b[1:i]), true
			}
			var s string
			if json.Unmarshal(b[:i+1], &s) != nil {
				return "", false
			}
			return s, true
		case '\n':
			return "", false
		}
	}
	return "", false
}

// Region says what changed: old's members [From, To) are replaced by the
// members of New (a JSON object holding just them, in file order).
type Region struct {
	From, To int
	New      []byte
	Keys     []string // the keys of New's members, in order
	// Same: the two versions are byte for byte the same.
	Same bool
}

// Diff compares the new version of a store with the old one (laid out as
// ol) and returns the region that changed and the new version's layout.
// ok is false when the change is not confined to whole members of this
// layout, or the new version is not laid out so: parse it in full.
func Diff(old, new []byte, ol Layout) (r Region, nl Layout, ok bool) {
	n := min(len(old), len(new))
	p := commonPrefix(old[:n], new[:n])
	if p == len(old) && p == len(new) {
		return Region{Same: true}, ol, true
	}
	s := commonSuffix(old[p:], new[p:])
	e := len(old) - s // old's changed bytes are [p, e)
	if len(ol.Starts) == 0 || p < ol.Starts[0] || ol.End < e {
		return r, nl, false
	}
	delta := len(new) - len(old)
	// The chunks holding a changed byte: From holds p; To is the first
	// chunk wholly in the common suffix.
	from := lastAtOrBefore(ol.Starts, p)
	to := firstAtOrAfter(ol.Starts, e, from+1)
	lo := ol.Starts[from]
	hi := ol.End + delta
	if to < len(ol.Starts) {
		hi = ol.Starts[to] + delta
	}
	if hi < lo || hi > len(new) {
		return r, nl, false
	}
	chunk := new[lo:hi]
	last := to == len(ol.Starts)
	// Every chunk but the file's last ends with the ",": the members in
	// the region end with one unless they are the file's last.
	switch {
	case len(chunk) == 0:
		if last && from > 0 {
			return r, nl, false // "…,\n}": the member before lost its successor, not its comma
		}
	case last == (chunk[len(chunk)-1] == ','):
		return r, nl, false
	}
	starts, keys, ok := members(new, lo, lo+len(chunk))
	if !ok || len(chunk) > 0 && (len(starts) == 0 || starts[0] != lo) {
		return r, nl, false
	}
	body := bytes.TrimSuffix(chunk, []byte(","))
	obj := make([]byte, 0, len(body)+3)
	obj = append(append(append(obj, '{'), body...), "\n}"...)
	nl.Starts = make([]int, 0, len(ol.Starts)-(to-from)+len(starts))
	nl.Starts = append(append(nl.Starts, ol.Starts[:from]...), starts...)
	nl.Keys = make([]string, 0, cap(nl.Starts))
	nl.Keys = append(append(nl.Keys, ol.Keys[:from]...), keys...)
	for i := to; i < len(ol.Starts); i++ {
		nl.Starts = append(nl.Starts, ol.Starts[i]+delta)
		nl.Keys = append(nl.Keys, ol.Keys[i])
	}
	nl.End = ol.End + delta
	if len(nl.Starts) == 0 {
		return r, nl, false // the store emptied: "{\n}" is another layout
	}
	return Region{From: from, To: to, New: obj, Keys: keys}, nl, true
}

// commonPrefix is how many leading bytes a and b (same length) share.
func commonPrefix(a, b []byte) int {
	const block = 4096
	i := 0
	for i+block <= len(a) && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is how many trailing bytes a and b share.
func commonSuffix(a, b []byte) int {
	const block = 4096
	n := 0
	m := min(len(a), len(b))
	for n+block <= m && bytes.Equal(a[len(a)-n-block:len(a)-n], b[len(b)-n-block:len(b)-n]) {
		n += block
	}
	for n < m && a[len(a)-n-1] == b[len(b)-n-1] {
		n++
	}
	return n
}

// lastAtOrBefore is the index of the last of the sorted xs <= v (xs[0] <= v).
func lastAtOrBefore(xs []int, v int) int {
	lo, hi := 0, len(xs)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if xs[m] <= v {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// firstAtOrAfter is the index of the first of xs[from:] >= v, or len(xs).
func firstAtOrAfter(xs []int, v, from int) int {
	lo, hi := from, len(xs)
	for lo < hi {
		m := (lo + hi) / 2
		if xs[m] >= v {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
