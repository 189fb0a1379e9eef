package storecache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// The two designs of issue 38's item 4, side by side on a 10,000-entry
// store (about 54 MB): the full lean parse every process pays without a
// cache (BenchmarkList10kFullParse); the floor of a parser that reads only
// what a row needs (BenchmarkList10kSkipScanFloor: the mapping of the file
// and one pass of bytes.Index over it for each entry's "updatedAt", with no
// validation and no decoding at all — any exact skip-scanner does at least
// this); and the disk tier's hit (BenchmarkList10kDiskHit: stat, read and
// check the cache file, decode every entry's key and Meta).
//
//	go test -run '^$' -bench List10k -benchtime 20x ./internal/storecache

func bigStore(b *testing.B) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "sessions.json")
	storegen.WriteStore(b, 10_000, p)
	// older than RacyWindow, as a store OpenClaw last wrote a while ago
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, old, old); err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkList10kFullParse(b *testing.B) {
	p := bigStore(b)
	b.ReportAllocs()
	for b.Loop() {
		st, err := store.LoadMeta(p)
		if err != nil || len(st.Entries) != 10_000 {
			b.Fatal(err, len(st.Entries))
		}
	}
}

func BenchmarkList10kSkipScanFloor(b *testing.B) {
	p := bigStore(b)
	b.ReportAllocs()
	needle := []byte(`"updatedAt"`)
	for b.Loop() {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		fi, _ := f.Stat()
		data, err := mapfile.Map(f, int(fi.Size()))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rest := data; ; n++ {
			i := bytes.Index(rest, needle)
			if i < 0 {
				break
			}
			rest = rest[i+len(needle):]
		}
		mapfile.Unmap(data)
		f.Close()
		if n < 10_000 {
			b.Fatalf("%d updatedAt", n)
		}
	}
}

func BenchmarkList10kDiskHit(b *testing.B) {
	p, d := cachedBigStore(b)
	b.ReportAllocs()
	for b.Loop() {
		st, err := d.Load(p, []string{p}, func(string) {}, func(func(string)) (*store.Store, error) {
			b.Fatal("parsed: the cache was not used")
			return nil, nil
		})
		if err != nil || len(st.Entries) != 10_000 {
			b.Fatal(err, len(st.Entries))
		}
	}
}

// BenchmarkList10kDiskHitListing is the disk tier's hit as a listing reads
// it (LoadListing): the cache file read and checked, every entry's key,
// updatedAt and spawnedBy, and the 50 entries of a default page decoded
// whole.
func BenchmarkList10kDiskHitListing(b *testing.B) {
	p, d := cachedBigStore(b)
	b.ReportAllocs()
	for b.Loop() {
		l, err := d.LoadListing(p, []string{p}, func(string) {}, func(func(string)) (*store.Store, error) {
			b.Fatal("parsed: the cache was not used")
			return nil, nil
		})
		if err != nil || l.Len() != 10_000 {
			b.Fatal(err, l.Len())
		}
		for i := range 50 {
			if l.Entry(i*200).Key == "" {
				b.Fatal("no key")
			}
		}
	}
}

// cachedBigStore is the 10k store and a disk tier that holds its cache
// file, trusted (its clock past the racy window).
func cachedBigStore(b *testing.B) (string, *Disk) {
	b.Helper()
	p := bigStore(b)
	d := NewDisk(filepath.Join(b.TempDir(), "cache"), DefaultMinSize)
	d.now = func() time.Time { return time.Now().Add(RacyWindow + time.Second) } // the ctime is the Chtimes'
	load := func(func(string)) (*store.Store, error) { return store.LoadMeta(p) }
	if _, err := d.Load(p, []string{p}, func(string) {}, load); err != nil {
		b.Fatal(err)
	}
	return p, d
}
