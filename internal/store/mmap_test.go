package store

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/mapfile"
)

// LoadMeta (a read-only mapping, no Raw) gives the same keys, order and
// fields as Load, including duplicates and non-object values across parts.
func TestLoadMetaMatchesLoad(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	data := bigStore(t, 24<<20, map[float64]string{
		0.01: `"dup": {"sessionId": "first", "updatedAt": 1}`, 0.3: `"x": 7`,
		0.6: `"dup": {"sessionId": "second", "updatedAt": 2}`, 0.95: `"gone": {"sessionId": "g"}`,
		0.96: `"gone": null`,
	})
	p := filepath.Join(t.TempDir(), "sessions.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadMeta(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != len(want.Entries) || got.Skipped != want.Skipped {
		t.Fatalf("entries %d/%d skipped %d/%d", len(got.Entries), len(want.Entries), got.Skipped, want.Skipped)
	}
	for i := range want.Entries {
		g, w := got.Entries[i], want.Entries[i]
		if g.Key != w.Key || !reflect.DeepEqual(g.Meta, w.Meta) {
			t.Fatalf("entry %d: %q %+v, want %q %+v", i, g.Key, g.Meta, w.Key, w.Meta)
		}
		if g.Raw != nil {
			t.Fatalf("entry %d keeps Raw (it would point into an unmapped region)", i)
		}
	}
	if e, ok := got.Lookup("dup"); !ok || e.SessionID != "second" {
		t.Errorf("dup = %+v", e)
	}
	if _, ok := got.Lookup("gone"); ok {
		t.Error("a key whose last value is null is listed")
	}
}

// A mapped file that shrinks under the scan faults; guard turns that into a
// failed load (the caller then reads the file normally) instead of a crash,
// and so it does with any other panic of the scan.
func TestGuardTurnsMappedFaultIntoFailure(t *testing.T) {
	ok := true
	guard(func() { panic("a bug in the scan") }, &ok)
	if ok {
		t.Fatal("a panic in the scan left ok")
	}
	if !mapfile.Mmap {
		t.Skip("no mmap here")
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapfile.Map(f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer mapfile.Unmap(m)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	ok = true
	var sink byte
	guard(func() { sink = m[len(m)-1] }, &ok)
	if ok {
		t.Fatalf("reading a truncated mapping did not fault (read %d)", sink)
	}
}
