package storediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type tmember struct {
	key string
	val string // compact JSON
}

// pretty lays members out as JSON.stringify(store, null, 2) does.
func pretty(ms []tmember) []byte {
	if len(ms) == 0 {
		return []byte("{}")
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(m.val), "  ", "  "); err != nil {
			panic(err)
		}
		parts[i] = strconv.Quote(m.key) + ": " + b.String()
	}
	return []byte("{\n  " + strings.Join(parts, ",\n  ") + "\n}")
}

// decode is the oracle: the members of one JSON object, values compacted;
// false when data is not one JSON object or has a key twice.
func decode(data []byte) (map[string]string, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := map[string]string{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, false
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return nil, false
		}
		if _, dup := out[t.(string)]; dup {
			return nil, false
		}
		out[t.(string)] = b.String()
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false
	}
	return out, true
}

// check diffs old → new and, when Diff answers, holds it to the oracle:
// old's members, less Removed, plus New's, are new's members. It returns
// the region, or false when the caller would parse new in full.
func check(t *testing.T, old, new []byte) (Region, bool) {
	t.Helper()
	ix, ok := Scan(old)
	if !ok {
		return Region{}, false
	}
	om, ok := decode(old)
	if !ok {
		return Region{}, false // Scan need not reject every invalid file: the caller parses it
	}
	if ix.Len() != len(om) {
		t.Fatalf("Scan indexed %d members, want %d", ix.Len(), len(om))
	}
	r, ok := ix.Diff(new)
	if !ok {
		return r, false
	}
	if r.Same {
		if nm, _ := decode(new); !maps.Equal(nm, om) {
			t.Fatal("Same for different versions")
		}
		return r, true
	}
	// The caller parses the region; one that does not parse is parsed in
	// full. One that does must make the whole new version valid.
	rm, ok := decode(r.New)
	if !ok {
		return r, false
	}
	if len(rm) != len(r.Keys) {
		t.Fatalf("region keys %q for %d members", r.Keys, len(rm))
	}
	nm, valid := decode(new)
	if !valid {
		t.Fatalf("Diff accepted an invalid new version:\n%s\nold:\n%s", new, old)
	}
	want := maps.Clone(om)
	for _, k := range r.Removed {
		delete(want, k)
	}
	maps.Copy(want, rm)
	if !maps.Equal(want, nm) {
		t.Fatalf("old with the changes:\n%v\nnew:\n%v", want, nm)
	}
	if ix.Len() != len(nm) {
		t.Fatalf("index of %d members after Diff, want %d", ix.Len(), len(nm))
	}
	return r, true
}

func store(n int) []tmember {
	ms := make([]tmember, n)
	for i := range ms {
		ms[i] = tmember{fmt.Sprintf("agent:main:s%d", i), fmt.Sprintf(`{"sessionId":"id-%d","updatedAt":%d,"totalTokens":%d,"deliveryContext":{"channel":"x"}}`, i, 1000+i, i*7)}
	}
	return ms
}

