package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/testutil"
)

// goldenScanEntries is what testdata/scan-v1.golden holds: written by the
// scan cache's code before its envelope moved to internal/cachefile, and
// the bytes every later Save of the same entries must give (no format
// change without a version bump). One entry, so that no map order enters.
func goldenScanEntries() map[string]scanEntry {
	return map[string]scanEntry{
		"/s/agents/main/sessions/a.jsonl": {
			stamp: fsutil.Stamp{Size: 120, MTime: time.Unix(0, 1795255200123456789), Ino: 77, CTime: 1795255200987654321},
			facts: TranscriptFact{Header: "bad", HeaderID: "a", Lines: 3, Corrupt: 1, FirstCorrupt: 2, Torn: true, TornLine: 3,
				Oversize: 4, FirstOver: 5, MaxLine: 300000, BrokenParents: 6, FirstBroken: 7},
		},
	}
}

// TestScanCacheGoldenBytes: a Save writes exactly the golden file's
// bytes, and OpenScanCache reads it back to the same entries.
func TestScanCacheGoldenBytes(t *testing.T) {
	golden := filepath.Join("testdata", "scan-v1.golden")
	dir := t.TempDir()
	c := OpenScanCache(dir, "/s", 256<<10)
	c.begin()
	c.next, c.dirty = goldenScanEntries(), true
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	if testutil.UpdateGolden() {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the scan cache file changed:\n got %x\nwant %x", got, want)
	}
	if err := os.WriteFile(c.Path(), want, 0o600); err != nil {
		t.Fatal(err)
	}
	c2 := OpenScanCache(dir, "/s", 256<<10)
	if c2.Ignored != "" || len(c2.old) != 1 {
		t.Fatalf("the golden file read back: %q, %d entries", c2.Ignored, len(c2.old))
	}
	for p, e := range goldenScanEntries() {
		if g, ok := c2.old[p]; !ok || !g.stamp.Equal(e.stamp) || g.facts != e.facts {
			t.Fatalf("%s read back as %+v, want %+v", p, g, e)
		}
	}
}
