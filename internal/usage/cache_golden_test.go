package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
)

// goldenCache is the file testdata/cache-v4.golden holds: written by the
// cache's code before its envelope moved to internal/cachefile, and the
// bytes every later Save of the same entries must give (no format change
// without a version bump). One entry, so that no map order enters.
func goldenEntries() map[string]cacheEntry {
	return map[string]cacheEntry{
		"/state/agents/main/sessions/a.jsonl": {
			Stamp: Stamp{Dev: 2049, Ino: 1234567, Size: 98765, MtimeNano: 1795255200123456789, Extra: "wal:1:2"},
			Parts: []Part{
				{
					SessionID: "0f1e2d3c", Key: "agent:main:main", Archived: true,
					Models: []Model{{"mock", "mock-1"}, {"openai", "gpt-x"}},
					Records: []Record{
						{TS: 1795255200000, CostMicros: 1234, ID: 0xfeedbeefcafe, Input: 10, Output: 20, CacheRead: 30, CacheWrite: 40, Model: 0, HasCost: true},
						{TS: 1795255201000, ID: 7, Input: 1, Output: 2, Model: 1},
					},
					Skips: Skips{InvalidUTF8: 1, Corrupt: 2, Torn: 3, Oversize: 4},
				},
				{SessionID: "empty"},
			},
		},
	}
}

// TestCacheGoldenBytes: a Save writes exactly the golden file's bytes,
// and OpenCache reads it back to the same entries.
func TestCacheGoldenBytes(t *testing.T) {
	golden := filepath.Join("testdata", "cache-v4.golden")
	dir := t.TempDir()
	c := OpenCache(dir, "/state")
	c.entries, c.dirty = goldenEntries(), true
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, c.Path())
	if testutil.UpdateGolden() {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := mustRead(t, golden)
	if !bytes.Equal(got, want) {
		t.Fatalf("the cache file changed:\n got %x\nwant %x", got, want)
	}
	if err := os.WriteFile(c.Path(), want, 0o600); err != nil {
		t.Fatal(err)
	}
	c2 := OpenCache(dir, "/state")
	if c2.Ignored != "" || !reflect.DeepEqual(c2.entries, goldenEntries()) {
		t.Fatalf("the golden file read back (%q):\n got %+v\nwant %+v", c2.Ignored, c2.entries, goldenEntries())
	}
}
