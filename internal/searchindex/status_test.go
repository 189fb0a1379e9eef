//go:build unix

package searchindex

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/search"
)

// Inspect reports an index as it is, and how many sources changed since,
// without writing a byte; Remove removes the state's indexes (raw and
// masked) and nothing else in the cache dir.
func TestInspectAndRemove(t *testing.T) {
	cache := t.TempDir()
	srcs := bigWorld(t, t.TempDir(), 4, 20, 3)
	if sts, err := Inspect(cache, "state", srcs); err != nil || len(sts) != 0 {
		t.Fatalf("no index yet: %+v %v", sts, err)
	}
	ix := builtIndex(t, cache, srcs)
	mx, err := OpenMasked(cache, "state", "k", sanitize.NewRedactor(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer mx.Close()
	if _, err := mx.Update(context.Background(), srcs[:2]); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(cache, "other-state", "raw")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cache, "unrelated"), "keep me")

	before := snapshotTree(t, cache)
	sts, err := Inspect(cache, "state", srcs)
	if err != nil || len(sts) != 2 {
		t.Fatalf("%+v %v", sts, err)
	}
	raw, masked := sts[0], sts[1]
	var total int64
	for _, s := range srcs {
		fi, _ := os.Stat(s.Path)
		total += fi.Size()
	}
	if raw.Masked || !raw.Built || raw.Sources != 4 || raw.Messages == 0 || raw.Bytes != total || raw.Changed != 0 ||
		raw.Size == 0 || raw.Updated.IsZero() || raw.Corrupt != "" || raw.Dir != ix.Dir() {
		t.Fatalf("raw: %+v", raw)
	}
	if !masked.Masked || masked.Sources != 2 || masked.Changed != -1 || masked.Dir != mx.Dir() {
		t.Fatalf("masked: %+v", masked)
	}
	// Messages: what the scan of every message finds.
	all := scanHits(t, srcs, search.Query{Pattern: "(?s).*", Regex: true}, Filter{IncludeTools: true}, nil)
	if raw.Messages != len(all) {
		t.Errorf("messages %d, the scan reads %d", raw.Messages, len(all))
	}
	appendFile(t, srcs[1].Path, lines(rand.New(rand.NewPCG(1, 2)), 2))
	os.Remove(srcs[3].Path)
	if sts, _ = Inspect(cache, "state", srcs[:3]); sts[0].Changed != 2 {
		t.Errorf("after an append and a removal: %+v", sts[0])
	}
	if after := snapshotTree(t, cache); after != before {
		t.Errorf("Inspect wrote:\n%s\nwas\n%s", after, before)
	}

	removed, err := Remove(context.Background(), cache, "state")
	if err != nil || len(removed) != 2 {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if _, err := os.Lstat(filepath.Join(cache, "state")); !os.IsNotExist(err) {
		t.Errorf("the state's dir is left: %v", err)
	}
	for _, keep := range []string{other, filepath.Join(cache, "unrelated")} {
		if _, err := os.Lstat(keep); err != nil {
			t.Errorf("removed what is not the state's: %v", err)
		}
	}
	if removed, err := Remove(context.Background(), cache, "state"); err != nil || len(removed) != 0 {
		t.Errorf("removing nothing: %v %v", removed, err)
	}
	// An index removed while a handle is open: its next update builds it
	// anew (a long-lived process's next search; it used to fail, and every
	// search scanned), from nothing it had before: it never answers wrong.
	if st, err := ix.Update(context.Background(), srcs[:3]); err != nil || st.Whole != 3 {
		t.Errorf("an update of a removed index: %v %v, want it built anew", st, err)
	}
	sameAsScan(t, ix, srcs[:3])
}

// Remove waits for an update under way (the index's lock), and gives up
// with ErrBusy when its context ends first.
func TestRemoveTakesTheLock(t *testing.T) {
	cache := t.TempDir()
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	unlock, err := ix.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Remove(ctx, cache, "state"); err != ErrBusy {
		t.Fatalf("remove under a writer's lock: %v", err)
	}
	if _, err := os.Stat(ix.Dir()); err != nil {
		t.Fatalf("removed under the lock: %v", err)
	}
	unlock()
	if _, err := Remove(context.Background(), cache, "state"); err != nil {
		t.Fatal(err)
	}
}

// Health finds nothing wrong with a fine index or none; it finds a cache
// dir that is another user's or a file, an unwritable one (not as root),
// and a corrupt index that cannot be rebuilt there.
func TestHealth(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache", "sessions", "index")
	if p := Health(cache, "state"); len(p) != 0 {
		t.Fatalf("no index yet: %+v", p)
	}
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), bigWorld(t, t.TempDir(), 2, 10, 1)); err != nil {
		t.Fatal(err)
	}
	if p := Health(cache, "state"); len(p) != 0 {
		t.Fatalf("a fine index: %+v", p)
	}
	// Corrupt but writable: the next search rebuilds it, nothing to say.
	seg, _ := filepath.Glob(filepath.Join(ix.Dir(), "seg-*"))
	os.WriteFile(seg[0], []byte("garbage"), 0o600)
	if p := Health(cache, "state"); len(p) != 0 {
		t.Fatalf("a corrupt index it can rebuild: %+v", p)
	}
	if os.Getuid() == 0 {
		// root may write anywhere, and may give a directory away.
		if err := os.Chown(filepath.Dir(ix.Dir()), 4242, 4242); err != nil {
			t.Fatal(err)
		}
		p := Health(cache, "state")
		if len(p) != 1 || p[0].Check != "index.owner" || p[0].Path != filepath.Dir(ix.Dir()) {
			t.Fatalf("another user's dir: %+v", p)
		}
		os.Chown(filepath.Dir(ix.Dir()), 0, 0)
	} else {
		os.Chmod(ix.Dir(), 0o500)
		defer os.Chmod(ix.Dir(), 0o700)
		p := Health(cache, "state")
		if len(p) != 2 || p[0].Check != "index.unwritable" || p[1].Check != "index.corrupt" {
			t.Fatalf("a read-only index dir holding a corrupt index: %+v", p)
		}
		os.Chmod(ix.Dir(), 0o700)
	}
	// The cache dir is a file: nothing can be kept.
	file := filepath.Join(t.TempDir(), "cachefile")
	writeFile(t, file, "x")
	if p := Health(filepath.Join(file, "index"), "state"); len(p) != 1 || p[0].Check != "index.owner" || p[0].Path != file {
		t.Fatalf("a file where the cache dir would be: %+v", p)
	}
}

