package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

// Fuzz targets of the sessions.json decoder (Parse) and the round-trip
// writer (Update). The fast/slow decoder agreement is FuzzParseFast
// (store_fastpath_test.go).

// storeSeeds are the fixture's entries, each as a one-entry store in
// OpenClaw's layout (whole 40 KB stores make the fuzzer's minimisation
// crawl), the smaller fixture store whole, and small stores with the shapes
// that matter for a round trip: duplicates, non-object values, escapes,
// lone surrogates (OpenClaw writes "\ud83e" when a JS slice cuts an emoji),
// raw U+2028, array-index keys (JS orders them first), legacy fields.
func storeSeeds(t testing.TB) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("../../testdata/state-2026.1.30/agents/*/sessions/sessions.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 16<<10 {
			out = append(out, b)
		}
		gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
			out = append(out, []byte("{\n  "+k.Raw+": "+v.Raw+"\n}"))
			return true
		})
	}
	if len(out) < 10 {
		t.Fatal("no fixture stores")
	}
	for _, s := range []string{
		`{}`,
		`{"a":{"sessionId":"1","updatedAt":5}}`,
		`{"a":{"sessionId":"1"},"b":7,"a":{"sessionId":"2","x":[1,{"y":null}]},"c":{"z":"\u2028"}}`,
		"{\n  \"agent:main:main\": {\n    \"sessionId\": \"s\",\n    \"label\": \"\\ud83e cut\",\n    \"displayName\": \"caf\u00e9 \u2028\"\n  },\n  \"b\\ud83e\": {\"sessionId\": \"t\"},\n  \"b\\ud83f\": {\"sessionId\": \"u\"}\n}",
		`{"10":{"a":1},"2":{"b":2},"x":{"c":3},"01":{"d":4},"4294967295":{"e":5}}`,
		`{"k":{"provider":"Discord","lastProvider":"x","room":"#r","lastTo":" +1 ","deliveryContext":{"channel":"IMSG","threadId":4.7}}}`,
		`{"k":{"big":1e400,"neg":-0,"f":0.1000,"s":"\u0000\"\\\/","dup":1,"dup":2}}`,
		"{\"k\":{\"inv\":\"\xff\xfe\"},\"\xff\":{\"a\":1}}",
		`{"k\u00e9":{"a":1},"k":"not an object","n":null}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzParse: Parse never panics; it either fails with a "corrupt" state
// error (exit 10) or returns entries with unique keys that Lookup finds,
// each a JSON object, agreeing with gjson on which keys hold objects. A
// strict-JSON object is never refused.
func FuzzParse(f *testing.F) {
	for _, s := range storeSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("/x/sessions.json", data)
		strict := gjson.ValidBytes(data) && gjson.ParseBytes(data).IsObject()
		if err != nil {
			if strict {
				t.Fatalf("a strict JSON object was refused: %v", err)
			}
			if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "is corrupt") {
				t.Fatalf("error is not a corrupt-store state error: %v (code %d)", err, apperr.CodeOf(err))
			}
			return
		}
		if strict && s.JSON5 {
			t.Fatalf("strict JSON flagged as JSON5")
		}
		seen := map[string]bool{}
		for i := range s.Entries {
			e := &s.Entries[i]
			if seen[e.Key] {
				t.Fatalf("duplicate entry %q", e.Key)
			}
			seen[e.Key] = true
			if got, ok := s.Lookup(e.Key); !ok || got != e {
				t.Fatalf("Lookup(%q) does not find its entry", e.Key)
			}
			if !gjson.ValidBytes(e.Raw) || !gjson.ParseBytes(e.Raw).IsObject() {
				t.Fatalf("entry %q raw is not an object: %q", e.Key, e.Raw)
			}
		}
		if strict {
			// Reference: gjson's view of the top level, duplicates folded
			// (first position, last value).
			var keys []string
			vals := map[string]gjson.Result{}
			gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
				if _, dup := vals[k.String()]; !dup {
					keys = append(keys, k.String())
				}
				vals[k.String()] = v
				return true
			})
			var want []string
			for _, k := range keys {
				if vals[k].IsObject() {
					want = append(want, k)
				}
			}
			var got []string
			for _, e := range s.Entries {
				got = append(got, e.Key)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("entries %q, want %q", got, want)
			}
			for _, e := range s.Entries {
				if string(e.Raw) != vals[e.Key].Raw {
					t.Fatalf("entry %q raw %q, want %q", e.Key, e.Raw, vals[e.Key].Raw)
				}
			}
		}
		s2, err := Parse("/x/sessions.json", data)
		if err != nil || len(s2.Entries) != len(s.Entries) || s2.Skipped != s.Skipped {
			t.Fatalf("Parse is not deterministic")
		}
	})
}

// member is one top-level member of a store file as written.
type member struct {
	id     string // the key as the writer identifies it
	rawKey string // the quoted key exactly as in the file
	raw    string // the value exactly as in the file
}

// members lists the top-level members of a strict-JSON store, duplicates
// folded (first position, last value), identified as Update identifies them.
func members(t *testing.T, data []byte) []member {
	t.Helper()
	var out []member
	idx := map[string]int{}
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		m := member{id: keyIdentity([]byte(k.Raw), k.String()), rawKey: k.Raw, raw: v.Raw}
		if i, dup := idx[m.id]; dup {
			out[i].raw = m.raw
			return true
		}
		idx[m.id] = len(out)
		out = append(out, m)
		return true
	})
	return out
}

// normalisedFields are the entry fields Update may rewrite on a touched
// entry (delivery normalisation, legacy migrations; format §3.4, §3.5).
var normalisedFields = map[string]bool{
	"deliveryContext": true, "lastChannel": true, "lastTo": true, "lastAccountId": true, "lastThreadId": true,
	"channel": true, "provider": true, "lastProvider": true, "room": true, "groupChannel": true,
}

// FuzzUpdateRoundTrip: for any valid (strict JSON) store, an Update that
// touches one entry — sets a field, sets an unknown field, deletes it, or
// adds a new one — writes a valid store in which every other member keeps
// its key and value bytes exactly, the relative order of keys is kept, and
// the touched entry keeps every field it had (unknown ones included) in
// order, apart from the delivery fields OpenClaw normalises on save. No
// temp file or lock file is left, and the mode is 0600.
func FuzzUpdateRoundTrip(f *testing.F) {
	for _, s := range storeSeeds(f) {
		for op := range uint8(4) {
			f.Add(s, uint8(len(s)%7), op, "v\u00e9 <&> \u2028")
		}
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "sessions.json")
	f.Fuzz(func(t *testing.T, data []byte, pick, op uint8, val string) {
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			// Not a strict-JSON store (JSON5 and corrupt stores are the
			// Update tests' business): use the bytes as a key and as values
			// of a valid store instead, so every input exercises a write.
			q, _ := jsonx.Marshal(string(data))
			data = []byte(`{"agent:main:main":{"sessionId":"s","x":` + string(q) + `},` + string(q) +
				`:{"sessionId":` + string(q) + `,"deliveryContext":{"channel":` + string(q) + `}},"z":[` + string(q) + `]}`)
		}
		before := members(t, data)
		var objs []member
		for _, m := range before {
			if strings.HasPrefix(m.raw, "{") {
				objs = append(objs, m)
			}
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		const newKey = "agent:main:fuzz:new"
		var target string
		op %= 4
		if op == 3 || len(objs) == 0 {
			op, target = 3, newKey
		} else {
			target = objs[int(pick)%len(objs)].id
		}
		field := "fuzzUnknownField"
		if op == 1 {
			field = "label"
		}
		res, err := Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error {
			switch op {
			case 0, 1:
				e, ok := tx.Entry(target)
				if !ok {
					return errors.New("touched entry not found in the Tx")
				}
				if err := e.Set(field, val); err != nil {
					return err
				}
				tx.Put(target, e)
			case 2:
				tx.Delete(target)
			case 3:
				if tx.Has(newKey) {
					tx.Delete(newKey)
					return nil
				}
				e := jsonx.NewObject()
				_ = e.Set("sessionId", val)
				tx.Put(newKey, e)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		if !res.Wrote {
			t.Fatalf("Update wrote nothing")
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !gjson.ValidBytes(out) || !gjson.ParseBytes(out).IsObject() {
			t.Fatalf("written store is not a JSON object:\n%s", out)
		}
		if !utf8.Valid(out) && utf8.Valid(data) {
			t.Fatalf("written store is not UTF-8")
		}
		if _, err := Parse(path, out); err != nil {
			t.Fatalf("written store does not parse: %v", err)
		}
		after := members(t, out)
		byID := map[string]member{}
		for _, m := range after {
			byID[m.id] = m
		}

		// Every other member: same key bytes, same value bytes.
		var wantOrder, gotOrder []string
		for _, m := range before {
			if m.id == target {
				continue
			}
			a, ok := byID[m.id]
			if !ok {
				t.Fatalf("member %q lost", m.rawKey)
			}
			if a.rawKey != m.rawKey || a.raw != m.raw {
				t.Fatalf("untouched member changed:\n%s: %s\n→\n%s: %s", m.rawKey, m.raw, a.rawKey, a.raw)
			}
			if !isArrayIndex(m.id) {
				wantOrder = append(wantOrder, m.id)
			}
		}
		for _, m := range after {
			if m.id != target && !isArrayIndex(m.id) {
				gotOrder = append(gotOrder, m.id)
			}
		}
		if !slices.Equal(gotOrder, wantOrder) {
			t.Fatalf("key order changed: %q → %q", wantOrder, gotOrder)
		}
		wantLen := len(before)
		switch {
		case op == 2:
			wantLen--
		case op == 3 && !slices.ContainsFunc(before, func(m member) bool { return m.id == newKey }):
			wantLen++
		case op == 3:
			wantLen--
		}
		if len(after) != wantLen {
			t.Fatalf("%d members after, want %d", len(after), wantLen)
		}

		// The touched entry.
		switch op {
		case 0, 1:
			var orig member
			for _, m := range before {
				if m.id == target {
					orig = m
				}
			}
			a, ok := byID[target]
			if !ok {
				t.Fatalf("touched entry %q lost", target)
			}
			if a.rawKey != orig.rawKey {
				t.Fatalf("touched entry's key changed: %s → %s", orig.rawKey, a.rawKey)
			}
			checkFieldsKept(t, orig.raw, a.raw, field, val)
		case 2:
			if _, ok := byID[target]; ok {
				t.Fatalf("deleted entry %q still there", target)
			}
		}

		// Files: mode 0600, no temp file, no lock file.
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, want 0600 (%v)", st.Mode(), err)
		}
		if tmps := TempFiles(path); len(tmps) > 0 {
			t.Fatalf("temp files left: %v", tmps)
		}
		if _, err := os.Stat(lock.StoreLockPath(path)); err == nil {
			t.Fatalf("lock file left")
		}
	})
}

// checkFieldsKept: the touched entry keeps every field of orig (same raw
// JSON, same relative order) except the normalised delivery fields, and
// field now holds val.
func checkFieldsKept(t *testing.T, orig, got, field, val string) {
	t.Helper()
	o, g := jsonx.NewObject(), jsonx.NewObject()
	if err := o.UnmarshalJSON([]byte(orig)); err != nil {
		t.Fatalf("original entry: %v", err)
	}
	if err := g.UnmarshalJSON([]byte(got)); err != nil {
		t.Fatalf("written entry: %v", err)
	}
	var wantOrder, gotOrder []string
	for _, k := range o.Keys() {
		if normalisedFields[k] || k == field {
			continue
		}
		wantOrder = append(wantOrder, k)
		if !sameJSON(o.Raw(k), g.Raw(k)) {
			t.Fatalf("field %q changed: %s → %s", k, o.Raw(k), g.Raw(k))
		}
	}
	for _, k := range g.Keys() {
		if !normalisedFields[k] && k != field {
			gotOrder = append(gotOrder, k)
		}
	}
	if !slices.Equal(wantOrder, gotOrder) {
		t.Fatalf("fields %q, want %q", gotOrder, wantOrder)
	}
	// (invalid UTF-8 in val is written as U+FFFD, one per bad byte)
	var want string
	q, _ := jsonx.Marshal(val)
	_ = json.Unmarshal(q, &want)
	if s, ok := g.String(field); !ok || s != want {
		t.Fatalf("field %q = %s, want %q", field, g.Raw(field), want)
	}
}

// sameJSON compares two raw values ignoring insignificant whitespace.
func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