func TestDiffEdits(t *testing.T) {
	base := store(6)
	edit := func(f func([]tmember) []tmember) []tmember { return f(slices.Clone(base)) }
	cases := []struct {
		name    string
		new     []tmember
		changed []string // the keys of New (nil with found false: parsed in full)
		removed []string
		found   bool
	}{
		{"one field", edit(func(m []tmember) []tmember {
			m[2].val = strings.Replace(m[2].val, `"totalTokens":14`, `"totalTokens":99`, 1)
			return m
		}), []string{"agent:main:s2"}, nil, true},
		{"first", edit(func(m []tmember) []tmember { m[0].val = `{"sessionId":"x"}`; return m }), []string{"agent:main:s0"}, nil, true},
		{"last", edit(func(m []tmember) []tmember { m[5].val = `{"sessionId":"x"}`; return m }), []string{"agent:main:s5"}, nil, true},
		{"added at the end", edit(func(m []tmember) []tmember { return append(m, tmember{"agent:main:new", `{"sessionId":"n"}`}) }), []string{"agent:main:new"}, nil, true},
		{"added in the middle", edit(func(m []tmember) []tmember {
			return slices.Insert(m, 3, tmember{"agent:main:new", `{"sessionId":"n"}`})
		}), []string{"agent:main:new"}, nil, true},
		{"removed", edit(func(m []tmember) []tmember { return slices.Delete(m, 3, 4) }), nil, []string{"agent:main:s3"}, true},
		{"removed last", edit(func(m []tmember) []tmember { return m[:5] }), nil, []string{"agent:main:s5"}, true},
		{"removed first", edit(func(m []tmember) []tmember { return m[1:] }), nil, []string{"agent:main:s0"}, true},
		{"two apart", edit(func(m []tmember) []tmember { m[1].val = `{"a":1}`; m[4].val = `{"b":2}`; return m }), []string{"agent:main:s1", "agent:main:s4"}, nil, true},
		{"reordered", edit(func(m []tmember) []tmember { m[1], m[4] = m[4], m[1]; return m }), nil, nil, true},
		{"key renamed", edit(func(m []tmember) []tmember { m[3].key = "agent:main:renamed"; return m }), []string{"agent:main:renamed"}, []string{"agent:main:s3"}, true},
		{"emptied", nil, nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := check(t, pretty(base), pretty(c.new))
			if ok != c.found || !slices.Equal(r.Keys, c.changed) || !slices.Equal(r.Removed, c.removed) {
				t.Fatalf("region %q removed %q (%v), want %q, %q (%v)", r.Keys, r.Removed, ok, c.changed, c.removed, c.found)
			}
		})
	}
	if r, ok := check(t, pretty(base), pretty(base)); !ok || !r.Same {
		t.Fatalf("same: %+v %v", r, ok)
	}
}

// Not this layout, or a key twice: parsed in full.
func TestDiffOtherLayouts(t *testing.T) {
	base := pretty(store(3))
	for _, s := range []string{
		`{"agent:main:s0":{"sessionId":"id-0"}}`,       // compact
		"{\n\t\"agent:main:s0\": {}\n}",                // tabs
		"{\n  // JSON5\n  \"agent:main:s0\": {}\n}",    // comments
		"{\n  \"a\": {},\n  \"a\": {}\n}",              // a key twice
		"{\n  \"a\": {},\n  \"b\": {},\n}",             // a trailing comma
		"{\n  \"a\": {}\n  \"b\": {}\n}",               // a missing comma
		"{\n  \"a\\u00e9\": {},\n  \"a\u00e9\": {}\n}", // the same key, escaped once
	} {
		if _, ok := check(t, base, []byte(s)); ok {
			t.Errorf("%q as the new version: accepted", s)
		}
	}
}

// Random stores and random edits: whatever Diff accepts must agree with a
// full parse.
func FuzzDiff(f *testing.F) {
	f.Add(uint64(1), uint8(0), "x")
	f.Add(uint64(2), uint8(3), "\n  \"")
	f.Add(uint64(3), uint8(7), ",")
	f.Add(uint64(4), uint8(3), "\n  \"agent:main:s0\": {},")
	f.Fuzz(func(t *testing.T, seed uint64, op uint8, text string) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		ms := store(1 + rnd.IntN(8))
		old := pretty(ms)
		var new []byte
		switch op % 4 {
		case 0: // a member's value replaced
			i := rnd.IntN(len(ms))
			b, _ := json.Marshal(map[string]string{"t": text})
			ms[i].val = string(b)
			new = pretty(ms)
		case 1: // a member added
			b, _ := json.Marshal(text)
			ms = slices.Insert(ms, rnd.IntN(len(ms)+1), tmember{"k" + text, "{\"v\":" + string(b) + "}"})
			new = pretty(ms)
		case 2: // a member removed
			i := rnd.IntN(len(ms))
			ms = slices.Delete(ms, i, i+1)
			new = pretty(ms)
		default: // raw bytes spliced in anywhere
			at := rnd.IntN(len(old) + 1)
			cut := min(len(old), at+rnd.IntN(8))
			new = append(append(append([]byte(nil), old[:at]...), text...), old[cut:]...)
		}
		check(t, old, new)
	})
}
