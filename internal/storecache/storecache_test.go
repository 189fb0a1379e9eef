package storecache

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/store"
)

// fixture is a sessions.json with one entry labelled label (the labels a
// test writes have one length: a rewrite keeps the file's size).
func writeStore(t *testing.T, p, label string) {
	t.Helper()
	data := `{
  "agent:main:main": {"sessionId": "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d", "updatedAt": 1795236254224, "label": "` + label + `"}
}`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// loader counts its loads of p (store.LoadMeta).
type loader struct {
	p string
	n atomic.Int64
}

func (l *loader) load(func(string)) (*store.Store, error) {
	l.n.Add(1)
	return store.LoadMeta(l.p)
}

func label(t *testing.T, c *Cache, l *loader) string {
	t.Helper()
	st, err := c.Load(l.p, []string{l.p}, func(string) {}, l.load)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := st.Lookup("agent:main:main")
	if !ok {
		t.Fatal("no agent:main:main")
	}
	return e.Label
}

// later is a cache whose clock runs ahead of the file system's by more
// than RacyWindow: every file it sees changed long enough ago to be
// trusted (what a real cache sees of a store that has been quiet).
func later() *Cache {
	c := New()
	c.now = func() time.Time { return time.Now().Add(RacyWindow + time.Second) }
	return c
}

// A store whose file is unchanged is served without reading it again;
// every kind of change of the file is seen on the next call.
func TestServedUntilChanged(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "one-1")
	c := later()
	for range 3 {
		if got := label(t, c, l); got != "one-1" {
			t.Fatalf("label %q", got)
		}
	}
	if l.n.Load() != 1 || c.Stats() != (Stats{Hits: 2, Loads: 1}) {
		t.Fatalf("loads %d, stats %+v: an unchanged store was read again", l.n.Load(), c.Stats())
	}

	// A rewrite in place of the same size, its mtime put back: only the
	// ctime tells (where the platform has one; wait for the clock to tick).
	fi, _ := os.Stat(l.p)
	time.Sleep(20 * time.Millisecond)
	writeStore(t, l.p, "two-2")
	if err := os.Chtimes(l.p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		if got := label(t, c, l); got != "two-2" {
			t.Fatalf("a same-size rewrite with its mtime put back was not seen: %q", got)
		}
	}

	// A replacement by rename, same size and mtime: the inode tells.
	fi, _ = os.Stat(l.p)
	tmp := l.p + ".tmp"
	writeStore(t, tmp, "three")
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, l.p); err != nil {
		t.Fatal(err)
	}
	if got := label(t, c, l); got != "three" {
		t.Fatalf("a replacement was not seen: %q", got)
	}

	// A larger file; then none (an agent without sessions): an empty store.
	writeStore(t, l.p, "four-44")
	if got := label(t, c, l); got != "four-44" {
		t.Fatalf("a grown file was not seen: %q", got)
	}
	if err := os.Remove(l.p); err != nil {
		t.Fatal(err)
	}
	st, err := c.Load(l.p, []string{l.p}, func(string) {}, l.load)
	if err != nil || !st.Missing {
		t.Fatalf("a removed store: %+v, %v", st, err)
	}
}