// snapshotTree lists every path under dir with its size and mtime.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var out string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out += p + " " + fi.Mode().String() + " " + fi.ModTime().String() + "\n"
			if fi.Mode().IsRegular() {
				out += " size " + string(rune('0'+fi.Size()%10)) + "\n"
			}
		}
		return nil
	})
	return out
}

// An index a long-lived process holds open while `sessions index --remove`
// removes its directory: its next update makes the directory again and
// builds it anew (it used to fail at the lock, so every search scanned
// until the process restarted); and when another process has removed it
// and built a new one there first, nothing the open index had mapped of
// the old one is read as the new one's (its segments have the same
// numbers): its answers are the new sources' as the scan gives them.
func TestRemovedUnderAnOpenIndex(t *testing.T) {
	cache := t.TempDir()
	a := bigWorld(t, t.TempDir(), 4, 30, 3)
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	sameAsScan(t, ix, a)

	if _, err := Remove(context.Background(), cache, "state"); err != nil {
		t.Fatal(err)
	}
	if busy, err := ix.Busy(); busy || err != nil {
		t.Fatalf("busy after its removal: %v %v", busy, err)
	}
	st, err := ix.Update(context.Background(), a)
	if err != nil || st.Whole != len(a) {
		t.Fatalf("update after its removal: %v %v", st, err)
	}
	sameAsScan(t, ix, a)

	if _, err := Remove(context.Background(), cache, "state"); err != nil {
		t.Fatal(err)
	}
	b := bigWorld(t, t.TempDir(), 4, 30, 4)
	other, err := Open(cache, "state") // another process
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Update(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	sameAsScan(t, ix, b)
}

// A status counting the messages while another process merges the
// segments it loaded, and removes them, counts from the merged ones: the
// count of a fresh status, not a corrupt index.
func TestInspectWhileAMergeRemovesSegments(t *testing.T) {
	cache := t.TempDir()
	srcs := bigWorld(t, t.TempDir(), 6, 30, 5)
	ix := builtIndexOf(t, cache, srcs, 2000) // several segments
	before, _ := filepath.Glob(filepath.Join(ix.Dir(), "seg-*"))
	merged := false
	testHookCounting = func() {
		if merged {
			return
		}
		merged = true
		appendFile(t, srcs[2].Path, lines(rand.New(rand.NewPCG(4, 4)), 3))
		ix.maxSegs = 1
		if st, err := ix.Update(context.Background(), srcs); err != nil || !st.Merged {
			t.Fatal(st, err)
		}
	}
	defer func() { testHookCounting = nil }()
	sts, err := Inspect(cache, "state", srcs)
	if err != nil || len(sts) != 1 || !merged {
		t.Fatalf("%+v %v (merged %v)", sts, err, merged)
	}
	after, _ := filepath.Glob(filepath.Join(ix.Dir(), "seg-*"))
	for _, p := range before {
		if slices.Contains(after, p) {
			t.Fatalf("segment %s not removed by the merge: the test tests nothing", p)
		}
	}
	testHookCounting = nil
	fresh, _ := Inspect(cache, "state", srcs)
	if sts[0].Corrupt != "" || sts[0].Messages != fresh[0].Messages || fresh[0].Messages == 0 {
		t.Fatalf("during a merge: %+v; after it: %+v", sts[0], fresh[0])
	}
}
