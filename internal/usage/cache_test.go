package usage

import (
	"os"
	"path/filepath"
	"testing"
)

// A cache in memory serves what it was given and is never written;
// Changed says when a cache has something its file does not.
func TestMemoryCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	line := `{"type":"message","id":"m1","timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"assistant","provider":"mock","model":"mock-1","usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7}}}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	units := []Unit{FileUnit(p, fi, "a", false)}
	c := MemoryCache(dir)
	if c.Changed() || c.Path() != "" {
		t.Fatalf("a new memory cache: changed %v, path %q", c.Changed(), c.Path())
	}
	parts, st := Collect(units, c, 1, func(msg string) { t.Error(msg) })
	if st.Read != 1 || len(parts[0]) != 1 || len(parts[0][0].Records) != 1 || !c.Changed() {
		t.Fatalf("first collection: %+v, changed %v", st, c.Changed())
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a memory cache wrote a file: %v", ents)
	}
	if _, st := Collect(units, c, 1, func(msg string) { t.Error(msg) }); st.Cached != 1 {
		t.Errorf("second collection: %+v", st)
	}

	disk := OpenCache(filepath.Join(dir, "cache"), dir)
	Collect(units, disk, 1, func(msg string) { t.Error(msg) })
	if !disk.Changed() {
		t.Fatal("a cache read into is not changed")
	}
	if err := disk.Save(); err != nil {
		t.Fatal(err)
	}
	if disk.Changed() {
		t.Error("a saved cache is still changed")
	}
}
