package usage

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

const day1 = 1795168800000 // 2026-11-20T10:00:00Z

func TestRollupDedupeAndDims(t *testing.T) {
	live := src(Session{SessionID: "s1", Agent: "main", Key: "main", Kind: "main", Channel: "internal"},
		Message{EntryID: "a", TS: day1, Provider: "p", Model: "m1", Input: 10, Output: 1, CostMicros: 100, HasCost: true},
		Message{EntryID: "b", TS: day1 + 86400000, Provider: "p", Model: "m2", Input: 20, Output: 2},
	)
	// A .reset copy of the same session: "a" again (counted once), "c" only there.
	reset := src(Session{SessionID: "s1", Agent: "main", Archived: true},
		Message{EntryID: "a", TS: day1, Provider: "p", Model: "m1", Input: 10, Output: 1, CostMicros: 100, HasCost: true},
		Message{EntryID: "c", TS: day1, Provider: "q", Model: "m3", Input: 5},
	)
	// Another session with the same entry id: not a duplicate.
	other := src(Session{SessionID: "s2", Agent: "ops", Key: "agent:ops:cron:j1", Kind: "cron", CronJob: "j1"},
		Message{EntryID: "a", TS: day1, Provider: "p", Model: "m1", CacheRead: 100, CacheWrite: 50, CostMicros: 7, HasCost: true},
	)
	price := func(p, m string) (Price, bool) {
		if p == "p" && m == "m2" {
			return Price{Input: 3, Output: 15}, true // per million: 20*3 + 2*15 = 90 micro-USD
		}
		return Price{}, false
	}
	rep := Rollup([]Source{reset, live, other}, Options{By: []string{"day", "model"}, Price: price})
	if rep.Duplicates != 1 {
		t.Fatalf("duplicates %d, want 1", rep.Duplicates)
	}
	var got [][]string
	for _, r := range rep.Rows {
		got = append(got, r.Keys)
	}
	want := [][]string{{"2026-11-20", "m1"}, {"2026-11-20", "m3"}, {"2026-11-21", "m2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if r := rep.Rows[0]; r.Messages != 2 || r.Input != 10 || r.CacheRead != 100 || r.CostMicroUSD != 107 || r.Total != 161 {
		t.Fatalf("m1 row %+v", r.Totals)
	}
	if r := rep.Rows[2]; r.CostMicroUSD != 90 || r.CostComputed != 1 || r.CostUSD != 0.00009 {
		t.Fatalf("m2 row %+v", r.Totals)
	}
	if r := rep.Rows[1]; r.CostUnknown != 1 || r.CostMicroUSD != 0 {
		t.Fatalf("m3 row %+v", r.Totals)
	}
	tot := rep.Totals
	if tot.Messages != 4 || tot.Input != 35 || tot.CostMicroUSD != 197 || tot.CostComputed != 1 || tot.CostUnknown != 1 {
		t.Fatalf("totals %+v", tot)
	}
	// The live copy is counted first: "a" belongs to session main.
	rep = Rollup([]Source{reset, live}, Options{By: []string{"session"}})
	if len(rep.Rows) != 2 || rep.Rows[0].Keys[0] != "main" || rep.Rows[0].Messages != 2 || rep.Rows[1].Keys[0] != "s1" || rep.Rows[1].Messages != 1 {
		t.Fatalf("by session %+v", rep.Rows)
	}
	// Other dimensions.
	rep = Rollup([]Source{live, other}, Options{By: []string{"agent", "kind", "cron", "provider", "week", "month", "channel"}})
	if len(rep.Rows) != 2 || !reflect.DeepEqual(rep.Rows[1].Keys, []string{"ops", "cron", "j1", "p", "2026-W47", "2026-11", ""}) {
		t.Fatalf("dims %+v", rep.Rows)
	}
}

func TestRollupSinceUntilAndZone(t *testing.T) {
	one := src(Session{SessionID: "s"},
		Message{EntryID: "1", TS: day1 - 1}, Message{EntryID: "2", TS: day1}, Message{EntryID: "3", TS: day1 + 1000}, Message{EntryID: "4", TS: day1 + 2000},
	)
	rep := Rollup([]Source{one}, Options{Since: day1, Until: day1 + 2000})
	if rep.Totals.Messages != 2 {
		t.Fatalf("since/until kept %d, want 2", rep.Totals.Messages)
	}
	tokyo := time.FixedZone("JST", 9*3600)
	rep = Rollup([]Source{src(Session{SessionID: "s"}, Message{TS: day1 + 14*3600*1000})}, Options{By: []string{"day"}, Loc: tokyo})
	if rep.Rows[0].Keys[0] != "2026-11-21" {
		t.Fatalf("day in JST %v", rep.Rows[0].Keys)
	}
}

func TestParseBy(t *testing.T) {
	got, err := ParseBy([]string{"day,model", "Model", " agent "})
	if err != nil || !reflect.DeepEqual(got, []string{"day", "model", "agent"}) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := ParseBy([]string{"day,colour"}); err == nil {
		t.Fatal("unknown dimension accepted")
	}
}

func TestCacheRoundTripAndDistrust(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(src, hard(), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(src)
	units := []Unit{FileUnit(src, fi, "s1", false)}
	c := OpenCache(filepath.Join(dir, "cache"), "/state")
	parts, st := Collect(units, c, 2, func(m string) { t.Error(m) })
	if st.Read != 1 || st.Cached != 0 || len(parts[0][0].Records) != 4 {
		t.Fatalf("first run %+v", st)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(c.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode %v %v", fi.Mode(), err)
	}
	c2 := OpenCache(filepath.Join(dir, "cache"), "/state")
	parts2, st := Collect(units, c2, 2, func(m string) { t.Error(m) })
	if st.Read != 0 || st.Cached != 1 || !reflect.DeepEqual(parts, parts2) {
		t.Fatalf("second run %+v", st)
	}
	// Another state dir's cache is never used.
	if c3 := OpenCache(filepath.Join(dir, "cache"), "/other"); len(c3.entries) != 0 {
		t.Fatal("cache of another state dir used")
	}
	// A flipped byte: bad checksum, ignored.
	data, _ := os.ReadFile(c.Path())
	bad := append([]byte{}, data...)
	bad[len(bad)-5] ^= 0xff
	os.WriteFile(c.Path(), bad, 0o600)
	if c4 := OpenCache(filepath.Join(dir, "cache"), "/state"); len(c4.entries) != 0 || c4.Ignored != "bad checksum" {
		t.Fatalf("corrupt cache trusted (%q)", c4.Ignored)
	}
	// Garbage and a truncated file: ignored.
	for _, b := range [][]byte{[]byte("garbage"), data[:len(cacheMagic)+3]} {
		os.WriteFile(c.Path(), b, 0o600)
		if c5 := OpenCache(filepath.Join(dir, "cache"), "/state"); len(c5.entries) != 0 || c5.Ignored == "" {
			t.Fatalf("bad cache trusted")
		}
	}
	// A changed file is read again.
	os.WriteFile(c.Path(), data, 0o600)
	f, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("}}}\n")
	f.Close()
	fi, _ = os.Stat(src)
	c6 := OpenCache(filepath.Join(dir, "cache"), "/state")
	_, st = Collect([]Unit{FileUnit(src, fi, "s1", false)}, c6, 1, func(string) {})
	if st.Read != 1 {
		t.Fatalf("changed file not read again: %+v", st)
	}
}

func TestCacheForeignVersion(t *testing.T) {
	dir := t.TempDir()
	c := OpenCache(dir, "/state")
	c.put("/x", Stamp{Size: 1}, []Part{{SessionID: "x"}})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	// Re-encode with another version number.
	f, why := decodeCache(mustRead(t, c.Path()))
	if why != "" {
		t.Fatal(why)
	}
	c.entries = f.Entries
	c.dirty = true
	saveVersion(t, c, cacheVersion+1)
	if c2 := OpenCache(dir, "/state"); len(c2.entries) != 0 || c2.Ignored == "" {
		t.Fatalf("foreign version trusted: %q", c2.Ignored)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func saveVersion(t *testing.T, c *Cache, v int) {
	t.Helper()
	if err := c.save(v); err != nil {
		t.Fatal(err)
	}
}

// src is a source of messages.
func src(s Session, msgs ...Message) Source {
	var p Part
	for _, m := range msgs {
		p.Add(m)
	}
	return Source{Session: s, Models: p.Models, Records: p.Records}
}

func TestMaxDims(t *testing.T) {
	if len(Dimensions) != maxDims {
		t.Fatalf("maxDims %d, Dimensions %d", maxDims, len(Dimensions))
	}
}

// TestDecodePayloadNeverPanics: every truncation and a flipped byte of a
// valid payload is an error or a valid file, never a panic or a huge
// allocation (the checksum comes first; this is what lies behind it).
func TestDecodePayloadNeverPanics(t *testing.T) {
	var p Part
	p.SessionID = "s"
	for _, m := range []Message{{EntryID: "a", TS: 1, Provider: "p", Model: "m", Input: 5, HasCost: true, CostMicros: 7}, {EntryID: "b", Model: "n"}} {
		p.Add(m)
	}
	p.index = nil
	f := &cacheFile{Version: cacheVersion, StateDir: "/s", Entries: map[string]cacheEntry{"/s/x.jsonl": {Stamp: Stamp{Size: 9}, Parts: []Part{p}}}}
	data := encodePayload(f)
	got, err := decodePayload(data)
	if err != nil || !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, f)
	}
	for i := range data {
		decodePayload(data[:i])
		bad := append([]byte{}, data...)
		bad[i] ^= 0x80
		decodePayload(bad)
	}
}
