package storediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type member struct {
	key string
	val string // compact JSON
}

// pretty lays members out as JSON.stringify(store, null, 2) does.
func pretty(ms []member) []byte {
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

// decode is the oracle: the members of a JSON object in file order, values
// compacted; false when data is not one JSON object.
func decode(data []byte) ([]member, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
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
		out = append(out, member{t.(string), b.String()})
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false
	}
	return out, true
}

// check runs Diff on old → new and, when it answers, holds it to the
// oracle: new's members are old's with the region replaced, and new's
// layout is what Scan finds.
func check(t *testing.T, old, new []byte) (Region, bool) {
	t.Helper()
	ol, ok := Scan(old)
	if !ok {
		return Region{}, false
	}
	om, ok := decode(old)
	if !ok {
		return Region{}, false // Scan need not reject every invalid file: the caller parses
	}
	if !slices.Equal(ol.Keys, keysOf(om)) {
		t.Fatalf("Scan keys %q, want %q", ol.Keys, keysOf(om))
	}
	r, nl, ok := Diff(old, new, ol)
	if !ok {
		return r, false
	}
	if r.Same {
		if !bytes.Equal(old, new) {
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
	nm, valid := decode(new)
	if !valid {
		t.Fatalf("Diff accepted an invalid new version:\n%s\nold:\n%s", new, old)
	}
	if !slices.Equal(keysOf(rm), r.Keys) {
		t.Fatalf("region keys %q, want %q", r.Keys, keysOf(rm))
	}
	want := append(append(append([]member(nil), om[:r.From]...), rm...), om[r.To:]...)
	if !slices.Equal(want, nm) {
		t.Fatalf("old with the region replaced:\n%v\nnew:\n%v", want, nm)
	}
	sl, ok := Scan(new)
	if !ok || !slices.Equal(sl.Starts, nl.Starts) || !slices.Equal(sl.Keys, nl.Keys) || sl.End != nl.End {
		t.Fatalf("layout %+v, Scan says %+v (%v)", nl, sl, ok)
	}
	return r, true
}

func keysOf(ms []member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.key)
	}
	return out
}

func store(n int) []member {
	ms := make([]member, n)
	for i := range ms {
		ms[i] = member{fmt.Sprintf("agent:main:s%d", i), fmt.Sprintf(`{"sessionId":"id-%d","updatedAt":%d,"totalTokens":%d,"deliveryContext":{"channel":"x"}}`, i, 1000+i, i*7)}
	}
	return ms
}

func TestDiffEdits(t *testing.T) {
	base := store(6)
	edit := func(f func([]member) []member) []member { return f(slices.Clone(base)) }
	cases := []struct {
		name     string
		new      []member
		from, to int // the region expected (-1: not found)
	}{
		{"one field", edit(func(m []member) []member {
			m[2].val = strings.Replace(m[2].val, `"totalTokens":14`, `"totalTokens":99`, 1)
			return m
		}), 2, 3},
		{"first", edit(func(m []member) []member { m[0].val = `{"sessionId":"x"}`; return m }), 0, 1},
		{"last", edit(func(m []member) []member { m[5].val = `{"sessionId":"x"}`; return m }), 5, 6},
		{"added at the end", edit(func(m []member) []member { return append(m, member{"agent:main:new", `{"sessionId":"n"}`}) }), 5, 6},
		{"added in the middle", edit(func(m []member) []member { return slices.Insert(m, 3, member{"agent:main:new", `{"sessionId":"n"}`}) }), 2, 3},
		{"removed", edit(func(m []member) []member { return slices.Delete(m, 3, 4) }), 2, 4},
		{"removed last", edit(func(m []member) []member { return m[:5] }), 4, 6},
		{"removed first", edit(func(m []member) []member { return m[1:] }), 0, 1},
		{"two apart", edit(func(m []member) []member { m[1].val = `{"a":1}`; m[4].val = `{"b":2}`; return m }), 1, 5},
		{"key renamed", edit(func(m []member) []member { m[3].key = "agent:main:renamed"; return m }), 3, 4},
		{"emptied", nil, -1, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := check(t, pretty(base), pretty(c.new))
			if c.from < 0 {
				if ok {
					t.Fatalf("found %+v", r)
				}
				return
			}
			// The oracle in check says the region is right; here: found,
			// and no wider than the members touched (plus a neighbour
			// whose comma or key prefix the edit shares).
			if !ok || r.To-r.From > c.to-c.from+1 || r.From > c.to || r.To < c.from {
				t.Fatalf("region %d-%d (%v), want about %d-%d", r.From, r.To, ok, c.from, c.to)
			}
		})
	}
	if r, ok := check(t, pretty(base), pretty(base)); !ok || !r.Same {
		t.Fatalf("same: %+v %v", r, ok)
	}
}

// Not this layout: parsed in full.
func TestDiffOtherLayouts(t *testing.T) {
	base := pretty(store(3))
	for _, s := range []string{
		`{"agent:main:s0":{"sessionId":"id-0"}}`,    // compact
		"{\n\t\"agent:main:s0\": {}\n}",             // tabs
		"{\n  // JSON5\n  \"agent:main:s0\": {}\n}", // comments
	} {
		if l, ok := Scan([]byte(s)); ok && len(l.Starts) > 0 {
			if _, _, ok := Diff([]byte(s), base, l); ok {
				t.Errorf("%q: accepted", s)
			}
		}
		if _, ok := check(t, base, []byte(s)); ok {
			t.Errorf("%q as the new version: accepted", s)
		}
	}
}

// Random stores and random byte edits: whatever Diff accepts must agree
// with a full parse.
func FuzzDiff(f *testing.F) {
	f.Add(uint64(1), uint8(0), "x")
	f.Add(uint64(2), uint8(3), "\n  \"")
	f.Add(uint64(3), uint8(9), ",")
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
			ms = slices.Insert(ms, rnd.IntN(len(ms)+1), member{"k" + text, "{\"v\":" + string(b) + "}"})
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
