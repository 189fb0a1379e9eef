// Package storediff finds which members of a sessions.json differ between
// two versions of the file without parsing the members that did not
// change: OpenClaw rewrites the whole store (JSON.stringify(store, null,
// 2)) to change one session, and a feed that must show that change in a few
// milliseconds on a 50 MB store cannot parse it all again.
//
// In that layout every top-level member starts on its own line at indent 2
// ("\n  \"KEY\": {…}"), and that byte sequence occurs nowhere else: a JSON
// string holds no raw newline, nested members are indented deeper. An Index
// keeps a hash of each member's text by key (xxHash64); Diff reads a new version once
// (finding the member lines and hashing each member at memory speed) and
// returns only the members whose text is new, and the keys that went.
// Anything else — another layout, a duplicate key, a stray comma — is
// reported as not found, and the caller parses the file in full. It does no
// I/O.
package storediff

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// memberStart precedes every top-level member's key.
var memberStart = []byte("\n  \"")

// Index is what a store's last version was: each member's key and the hash
// of its text.
type Index struct {
	gen     uint32
	members map[string]*member
}

type member struct {
	hash uint64
	n    int    // its text's length
	gen  uint32 // the Diff that last saw it
}

// Len is how many members the indexed version has.
func (ix *Index) Len() int { return len(ix.members) }

// Scan indexes data, or returns false when it is not laid out one member
// per line at indent 2 (or has a key twice): parse such a file in full.
func Scan(data []byte) (*Index, bool) {
	ix := &Index{members: map[string]*member{}}
	if _, _, ok := ix.diff(data); !ok {
		return nil, false
	}
	return ix, true
}

// Region is what changed: the members of New (a JSON object holding just
// them, in file order; Keys are their keys) are new or changed, the
// members under Removed are gone. Same: nothing changed.
type Region struct {
	New     []byte
	Keys    []string
	Removed []string
	Same    bool
}

// Diff compares a new version of the store with the indexed one and, when
// found, updates the index to it. When not found (another layout, a key
// twice, a member out of place) the index is no longer usable: Scan the
// version once it is parsed in full.
func (ix *Index) Diff(data []byte) (Region, bool) {
	changed, removed, ok := ix.diff(data)
	if !ok {
		ix.members = nil
		return Region{}, false
	}
	if len(changed) == 0 && len(removed) == 0 {
		return Region{Same: true}, true
	}
	r := Region{Removed: removed}
	n := 3
	for _, c := range changed {
		n += len(c.text) + 1
	}
	r.New = make([]byte, 0, n)
	r.New = append(r.New, '{')
	for i, c := range changed {
		if i > 0 {
			r.New = append(r.New, ',')
		}
		r.New = append(r.New, c.text...)
		r.Keys = append(r.Keys, c.key)
	}
	r.New = append(r.New, "\n}"...)
	return r, true
}

type changedMember struct {
	key  string
	text []byte // "\n  \"KEY\": {…}" without the comma after it
}

// diff walks data's members once: hashes each, keeps the changed ones and
// marks the others seen; what was not seen was removed.
func (ix *Index) diff(data []byte) (changed []changedMember, removed []string, ok bool) {
	if ix.members == nil {
		return nil, nil, false
	}
	t := bytes.TrimRight(data, " \t\r\n")
	if len(t) < 4 || data[0] != '{' || !bytes.HasSuffix(t, []byte("\n}")) || !bytes.HasPrefix(data[1:], memberStart) {
		return nil, nil, false // empty ("{}"), or another layout
	}
	end := len(t) - 2
	ix.gen++
	gen := ix.gen
	for pos := 1; pos < end; {
		kb, esc, kok := keyBytes(data[pos+len(memberStart)-1 : end])
		if !kok {
			return nil, nil, false
		}
		var key string
		if esc {
			if key, kok = unescape(kb); !kok {
				return nil, nil, false
			}
		}
		var m *member
		if esc {
			m = ix.members[key]
		} else {
			m = ix.members[string(kb[1:len(kb)-1])] // no copy for a lookup
		}
		if m != nil && m.gen == gen {
			return nil, nil, false // a key twice: JSON.parse keeps the last; parse it in full
		}
		// The member as it was, where it was: its text hashes the same and
		// the next member (or the end) follows. No search for the next
		// member line then: the hash is the one pass over its bytes.
		if m != nil && pos+m.n <= end {
			after := pos + m.n
			if (after == end || data[after] == ',' && bytes.HasPrefix(data[after+1:end], memberStart)) &&
				xxhash.Sum64(data[pos:after]) == m.hash {
				m.gen = gen
				pos = after
				if after < end {
					pos++
				}
				continue
			}
		}
		next := end
		if i := bytes.Index(data[pos+len(memberStart):end], memberStart); i >= 0 {
			next = pos + len(memberStart) + i
		}
		chunk := data[pos:next]
		last := next == end
		if last == (chunk[len(chunk)-1] == ',') {
			return nil, nil, false // every member but the last ends with ","
		}
		text := chunk
		if !last {
			text = chunk[:len(chunk)-1]
		}
		if len(kb) > len(text)-len(memberStart)+1 {
			return nil, nil, false
		}
		h := xxhash.Sum64(text)
		if !esc {
			key = string(kb[1 : len(kb)-1])
		}
		changed = append(changed, changedMember{key, text})
		if m != nil {
			m.hash, m.n, m.gen = h, len(text), gen
		} else {
			ix.members[key] = &member{hash: h, n: len(text), gen: gen}
		}
		pos = next
	}
	for k, m := range ix.members {
		if m.gen != gen {
			removed = append(removed, k)
			delete(ix.members, k)
		}
	}
	return changed, removed, true
}

// unescape decodes a JSON string with escapes.
func unescape(kb []byte) (string, bool) {
	var s string
	err := json.Unmarshal(kb, &s)
	return s, err == nil
}

// keyBytes is the JSON string at the start of b, quotes included, and
// whether it has escapes; valid UTF-8 only (the parsers differ on the
// rest, which is parsed in full).
func keyBytes(b []byte) (kb []byte, esc, ok bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			esc = true
			i++
		case '"':
			if !utf8.Valid(b[1:i]) {
				return nil, false, false
			}
			return b[:i+1], esc, true
		case '\n':
			return nil, false, false
		}
	}
	return nil, false, false
}
