//go:build unix

// The cache's guarantees tested here (file modes and owner, a child
// killed mid-build, a full disk by RLIMIT_FSIZE) are Unix's.

package searchindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/search"
)

// bigWorld writes n transcripts of lines random lines each.
func bigWorld(t testing.TB, dir string, n, lineCount int, seed uint64) []search.Source {
	r := rand.New(rand.NewPCG(seed, 1))
	var srcs []search.Source
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("t%03d.jsonl", i))
		writeFile(t, p, lines(r, lineCount))
		srcs = append(srcs, search.Source{Path: p})
	}
	return srcs
}

// sameAsScan checks a few queries of every kind against the scan.
func sameAsScan(t *testing.T, ix *Index, srcs []search.Source) {
	t.Helper()
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs, 30, nil)
}

func TestModesAndOwner(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.MkdirAll(filepath.Join(cache, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	srcs := bigWorld(t, t.TempDir(), 3, 20, 1)
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(filepath.Join(cache, "state"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(ix.Dir())
	if err := checkOwner(foreign{fi}); err == nil {
		t.Error("a directory of another user was accepted")
	}
	// A link where the index's directory should be is refused.
	other := t.TempDir()
	if err := os.Symlink(other, filepath.Join(cache, "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(cache, "linked"), "x"); err == nil {
		t.Error("an index under a symlink was opened")
	}
}

// foreign is fi as if another user owned it.
type foreign struct{ fs.FileInfo }

func (f foreign) Sys() any {
	st := *f.FileInfo.Sys().(*syscall.Stat_t)
	st.Uid++
	return &st
}

// TestCorruptIsAnError: every way an index file can be damaged — torn,
// truncated, another version, any byte changed — is a *CorruptError from
// Candidates (and Update), never an answer; Reset and Update rebuild it. A
// byte of a segment's texts is the exception the format makes (its
// checksum leaves them to each block's own, so that an open does not read
// them): it is a *CorruptError when its block is read, and only then.
func TestCorruptIsAnError(t *testing.T) {
	srcs := bigWorld(t, t.TempDir(), 4, 40, 2)
	cache := t.TempDir()
	ix := builtIndexOf(t, cache, srcs, 2000) // several segments
	files, _ := filepath.Glob(filepath.Join(ix.Dir(), "*"))
	r := rand.New(rand.NewPCG(3, 3))
	q := search.Query{Pattern: "hello", IgnoreCase: true}
	want, _ := indexHits(t, ix, srcs, q, Filter{}, nil)
	for _, f := range files {
		if filepath.Base(f) == "lock" {
			continue
		}
		good, _ := os.ReadFile(f)
		damage := map[string][]byte{
			"truncated": good[:r.IntN(len(good))],
			"empty":     {},
			"version":   append(append([]byte{}, good[:7]...), append([]byte{good[7] ^ 3}, good[8:]...)...), // another version digit
		}
		for k := range 12 {
			b := append([]byte{}, good...)
			b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			damage[fmt.Sprint("byte", k)] = b
		}
		var l layout
		if strings.HasPrefix(filepath.Base(f), "seg-") {
			var err error
			if l, err = parseLayout(f, int64(len(good)), good[:headerSize], good[len(good)-trailerSize:]); err != nil {
				t.Fatal(err)
			}
			// and one byte of the postings, of the trigram table, of the
			// document table
			for _, at := range []uint64{l.postAt() + uint64(r.IntN(int(l.nPost))), l.tabAt() + uint64(r.IntN(int(l.nTris*triSize))), l.docsAt() + uint64(r.IntN(int(l.nDocs*docSize)))} {
				b := append([]byte{}, good...)
				b[at] ^= byte(1 + r.IntN(255))
				damage[fmt.Sprint("at", at)] = b
			}
		}
		for what, b := range damage {
			writeFile(t, f, string(b))
			fresh, _ := Open(cache, "state")
			_, err := fresh.Candidates(q, Filter{})
			at := differsAt(good, b)
			if len(b) == len(good) && at >= int(l.textsAt()) && at < int(l.blocksAt()) {
				if err != nil {
					t.Errorf("%s %s: a text block's byte: Candidates gave %v, want its answer", filepath.Base(f), what, err)
				}
				if bad := blocksThatFail(t, fresh, f); len(bad) != 1 {
					t.Errorf("%s %s: a text block's byte: %d blocks fail to read, want 1", filepath.Base(f), what, len(bad))
				}
				fresh.Close()
				continue
			}
			if len(b) == len(good) && at >= headerSize && at < int(l.textsAt()) {
				// A byte before the texts is found by the chunk it lies
				// in, when a reader reads it: a query that does not is
				// answered, and exactly.
				if err == nil {
					if got, _ := indexHits(t, fresh, srcs, q, Filter{}, nil); !slices.Equal(got, want) {
						t.Errorf("%s %s: a byte before the texts: %d hits, want %d", filepath.Base(f), what, len(got), len(want))
					}
				} else if !IsCorrupt(err) {
					t.Errorf("%s %s: Candidates gave %v, want a corrupt index or its answer", filepath.Base(f), what, err)
				}
				if bad := chunksThatFail(t, fresh, f); !slices.Equal(bad, []int{at / chunkSize}) {
					t.Errorf("%s %s: a byte before the texts at %d: chunks %v fail, want [%d]", filepath.Base(f), what, at, bad, at/chunkSize)
				}
				// and a merge, which reads every byte, finds it
				if _, err := openSegFile(fresh.Dir(), idOf(t, f)); !IsCorrupt(err) {
					t.Errorf("%s %s: a merge's open gave %v, want a corrupt index", filepath.Base(f), what, err)
				}
				fresh.Close()
				continue
			}
			if !IsCorrupt(err) {
				t.Errorf("%s %s: Candidates gave %v, want a corrupt index", filepath.Base(f), what, err)
			}
			if _, err := fresh.Update(context.Background(), srcs); !IsCorrupt(err) {
				t.Errorf("%s %s: Update gave %v, want a corrupt index", filepath.Base(f), what, err)
			}
			fresh.Close()
		}
		writeFile(t, f, string(good))
	}
	// Rebuilt after a reset.
	writeFile(t, files[0], "garbage")
	if err := ix.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	sameAsScan(t, ix, srcs)
}

// TestWritersInParallel: several updaters (each its own Index, as separate
// processes are: the lock is a file lock) and readers at once; readers
// never fail nor see a half-written index, and the end state is the scan's.
func TestWritersInParallel(t *testing.T) {
	dir := t.TempDir()
	srcs := bigWorld(t, dir, 6, 30, 4)
	cache := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := Open(cache, "state")
			if err != nil {
				errs <- err
				return
			}
			defer ix.Close()
			ix.segText, ix.maxSegs = 3000, 3
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range 6 {
				appendFile(t, srcs[r.IntN(len(srcs))].Path, lines(r, 2))
				if _, err := ix.Update(context.Background(), srcs); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	rg.Add(1)
	go func() {
		defer rg.Done()
		ix, _ := Open(cache, "state")
		defer ix.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ix.Candidates(search.Query{Pattern: "deploy"}, Filter{}); err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ix, _ := Open(cache, "state")
	defer ix.Close()
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	sameAsScan(t, ix, srcs)
}

// TestReadersDoNotWait: while another process holds the write lock,
// Candidates answers from the index on disk, and Update gives up with
// ErrBusy at the caller's deadline, changing nothing.
func TestReadersDoNotWait(t *testing.T) {
	srcs := bigWorld(t, t.TempDir(), 2, 20, 5)
	ix := builtIndex(t, t.TempDir(), srcs)
	held := flock.New(filepath.Join(ix.Dir(), "lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	if _, err := ix.Candidates(search.Query{Pattern: "hello"}, Filter{}); err != nil {
		t.Fatal(err)
	}
	appendFile(t, srcs[0].Path, `{"type":"message","id":"x","message":{"role":"user","content":"zqxbusy"}}`+"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ix.Update(ctx, srcs); !errors.Is(err, ErrBusy) {
		t.Fatalf("Update under a held lock: %v, want ErrBusy", err)
	}
	if res, _ := ix.Candidates(search.Query{Pattern: "zqxbusy"}, Filter{}); len(res.Sources) != 0 {
		t.Fatalf("a busy update changed the index: %v", res.Sources)
	}
}

// TestReadOnlyCache: an index dir that cannot be written is an error from
// Update (no panic), and the index on disk still answers.
func TestReadOnlyCache(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes read-only directories; the disk-full child of TestCrashAndDiskFull covers the write errors")
	}
	srcs := bigWorld(t, t.TempDir(), 2, 20, 6)
	ix := builtIndex(t, t.TempDir(), srcs)
	os.Chmod(ix.Dir(), 0o500)
	defer os.Chmod(ix.Dir(), 0o700)
	appendFile(t, srcs[0].Path, lines(rand.New(rand.NewPCG(1, 1)), 3))
	if _, err := ix.Update(context.Background(), srcs); err == nil {
		t.Fatal("an update of a read-only index succeeded")
	}
	if _, err := ix.Candidates(search.Query{Pattern: "hello"}, Filter{}); err != nil {
		t.Fatal(err)
	}
}

// The crash test's child: SEARCHINDEX_CHILD=crash updates the index and
// stops forever after its first segment (to be killed); =full updates it
// with files limited to a few KiB (a full disk: every write beyond fails).
func TestMain(m *testing.M) {
	switch os.Getenv("SEARCHINDEX_CHILD") {
	case "":
		os.Exit(m.Run())
	case "crash":
		testHookSegWritten = func() { fmt.Println("segment written"); select {} }
	case "crash-journaled":
		testHookJournaled = func() { fmt.Println("journaled"); select {} }
	case "full":
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: 8 << 10, Max: 8 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Println("setrlimit:", err)
			os.Exit(3)
		}
	}
	ix, err := Open(os.Getenv("SEARCHINDEX_CACHE"), "state")
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	ix.segText = 4000
	if n, err := strconv.Atoi(os.Getenv("SEARCHINDEX_MAXSEGS")); err == nil {
		ix.maxSegs = n
	}
	var srcs []search.Source
	paths, _ := filepath.Glob(filepath.Join(os.Getenv("SEARCHINDEX_STATE"), "*.jsonl"))
	for _, p := range paths {
		srcs = append(srcs, search.Source{Path: p})
	}
	_, err = ix.Update(context.Background(), srcs)
	fmt.Println("update:", err)
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func child(t *testing.T, mode, cache, state string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SEARCHINDEX_CHILD="+mode, "SEARCHINDEX_CACHE="+cache, "SEARCHINDEX_STATE="+state)
	return cmd
}

// TestCrashAndDiskFull: an update killed mid-build (after it wrote a
// segment, before its manifest), and one that runs out of disk, leave the
// index as it was before them: it answers as the scan did then, and the
// next update brings it up to date.
func TestCrashAndDiskFull(t *testing.T) {
	state := t.TempDir()
	srcs := bigWorld(t, state, 5, 30, 8)
	cache := t.TempDir()
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), srcs[:2]); err != nil {
		t.Fatal(err)
	}
	for i := range srcs {
		appendFile(t, srcs[i].Path, lines(rand.New(rand.NewPCG(uint64(i), 2)), 10))
	}

	// Killed mid-build.
	cmd := child(t, "crash", cache, state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "segment written") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q", buf[:n])
	}
	cmd.Process.Kill()
	cmd.Wait()
	segs, _ := filepath.Glob(filepath.Join(ix.Dir(), "seg-*"))
	if len(segs) < 2 {
		t.Fatalf("the killed update left %v: it wrote no segment", segs)
	}
	// The old index answers as the scan of what it indexed: the first two
	// sources, as they were (their appended lines are not candidates).
	res, err := ix.Candidates(search.Query{Pattern: "e"}, Filter{IncludeTools: true})
	if err != nil || !res.All {
		t.Fatalf("one-byte query: %v %v", res, err)
	}
	if _, err := ix.Candidates(search.Query{Pattern: "hello", IgnoreCase: true}, Filter{}); err != nil {
		t.Fatal(err)
	}

	// Out of disk.
	if b, err := child(t, "full", cache, state).CombinedOutput(); err == nil || !strings.Contains(string(b), "update:") {
		t.Fatalf("an update on a full disk: %v %s", err, b)
	} else {
		t.Logf("full disk: %s", strings.TrimSpace(string(b)))
	}
	st, err := ix.Update(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Appended != 2 || st.Whole != 3 {
		t.Fatalf("after the crash: %v (want the 2 indexed sources appended, 3 new)", st)
	}
	sameAsScan(t, ix, srcs)
	left, _ := filepath.Glob(filepath.Join(ix.Dir(), "*.tmp"))
	if len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

// TestCrashAfterAMergeJournaled: an update that merged the catch-ups'
// segments and journaled it, killed before it removed the segments it
// merged away, leaves the index it journaled: a reader opening it anew
// answers as the scan, and the next merge removes what it left.
func TestCrashAfterAMergeJournaled(t *testing.T) {
	state := t.TempDir()
	srcs := bigWorld(t, state, 5, 30, 11)
	cache := t.TempDir()
	ix, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText, ix.maxSegs = 4000, 100
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	// a message each (a segment per catch-up)
	appended := func(i int) string {
		return fmt.Sprintf(`{"type":"message","id":"c%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"catch-up %d"}}`+"\n", i, i)
	}
	for i := range 4 {
		appendFile(t, srcs[i].Path, appended(i))
		if st, err := ix.Update(context.Background(), srcs); err != nil || st.Appended != 1 {
			t.Fatal(st, err)
		}
	}
	before := slices.Clone(ix.man.segs)
	appendFile(t, srcs[4].Path, appended(4))
	cmd := child(t, "crash-journaled", cache, state)
	cmd.Env = append(cmd.Env, fmt.Sprintf("SEARCHINDEX_MAXSEGS=%d", len(before)))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	cmd.Process.Kill()
	cmd.Wait()
	if !strings.Contains(string(buf[:n]), "journaled") {
		t.Fatalf("child: %q", buf[:n])
	}
	// The merge is in the journal, the manifest as it was: the segments
	// the merge replaced are still on disk, no longer named.
	fresh, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	b, err := fresh.Backlog(srcs)
	if err != nil || b.Sources != 0 {
		t.Fatalf("after the crash: backlog %+v, %v", b, err)
	}
	after := slices.Clone(fresh.man.segs)
	if len(after) >= len(before) || fresh.jEnd == 0 {
		t.Fatalf("segments %v, then %v (journal %d bytes): no merge journaled", before, after, fresh.jEnd)
	}
	files, _ := filepath.Glob(filepath.Join(fresh.Dir(), "seg-*"))
	if len(files) <= len(after) {
		t.Fatalf("segments on disk %v, named %v: the killed update removed them", files, after)
	}
	sameAsScan(t, fresh, srcs)
	sameAsScan(t, ix, srcs) // the writer that held the old one reads the journal
	// The next merge removes them.
	fresh.maxSegs = len(after)
	for i := 0; ; i++ {
		appendFile(t, srcs[i%5].Path, appended(5+i))
		st, err := fresh.Update(context.Background(), srcs)
		if err != nil {
			t.Fatal(err)
		}
		if st.Merged {
			break
		}
	}
	files, _ = filepath.Glob(filepath.Join(fresh.Dir(), "seg-*"))
	if len(files) != len(fresh.man.segs) {
		t.Fatalf("segments on disk %v, named %v", files, fresh.man.segs)
	}
	sameOnDisk(t, fresh)
	sameAsScan(t, fresh, srcs)
}

// A line longer than search.DefaultMaxLine, which the scan skips with a
// warning, is recorded where the index meets it — in a file indexed
// whole, in lines appended, as an unterminated last line — so that the
// source is in Result.Scan (the caller scans it and gives the warning);
// it used to be passed over silently. A source without one is not.
func TestOversizeLineScanned(t *testing.T) {
	long := `{"type":"message","id":"big","message":{"role":"user","content":"` + strings.Repeat("x", search.DefaultMaxLine) + `"}}`
	short := `{"type":"message","id":"s","message":{"role":"user","content":"zqxover"}}` + "\n"
	dir := t.TempDir()
	srcs := []search.Source{{Path: filepath.Join(dir, "whole.jsonl")}, {Path: filepath.Join(dir, "appended.jsonl")},
		{Path: filepath.Join(dir, "tail.jsonl")}, {Path: filepath.Join(dir, "clean.jsonl")}}
	writeFile(t, srcs[0].Path, short+long+"\n"+short)
	writeFile(t, srcs[1].Path, short)
	writeFile(t, srcs[2].Path, short+long)
	writeFile(t, srcs[3].Path, short)
	ix := builtIndex(t, t.TempDir(), srcs)
	appendFile(t, srcs[1].Path, long+"\n"+short)
	if st, err := ix.Update(context.Background(), srcs); err != nil || st.Appended != 1 {
		t.Fatalf("%v %v", st, err)
	}
	res, err := ix.Candidates(search.Query{Pattern: "zqxover"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, true, false} {
		if id := SourceID(&srcs[i]); res.Scan[id] != want {
			t.Errorf("%s: scanned %v, want %v", srcs[i].Path, res.Scan[id], want)
		}
	}
}

// differsAt is the first index where a and b differ (-1: none).
func differsAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// chunksThatFail checks every chunk before the texts of the segment file
// f as ix mapped it and returns those whose check is a *CorruptError.
func chunksThatFail(t *testing.T, ix *Index, f string) []int {
	t.Helper()
	seg := mappedSeg(t, ix, f)
	var bad []int
	for k := range len(seg.checked) {
		if err := seg.check(k*chunkSize, 1); IsCorrupt(err) {
			bad = append(bad, k)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return bad
}

// mappedSeg is the segment of file f that ix mapped.
func mappedSeg(t *testing.T, ix *Index, f string) *segment {
	t.Helper()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.man == nil {
		if err := ix.load(); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range ix.segs {
		if segName(s.id) == filepath.Base(f) {
			return s
		}
	}
	t.Fatalf("%s is not mapped", filepath.Base(f))
	return nil
}

// idOf is the number of the segment file f.
func idOf(t *testing.T, f string) uint32 {
	t.Helper()
	var id uint32
	if _, err := fmt.Sscanf(filepath.Base(f), "seg-%08d", &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// blocksThatFail reads every text block of the segment file f as ix
// mapped it and returns those whose read is a *CorruptError (any other
// error fails the test).
func blocksThatFail(t *testing.T, ix *Index, f string) []int {
	t.Helper()
	seg := mappedSeg(t, ix, f)
	var bad []int
	for k := range seg.nBlocks() {
		off, clen, rlen, _ := seg.block(k)
		tc := textCursor{s: seg, k: -1}
		if _, err := tc.decode(k, seg.texts[off:off+uint64(clen)], rlen); IsCorrupt(err) {
			bad = append(bad, k)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return bad
}

// TestQueryChecksOnlyWhatItReads: a query checks the chunks of the bytes
// it reads, not the whole segment, so damage where no query of it reads
// leaves its answer exact, and a reader that reads there finds it.
func TestQueryChecksOnlyWhatItReads(t *testing.T) {
	dir := t.TempDir()
	srcs := bigWorld(t, dir, 40, 300, 5)
	rare := filepath.Join(dir, "rare.jsonl")
	writeFile(t, rare, `{"type":"message","id":"r1","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"say zqxrarezqx now"}}`+"\n")
	srcs = append(srcs, search.Source{Path: rare})
	cache := t.TempDir()
	ix := builtIndex(t, cache, srcs)
	q := search.Query{Pattern: "zqxrarezqx"}
	want, _ := indexHits(t, ix, srcs, q, Filter{}, nil)
	if len(want) != 1 {
		t.Fatalf("%d hits of the planted word, want 1", len(want))
	}
	files, _ := filepath.Glob(filepath.Join(ix.Dir(), "seg-*"))
	if len(files) != 1 {
		t.Fatalf("%d segments, want 1", len(files))
	}
	f := files[0]
	seg := mappedSeg(t, ix, f)
	var unread []int
	for k := range seg.checked {
		if !seg.checked[k].Load() {
			unread = append(unread, k)
		}
	}
	if len(seg.checked) < 4 || len(unread) < len(seg.checked)/2 {
		t.Fatalf("the query checked %d of %d chunks, want less than half", len(seg.checked)-len(unread), len(seg.checked))
	}
	good, _ := os.ReadFile(f)
	k := unread[len(unread)/2]
	// the middle of chunk k (the last is shorter: it ends at the table's end)
	covered := seg.tabAt + seg.nTris()*triSize
	b := append([]byte{}, good...)
	b[k*chunkSize+(min(covered, (k+1)*chunkSize)-k*chunkSize)/2] ^= 0x5a
	writeFile(t, f, string(b))
	fresh, err := Open(cache, "state")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if got, _ := indexHits(t, fresh, srcs, q, Filter{}, nil); !slices.Equal(got, want) {
		t.Errorf("after damage where it does not read: %q, want %q", got, want)
	}
	if bad := chunksThatFail(t, fresh, f); !slices.Equal(bad, []int{k}) {
		t.Errorf("chunks %v fail, want [%d]", bad, k)
	}
}
