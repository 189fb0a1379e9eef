package lock

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/testutil"
)

// Child-process modes: the test binary re-executes itself with
// LOCKTEST_MODE set (see TestMain).
const envMode = "LOCKTEST_MODE"

// extraModes are child modes registered by other test files (interop).
var extraModes = map[string]func() error{}

func TestMain(m *testing.M) {
	switch os.Getenv(envMode) {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Exit(0)
	case "sleep":
		// Stay alive until the parent closes stdin (or 60 s pass).
		done := make(chan struct{})
		go func() { _, _ = bufio.NewReader(os.Stdin).ReadByte(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
		}
		os.Exit(0)
	case "store-incr":
		n, _ := strconv.Atoi(os.Getenv("LOCKTEST_N"))
		if err := incrementStore(os.Getenv("LOCKTEST_PATH"), n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "transcript-append":
		n, _ := strconv.Atoi(os.Getenv("LOCKTEST_N"))
		if err := appendTranscript(os.Getenv("LOCKTEST_PATH"), os.Getenv("LOCKTEST_TAG"), n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	default:
		fn := extraModes[os.Getenv(envMode)]
		if fn == nil {
			fmt.Fprintln(os.Stderr, "unknown", envMode)
			os.Exit(2)
		}
		if err := fn(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// incrementStore does n read-modify-write increments of the integer in path
// under AcquireStore, with a pause inside the critical section to widen the
// race window.
func incrementStore(path string, n int) error {
	for range n {
		h, err := AcquireStore(context.Background(), path, Options{Timeout: 30 * time.Second})
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		v, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
		time.Sleep(200 * time.Microsecond)
		if err := os.WriteFile(path, []byte(strconv.Itoa(v+1)), 0o600); err != nil {
			return err
		}
		if err := h.Release(); err != nil {
			return err
		}
	}
	return nil
}

// appendTranscript appends n lines "<seq> <tag> <i>" under AcquireTranscript,
// where seq is the number of lines already in the file. Each line is written
// in two write calls so that broken exclusion shows up as interleaving.
func appendTranscript(path, tag string, n int) error {
	for i := range n {
		h, err := AcquireTranscript(context.Background(), path, Options{Timeout: 30 * time.Second})
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		seq := bytes.Count(raw, []byte("\n"))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(f, "%d %s ", seq, tag)
		time.Sleep(100 * time.Microsecond)
		_, _ = fmt.Fprintf(f, "%d\n", i)
		f.Close()
		if err := h.Release(); err != nil {
			return err
		}
	}
	return nil
}

func childCmd(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{envMode + "=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// deadPID returns the pid of a child that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := childCmd("exit")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if PIDAlive(pid) {
		t.Skipf("pid %d reused already", pid)
	}
	return pid
}

// livePID starts a child that stays alive until the test ends.
func livePID(t *testing.T) int {
	t.Helper()
	cmd := childCmd("sleep")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

func writeLock(t *testing.T, path, content string, age time.Duration) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		old := time.Now().Add(-age)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func storeLockJSON(pid int, at time.Time) string {
	return fmt.Sprintf(`{"pid":%d,"startedAt":%d}`, pid, at.UnixMilli())
}

func transcriptLockJSON(pid int, at time.Time) string {
	return fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", pid, at.UTC().Format(isoMillis))
}

func mustCode11(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("expected a lock timeout, got nil")
	}
	if c := apperr.CodeOf(err); c != apperr.CodeLock {
		t.Fatalf("exit code = %d, want 11 (err: %v)", c, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// ---- payloads ----

func TestPayloadsByteExact(t *testing.T) {
	dir := t.TempDir()
	pid := os.Getpid()
	fixed := time.UnixMilli(1795236048358) // 2026-11-21T04:40:48.358Z
	now := func() time.Time { return fixed }

	store := filepath.Join(dir, "sessions.json")
	h, err := AcquireStore(context.Background(), store, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, store+".lock"), fmt.Sprintf(`{"pid":%d,"startedAt":1795236048358}`, pid); got != want {
		t.Errorf("store payload = %q, want %q", got, want)
	}
	if h.Path() != store+".lock" || !h.Acquired().Equal(fixed) {
		t.Errorf("Path/Acquired = %s %v", h.Path(), h.Acquired())
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store + ".lock"); !os.IsNotExist(err) {
		t.Errorf("store lock not removed: %v", err)
	}

	tr := filepath.Join(dir, "abc.jsonl")
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 4, 41, 4, 404_000_000, time.UTC), "2026-11-21T04:41:04.404Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 2*3600)), "2026-01-02T01:04:05.000Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "2026-01-02T03:04:05.999Z"},
	} {
		h, err := AcquireTranscript(context.Background(), tr, Options{Now: func() time.Time { return tc.at }})
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"pid\": " + strconv.Itoa(pid) + ",\n  \"createdAt\": \"" + tc.want + "\"\n}"
		if got := readString(t, tr+".lock"); got != want {
			t.Errorf("transcript payload = %q, want %q", got, want)
		}
		if err := h.Release(); err != nil {
			t.Fatal(err)
		}
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("left behind: %s", e.Name())
	}
}

// The lock file must never be observed without its payload.
func TestLockNeverVisibleEmpty(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "sessions.json")
	tr := filepath.Join(dir, "t.jsonl")
	stop := make(chan struct{})
	var empties, reads int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range []string{store + ".lock", tr + ".lock"} {
				if b, err := os.ReadFile(p); err == nil {
					reads++
					if len(b) == 0 {
						empties++
					}
				}
			}
		}
	}()
	for range 300 {
		h, err := AcquireStore(context.Background(), store, Options{})
		if err != nil {
			t.Fatal(err)
		}
		h.Release()
		h, err = AcquireTranscript(context.Background(), tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		h.Release()
	}
	close(stop)
	wg.Wait()
	if empties > 0 {
		t.Fatalf("lock file seen empty %d times (of %d reads)", empties, reads)
	}
	t.Logf("%d successful reads of the lock files, none empty", reads)
}

// ---- store lock ----

func TestStoreStaleByMtime(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.json")
	// A live pid (ours) but mtime 31 s old: the payload is not trusted.
	writeLock(t, store+".lock", storeLockJSON(os.Getpid(), time.Now()), 31*time.Second)
	start := time.Now()
	h, err := AcquireStore(context.Background(), store, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if d := time.Since(start); d > time.Second {
		t.Errorf("stale lock evicted after %v, want at once", d)
	}
	if _, _, ok := parseStorePayload([]byte(readString(t, store+".lock"))); !ok {
		t.Error("lock does not hold our payload")
	}
}

func TestStoreGarbageOldEvicted(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.json")
	writeLock(t, store+".lock", "garbage{", 31*time.Second)
	h, err := AcquireStore(context.Background(), store, Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
}

func TestStoreDeadPIDEvicted(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.json")
	pid := deadPID(t)
	writeLock(t, store+".lock", storeLockJSON(pid, time.Now()), 0)
	start := time.Now()
	h, err := AcquireStore(context.Background(), store, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if d := time.Since(start); d > time.Second {
		t.Errorf("dead holder %d evicted after %v, want at once", pid, d)
	}
}

func TestStoreLivePIDTimesOut(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.json")
	pid := livePID(t)
	content := storeLockJSON(pid, time.Now())
	writeLock(t, store+".lock", content, 0)
	start := time.Now()
	_, err := AcquireStore(context.Background(), store, Options{Timeout: 300 * time.Millisecond})
	d := time.Since(start)
	mustCode11(t, err, "by pid "+strconv.Itoa(pid), store+".lock", "gave up after 300ms", "held ")
	if d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("gave up after %v, want ~300ms", d)
	}
	if got := readString(t, store+".lock"); got != content {
		t.Errorf("live lock was modified: %q", got)
	}
	t.Logf("message: %v", err)
}

func TestStoreEmptyAndGarbageYoungWaited(t *testing.T) {
	for _, content := range []string{"", "not json", `{"pid":"123"}`} {
		store := filepath.Join(t.TempDir(), "sessions.json")
		writeLock(t, store+".lock", content, 0)
		_, err := AcquireStore(context.Background(), store, Options{Timeout: 150 * time.Millisecond})
		mustCode11(t, err, "by pid unknown")
		if got := readString(t, store+".lock"); got != content {
			t.Errorf("young lock %q was modified: %q", content, got)
		}
	}
}

func TestStoreMissingDirCreated(t *testing.T) {
	store := filepath.Join(t.TempDir(), "a", "b", "sessions.json")
	h, err := AcquireStore(context.Background(), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	st, err := os.Stat(filepath.Dir(store))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v %v", st, err)
	}
}

func TestStoreNotReentrant(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.json")
	h, err := AcquireStore(context.Background(), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	_, err = AcquireStore(context.Background(), store, Options{Timeout: 100 * time.Millisecond})
	mustCode11(t, err, "by pid "+strconv.Itoa(os.Getpid()))
}

func TestReleaseKeepsReplacedLock(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "sessions.json")
	tr := filepath.Join(dir, "x.jsonl")
	for name, acquire := range map[string]func() (Held, error){
		"store":      func() (Held, error) { return AcquireStore(context.Background(), store, Options{}) },
		"transcript": func() (Held, error) { return AcquireTranscript(context.Background(), tr, Options{}) },
	} {
		t.Run(name, func(t *testing.T) {
			h, err := acquire()
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Check(); err != nil {
				t.Fatalf("Check on a held lock = %v", err)
			}
			// Someone (OpenClaw, judging ours stale) evicts it and takes its own.
			if err := os.Remove(h.Path()); err != nil {
				t.Fatal(err)
			}
			theirs := storeLockJSON(1, time.Now())
			writeLock(t, h.Path(), theirs, 0)
			if err := h.Check(); !errors.Is(err, ErrLockLost) {
				t.Fatalf("Check = %v, want ErrLockLost", err)
			}
			if err := h.Release(); !errors.Is(err, ErrLockLost) {
				t.Fatalf("Release = %v, want ErrLockLost", err)
			}
			if got := readString(t, h.Path()); got != theirs {
				t.Fatalf("their lock was touched: %q", got)
			}
			if err := h.Release(); err != nil {
				t.Fatalf("second Release = %v", err)
			}
			if err := h.Check(); err == nil {
				t.Fatal("Check after Release = nil")
			}
			os.Remove(h.Path())

			// Lock removed under us.
			h, err = acquire()
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(h.Path())
			if err := h.Release(); !errors.Is(err, ErrLockLost) {
				t.Fatalf("Release = %v, want ErrLockLost", err)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	dir := t.TempDir()
	pid := livePID(t)
	store := filepath.Join(dir, "sessions.json")
	tr := filepath.Join(dir, "x.jsonl")
	writeLock(t, store+".lock", storeLockJSON(pid, time.Now()), 0)
	writeLock(t, tr+".lock", transcriptLockJSON(pid, time.Now()), 0)
	for name, acquire := range map[string]func(context.Context) (Held, error){
		"store": func(ctx context.Context) (Held, error) {
			return AcquireStore(ctx, store, Options{Timeout: 5 * time.Second})
		},
		"transcript": func(ctx context.Context) (Held, error) {
			return AcquireTranscript(ctx, tr, Options{Timeout: 5 * time.Second})
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := acquire(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: cancel honoured after %v", name, d)
		}
		cancel()
	}
}

func TestStoreManyGoroutinesAndProcesses(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "counter")
	const procs, perProc, gors, perGor = 4, 50, 8, 25
	var cmds []*exec.Cmd
	for range procs {
		cmd := childCmd("store-incr", "LOCKTEST_PATH="+counter, "LOCKTEST_N="+strconv.Itoa(perProc))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, gors)
	for range gors {
		wg.Go(func() { errs <- incrementStore(counter, perGor) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	want := procs*perProc + gors*perGor
	if got := readString(t, counter); got != strconv.Itoa(want) {
		t.Fatalf("counter = %s, want %d (lost updates)", got, want)
	}
	t.Logf("%d increments by %d processes + %d goroutines in %v, none lost", want, procs, gors, time.Since(start).Round(time.Millisecond))
}

// ---- transcript lock ----

func TestTranscriptDeadPIDEvicted(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "x.jsonl")
	writeLock(t, tr+".lock", transcriptLockJSON(deadPID(t), time.Now()), 0)
	start := time.Now()
	h, err := AcquireTranscript(context.Background(), tr, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if d := time.Since(start); d > time.Second {
		t.Errorf("evicted after %v", d)
	}
}

func TestTranscriptLivePIDTimesOut(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "x.jsonl")
	pid := livePID(t)
	content := transcriptLockJSON(pid, time.Now())
	writeLock(t, tr+".lock", content, 0)
	start := time.Now()
	_, err := AcquireTranscript(context.Background(), tr, Options{Timeout: 300 * time.Millisecond})
	d := time.Since(start)
	mustCode11(t, err)
	if want := fmt.Sprintf("session file locked (timeout 300ms): pid=%d %s.lock", pid, tr); err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("gave up after %v", d)
	}
	if got := readString(t, tr+".lock"); got != content {
		t.Errorf("live lock modified: %q", got)
	}
}

func TestTranscriptEmptyYoungWaitedOldEvicted(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "x.jsonl")
	writeLock(t, tr+".lock", "", 0)
	_, err := AcquireTranscript(context.Background(), tr, Options{Timeout: 300 * time.Millisecond})
	mustCode11(t, err, "session file locked (timeout 300ms): unknown "+tr+".lock")
	if st, err := os.Stat(tr + ".lock"); err != nil || st.Size() != 0 {
		t.Fatalf("empty young lock was touched: %v %v", st, err)
	}
	// Older than EmptyGrace: a crashed writer's; evicted.
	writeLock(t, tr+".lock", "", EmptyGrace+5*time.Second)
	h, err := AcquireTranscript(context.Background(), tr, Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
}

func TestTranscriptStaleRules(t *testing.T) {
	me := os.Getpid()
	for _, tc := range []struct {
		name    string
		content string
		evict   bool
	}{
		{"garbage", "garbage", true},
		{"pid-not-number", `{"pid":"1","createdAt":"2026-01-01T00:00:00.000Z"}`, true},
		{"no-createdAt", fmt.Sprintf(`{"pid":%d}`, me), true},
		{"createdAt-unparsable", fmt.Sprintf(`{"pid":%d,"createdAt":"yesterday"}`, me), true},
		{"createdAt-old", transcriptLockJSON(me, time.Now().Add(-31*time.Minute)), true},
		{"pid-zero", transcriptLockJSON(0, time.Now()), true},
		{"live-fresh", transcriptLockJSON(me, time.Now()), false},
		{"live-compact", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, me, time.Now().UTC().Format(isoMillis)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := filepath.Join(t.TempDir(), "x.jsonl")
			writeLock(t, tr+".lock", tc.content, 0)
			h, err := AcquireTranscript(context.Background(), tr, Options{Timeout: 200 * time.Millisecond})
			if tc.evict {
				if err != nil {
					t.Fatalf("not evicted: %v", err)
				}
				h.Release()
				return
			}
			mustCode11(t, err, fmt.Sprintf("pid=%d", me))
		})
	}
}

func TestTranscriptRealpathDir(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	h, err := AcquireTranscript(context.Background(), filepath.Join("link", "s.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	realDir, _ := filepath.EvalSymlinks(real)
	if want := filepath.Join(realDir, "s.jsonl.lock"); h.Path() != want {
		t.Fatalf("lock path = %s, want %s", h.Path(), want)
	}
	// Missing directory: created, lock path unresolved below it.
	h2, err := AcquireTranscript(context.Background(), filepath.Join(dir, "new", "s.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h2.Release()
}

func TestTranscriptManyGoroutinesAndProcesses(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	const procs, perProc, gors, perGor = 3, 30, 4, 30
	var cmds []*exec.Cmd
	for i := range procs {
		cmd := childCmd("transcript-append", "LOCKTEST_PATH="+tr, "LOCKTEST_N="+strconv.Itoa(perProc), "LOCKTEST_TAG=p"+strconv.Itoa(i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, gors)
	for i := range gors {
		wg.Go(func() { errs <- appendTranscript(tr, "g"+strconv.Itoa(i), perGor) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(readString(t, tr), "\n"), "\n")
	want := procs*perProc + gors*perGor
	if len(lines) != want {
		t.Fatalf("%d lines, want %d", len(lines), want)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != strconv.Itoa(i) {
			t.Fatalf("line %d = %q: interleaved or lost exclusion", i, l)
		}
	}
	t.Logf("%d appends by %d processes + %d goroutines in %v, no interleaving", want, procs, gors, time.Since(start).Round(time.Millisecond))
}

// ---- inspect ----

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "sessions.json")
	tr := filepath.Join(dir, "x.jsonl")
	if hi, err := InspectStore(store); hi != nil || err != nil {
		t.Fatalf("InspectStore unlocked = %v, %v", hi, err)
	}
	if hi, err := InspectTranscript(tr); hi != nil || err != nil {
		t.Fatalf("InspectTranscript unlocked = %v, %v", hi, err)
	}
	hs, err := AcquireStore(context.Background(), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Release()
	ht, err := AcquireTranscript(context.Background(), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Release()
	for _, f := range []func() (*HolderInfo, error){
		func() (*HolderInfo, error) { return InspectStore(store) },
		func() (*HolderInfo, error) { return InspectTranscript(tr) },
	} {
		hi, err := f()
		if err != nil || hi == nil {
			t.Fatalf("inspect = %v, %v", hi, err)
		}
		if hi.PID != os.Getpid() || !hi.Alive || hi.Stale || time.Since(hi.Since) > 5*time.Second || hi.Raw == "" {
			t.Errorf("inspect = %+v", hi)
		}
	}
	// A dead, old store lock.
	hs.Release()
	pid := deadPID(t)
	writeLock(t, store+".lock", storeLockJSON(pid, time.Now().Add(-time.Minute)), time.Minute)
	hi, err := InspectStore(store)
	if err != nil || hi.PID != pid || hi.Alive || !hi.Stale {
		t.Errorf("inspect dead = %+v, %v", hi, err)
	}
	// Garbage transcript lock: stale, pid unknown.
	ht.Release()
	writeLock(t, tr+".lock", "junk", 0)
	hi, err = InspectTranscript(tr)
	if err != nil || hi.PID != 0 || hi.Alive || !hi.Stale || hi.Raw != "junk" {
		t.Errorf("inspect garbage = %+v, %v", hi, err)
	}
}

// ---- pid ----

func TestPIDAlive(t *testing.T) {
	if !PIDAlive(os.Getpid()) {
		t.Error("own pid not alive")
	}
	if !PIDAlive(1) { // EPERM when not root: still alive
		t.Error("pid 1 not alive")
	}
	if PIDAlive(0) || PIDAlive(-1) {
		t.Error("pid <= 0 alive")
	}
	if pid := deadPID(t); PIDAlive(pid) {
		t.Errorf("dead pid %d alive", pid)
	}
}

// ---- flock ----

func TestFlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	if locked, err := IsLocked(path); locked || err != nil {
		t.Fatalf("IsLocked missing = %v, %v", locked, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("IsLocked created the file")
	}
	a, b := NewFlock(path), NewFlock(path)
	if ok, err := a.TryLock(); !ok || err != nil {
		t.Fatalf("a.TryLock = %v, %v", ok, err)
	}
	if ok, err := b.TryLock(); ok || err != nil {
		t.Fatalf("b.TryLock = %v, %v (want false)", ok, err)
	}
	if locked, err := IsLocked(path); !locked || err != nil {
		t.Fatalf("IsLocked held = %v, %v", locked, err)
	}
	if pid := FlockHolder(path); runtime.GOOS == "linux" && pid != os.Getpid() {
		t.Errorf("FlockHolder = %d, want %d", pid, os.Getpid())
	}
	err := b.Lock(context.Background(), 100*time.Millisecond)
	mustCode11(t, err, path, "gave up after 100ms")
	t.Logf("message: %v", err)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := b.Lock(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock ctx = %v", err)
	}

	time.AfterFunc(100*time.Millisecond, func() { a.Unlock() })
	if err := b.Lock(context.Background(), 2*time.Second); err != nil {
		t.Fatalf("b.Lock after a.Unlock = %v", err)
	}
	if ok, _ := a.TryLock(); ok {
		t.Fatal("a got the lock b holds")
	}
	if err := b.Unlock(); err != nil {
		t.Fatal(err)
	}
	if locked, err := IsLocked(path); locked || err != nil {
		t.Fatalf("IsLocked after unlock = %v, %v", locked, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("flock file must stay on disk")
	}
}

func TestFlockOtherProcessDies(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	path := filepath.Join(t.TempDir(), "run.lock")
	cmd := exec.Command("flock", "-x", path, "sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if locked, _ := IsLocked(path); locked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("flock(1) holder never seen")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if pid := FlockHolder(path); runtime.GOOS == "linux" && pid != cmd.Process.Pid {
		t.Errorf("FlockHolder = %d, holder pid %d", pid, cmd.Process.Pid)
	}
	_ = cmd.Wait()
	if locked, err := IsLocked(path); locked || err != nil {
		t.Fatalf("IsLocked after holder exit = %v, %v", locked, err)
	}
}

// ---- benchmark ----

func BenchmarkAcquireReleaseStore(b *testing.B) {
	store := filepath.Join(b.TempDir(), "sessions.json")
	ctx := context.Background()
	for b.Loop() {
		h, err := AcquireStore(ctx, store, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAcquireReleaseTranscript(b *testing.B) {
	tr := filepath.Join(b.TempDir(), "x.jsonl")
	ctx := context.Background()
	for b.Loop() {
		h, err := AcquireTranscript(ctx, tr, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

// A dangling symlink at the lock name blocks creation like a lock file; it
// must be waited on (not spun on) and evicted once old.
func TestDanglingSymlinkLock(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "sessions.json")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), store+".lock"); err != nil {
		t.Fatal(err)
	}
	_, err := AcquireStore(context.Background(), store, Options{Timeout: 100 * time.Millisecond})
	mustCode11(t, err, "by pid unknown")
	// Judged old through a fake clock: evicted.
	h, err := AcquireStore(context.Background(), store, Options{Timeout: time.Second, Now: func() time.Time { return time.Now().Add(time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
}

// A lock path that is a FIFO, a symlink or a directory is reported for what
// it is and never opened: opening a FIFO for reading would block forever.
func TestInspectIrregularLockPaths(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(p string) error{
		"fifo":      testutil.Mkfifo,
		"symlink":   func(p string) error { return os.Symlink(filepath.Join(dir, "elsewhere"), p) },
		"directory": func(p string) error { return os.Mkdir(p, 0o700) },
	}
	for kind, mk := range cases {
		t.Run(kind, func(t *testing.T) {
			store := filepath.Join(dir, kind+".json")
			if err := mk(store + ".lock"); err != nil {
				t.Fatal(err)
			}
			h, err := InspectStore(store)
			if err != nil || h == nil || h.Kind != kind || h.PID != 0 || h.Alive || h.Stale {
				t.Fatalf("InspectStore: %+v, %v; want Kind %s", h, err, kind)
			}
			tr := filepath.Join(dir, kind+".jsonl")
			if err := mk(tr + ".lock"); err != nil {
				t.Fatal(err)
			}
			h, err = InspectTranscript(tr)
			if err != nil || h == nil || h.Kind != kind {
				t.Fatalf("InspectTranscript: %+v, %v; want Kind %s", h, err, kind)
			}
			// Acquiring waits (the path blocks creation) and gives up; it
			// never hangs in open(2).
			_, err = AcquireStore(context.Background(), store, Options{Timeout: 50 * time.Millisecond})
			mustCode11(t, err, "by pid unknown")
		})
	}
}