// A store read within RacyWindow of its file's last change is not
// trusted: a rewrite of the same size within the same timestamp tick (its
// mtime and ctime possibly unchanged) is seen by the next call.
func TestRacyReadNotTrusted(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	c := New() // the real clock: the file has just been written
	for i, want := range []string{"aaaaa", "bbbbb", "ccccc", "ddddd"} {
		fi, err := os.Stat(l.p)
		writeStore(t, l.p, want)
		if err == nil { // same size, and the mtime it had
			if err := os.Chtimes(l.p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		if got := label(t, c, l); got != want {
			t.Fatalf("write %d: label %q, want %q: a racy read was trusted", i, got, want)
		}
	}
	if n := l.n.Load(); n != 4 {
		t.Fatalf("%d loads for 4 calls on a file changed just before each", n)
	}
}

// On a file system whose timestamps are coarse (here: a version that never
// changes, as a same-size rewrite within one tick leaves it), only the
// racy rule tells: a read soon after the file's last change is not
// trusted, while a cache that trusted it would serve the old store.
func TestRacyRuleOnCoarseTimestamps(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "aaaaa")
	fixed, err := versionOf(l.p)
	if err != nil {
		t.Fatal(err)
	}
	defer func(was func(string) (Version, error)) { statVersion = was }(statVersion)
	statVersion = func(string) (Version, error) { return fixed, nil }

	c := New() // the file changed just now: racy
	for _, want := range []string{"aaaaa", "bbbbb", "ccccc"} {
		writeStore(t, l.p, want)
		if got := label(t, c, l); got != want {
			t.Fatalf("label %q, want %q: a racy read was trusted", got, want)
		}
	}
	// what the rule prevents: the same writes, a clock that finds the
	// version old, the old store served
	c = later()
	label(t, c, l)
	writeStore(t, l.p, "ddddd")
	if got := label(t, c, l); got != "ccccc" {
		t.Fatalf("a trusted Version was read again: %q", got)
	}
}

// A failed load is not kept, and its error is the caller's.
func TestFailedLoadNotKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sessions.json")
	writeStore(t, p, "aaaaa")
	c := later()
	boom := errors.New("boom")
	if _, err := c.Load(p, []string{p}, func(string) {}, func(func(string)) (*store.Store, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	l := &loader{p: p}
	if got := label(t, c, l); got != "aaaaa" || l.n.Load() != 1 {
		t.Fatalf("after a failed load: %q, %d loads", got, l.n.Load())
	}
}

// The warnings of a load are said again each time its store is served.
func TestWarningsRepeated(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sessions.json")
	writeStore(t, p, "aaaaa")
	c := later()
	for i := range 3 {
		var got []string
		_, err := c.Load(p, []string{p}, func(m string) { got = append(got, m) }, func(warn func(string)) (*store.Store, error) {
			warn("left out 1 row")
			return store.LoadMeta(p)
		})
		if err != nil || len(got) != 1 || got[0] != "left out 1 row" {
			t.Fatalf("call %d: warnings %q, %v", i, got, err)
		}
	}
}

// Calls at once share the store: one read (the first caller's) when the
// file is unchanged, and every caller gets that one store.
func TestConcurrentCallsShareOneRead(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "aaaaa")
	c := later()
	var wg sync.WaitGroup
	stores := make([]*store.Store, 16)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := c.Load(l.p, []string{l.p}, func(string) {}, l.load)
			if err != nil {
				t.Error(err)
			}
			stores[i] = st
		}()
	}
	wg.Wait()
	for _, st := range stores {
		if st != stores[0] {
			t.Fatal("callers got different stores of one unchanged file")
		}
	}
	if n := l.n.Load(); n != 1 {
		t.Fatalf("%d reads of one unchanged file", n)
	}
}

// A nil cache reads every time (the CLI).
func TestNilCacheReads(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "aaaaa")
	var c *Cache
	label(t, c, l)
	label(t, c, l)
	if l.n.Load() != 2 {
		t.Fatalf("%d reads", l.n.Load())
	}
}

// A cached store's listing is made once and shared by the calls it is
// served to, until the store changes: then the new store's.
func TestListingSharedUntilChanged(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "one-1")
	c := later()
	listing := func() *store.Listing {
		t.Helper()
		ls, err := c.LoadListing(l.p, []string{l.p}, func(string) {}, l.load)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	first := listing()
	if again := listing(); again != first {
		t.Fatalf("an unchanged store's listing was made again")
	}
	if got := first.Entry(0).Label; got != "one-1" {
		t.Fatalf("label %q", got)
	}
	writeStore(t, l.p, "two-22")
	next := listing()
	if next == first || next.Entry(0).Label != "two-22" {
		t.Fatalf("a changed store served its old listing: %q", next.Entry(0).Label)
	}
	if l.n.Load() != 2 {
		t.Fatalf("loads %d, want 2", l.n.Load())
	}
}
