package hostmetrics

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A listing of a directory read less than the racy window after it
// changed is used once and not kept: the next reading lists it again (a
// change in the same clock tick as the listing may leave its version as
// it was).
func TestDirCacheRacy(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := newDirCache()
	l := c.get(dir, time.Now())
	if l.trusted || len(l.transcripts.List()) != 1 {
		t.Fatalf("a listing of a directory changed just now: trusted %v, %v", l.trusted, l.transcripts.List())
	}
	if c.get(dir, time.Now()) == l {
		t.Fatal("a racy listing was kept")
	}
	later := time.Now().Add(time.Hour)
	l = c.get(dir, later)
	if !l.trusted || c.get(dir, later) != l {
		t.Fatal("a quiet directory's listing was not kept")
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l2 := c.get(dir, later); l2 == l || len(l2.transcripts.List()) != 2 {
		t.Fatalf("a new file was not listed: %v", l2.transcripts.List())
	}
	missing := filepath.Join(dir, "none")
	if l := c.get(missing, later); l.err != nil || l.ver.Exists() || len(l.names) != 0 {
		t.Fatalf("a missing directory: %+v", l)
	}
}
