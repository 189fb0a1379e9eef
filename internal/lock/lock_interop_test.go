//go:build interop

// Interop tests against the real OpenClaw 2026.1.30 (../shared/peer).
// Run: OPENCLAW_PEER=/path/to/openclaw-peer go test -tags interop ./internal/lock/
package lock

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// ---- store ----

const peerKey = "agent:main:main"

func writeInitialStore(t *testing.T, path string) {
	t.Helper()
	doc := fmt.Sprintf("{\n  %q: {\n    \"sessionId\": \"6f1c2a4e-2a51-4c1e-9d55-1f0c6f0b9a01\",\n    \"updatedAt\": %d\n  }\n}", peerKey, time.Now().UnixMilli())
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// goStoreIncrement is one read-modify-write of entry peerKey's "goCounter"
// under AcquireStore: re-read inside the lock, write a temp file (0600),
// rename it over the store.
// It returns the peerCounter it saw.
func goStoreIncrement(ctx context.Context, store string) (peerSeen int64, err error) {
	h, err := AcquireStore(ctx, store, Options{})
	if err != nil {
		return 0, err
	}
	defer h.Release()
	raw, err := os.ReadFile(store)
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return 0, fmt.Errorf("store not valid JSON inside the lock: %w", err)
	}
	entry, ok := doc[peerKey].(map[string]any)
	if !ok {
		return 0, fmt.Errorf("entry %s missing", peerKey)
	}
	if v, ok := entry["peerCounter"].(json.Number); ok {
		peerSeen, _ = v.Int64()
	}
	n := int64(0)
	if v, ok := entry["goCounter"].(json.Number); ok {
		n, _ = v.Int64()
	}
	entry["goCounter"] = n + 1
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return 0, err
	}
	tmp := fmt.Sprintf("%s.%d.%s.tmp", store, os.Getpid(), randHex(8))
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return 0, err
	}
	if err := h.Check(); err != nil {
		os.Remove(tmp)
		return 0, err
	}
	if err := os.Rename(tmp, store); err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return peerSeen, h.Release()
}

func readCounters(t *testing.T, store string) (peerCounter, goCounter int64) {
	t.Helper()
	raw, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("final store is not valid JSON: %v", err)
	}
	e := doc[peerKey]
	if v, ok := e["peerCounter"].(json.Number); ok {
		peerCounter, _ = v.Int64()
	}
	if v, ok := e["goCounter"].(json.Number); ok {
		goCounter, _ = v.Int64()
	}
	return
}

// (1) Two OpenClaw store-write processes (200 increments each) beside Go
// goroutines incrementing another field of the same entry: no lost update.
func TestInteropStoreNoLostUpdates(t *testing.T) {
	p := peertest.Peer(t)
	store := filepath.Join(t.TempDir(), "sessions.json")
	writeInitialStore(t, store)

	peers := []*peertest.Proc{
		peertest.Start(t, p, "store-write", "--store", store, "--key", peerKey, "--count", "200"),
		peertest.Start(t, p, "store-write", "--store", store, "--key", peerKey, "--count", "200"),
	}
	anyRunning := func() bool {
		for _, r := range peers {
			if r.Running() {
				return true
			}
		}
		return false
	}
	const gors, minPer = 3, 50
	var goCount, overlap atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, gors)
	start := time.Now()
	for range gors {
		wg.Go(func() {
			for i := 0; i < minPer || anyRunning(); i++ {
				seen, err := goStoreIncrement(context.Background(), store)
				if err != nil {
					errs <- err
					return
				}
				goCount.Add(1)
				if seen > 0 && seen < 400 { // between two peer updates
					overlap.Add(1)
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, r := range peers {
		res := r.Result(t)
		t.Logf("peer pid %d: ok=%d failed=%d p50=%vms max=%vms (ran %v)", res.PID, res.OK, res.Failed, res.P50Ms, res.MaxMs, r.Duration().Round(time.Millisecond))
	}
	pc, gc := readCounters(t, store)
	t.Logf("final: peerCounter=%d goCounter=%d (Go did %d increments, %d of them between two peer updates, 0<peerCounter<400) in %v",
		pc, gc, goCount.Load(), overlap.Load(), time.Since(start).Round(time.Millisecond))
	if pc != 400 {
		t.Errorf("peerCounter = %d, want 400 (lost OpenClaw updates)", pc)
	}
	if gc != goCount.Load() {
		t.Errorf("goCounter = %d, want %d (lost Go updates)", gc, goCount.Load())
	}
	if overlap.Load() == 0 {
		t.Error("no Go increment overlapped the peers' run; the test proved nothing")
	}
	if _, err := os.Stat(store + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
}

// startupTime runs an uncontended peer command once and returns its wall
// time: Node start-up plus one operation, which varies a lot with host load.
func startupTime(t *testing.T, p string, args ...string) time.Duration {
	t.Helper()
	r := peertest.Start(t, p, args...)
	r.Result(t)
	return r.Duration()
}

// (2) While we hold the store lock for 2 s, OpenClaw's store-write waits for
// it and then succeeds.
func TestInteropStorePeerWaitsForUs(t *testing.T) {
	p := peertest.Peer(t)
	dir := t.TempDir()
	scratch := filepath.Join(dir, "scratch.json")
	writeInitialStore(t, scratch)
	startup := startupTime(t, p, "store-write", "--store", scratch, "--key", peerKey, "--count", "1")

	store := filepath.Join(dir, "sessions.json")
	writeInitialStore(t, store)
	h, err := AcquireStore(context.Background(), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := peertest.Start(t, p, "store-write", "--store", store, "--key", peerKey, "--count", "1")
	// Hold for the peer's start-up, then 2 s more while it waits.
	time.Sleep(startup + 2*time.Second)
	if pc, _ := readCounters(t, store); pc != 0 {
		t.Fatalf("peer wrote while we held the lock (peerCounter=%d)", pc)
	}
	if err := h.Release(); err != nil {
		t.Fatalf("our lock was taken from us: %v", err)
	}
	res := r.Result(t)
	t.Logf("peer pid %d: ok=%d p50=%vms max=%vms (process ran %v; we held the lock for its start-up %v + 2s)",
		res.PID, res.OK, res.P50Ms, res.MaxMs, r.Duration().Round(time.Millisecond), startup.Round(time.Millisecond))
	if res.OK != 1 || res.MaxMs < 1000 {
		t.Errorf("peer did not wait for our lock: %+v", res)
	}
	if pc, _ := readCounters(t, store); pc != 1 {
		t.Errorf("peerCounter = %d, want 1", pc)
	}
}

// ---- transcript ----

type piMessage struct {
	Role      string      `json:"role"`
	Content   []piContent `json:"content"`
	Timestamp int64       `json:"timestamp"`
}

type piContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type piEntry struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	ParentID  *string   `json:"parentId"`
	Timestamp string    `json:"timestamp"`
	Message   piMessage `json:"message"`
}

// Lock-loss counters: a lock found gone right before the write (we start
// over), or gone at release after a checked write (benign: the other writer
// started after our write).
var lostBeforeWrite, lostAfterWrite atomic.Int64

// goTranscriptAppend appends one pi-format assistant message under
// AcquireTranscript, with parentId = the last entry's id, in one write.
func goTranscriptAppend(ctx context.Context, file string) error {
	for {
		done, err := tryTranscriptAppend(ctx, file)
		if err != nil || done {
			return err
		}
		lostBeforeWrite.Add(1)
	}
}

func tryTranscriptAppend(ctx context.Context, file string) (bool, error) {
	h, err := AcquireTranscript(ctx, file, Options{})
	if err != nil {
		return false, err
	}
	defer h.Release()
	raw, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	ids := map[string]bool{}
	var last *string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type == "session" || e.ID == "" {
			continue
		}
		ids[e.ID] = true
		id := e.ID
		last = &id
	}
	id := randHex(4)
	for ids[id] {
		id = randHex(4)
	}
	now := time.Now()
	line, err := json.Marshal(piEntry{
		Type: "message", ID: id, ParentID: last, Timestamp: now.UTC().Format(isoMillis),
		Message: piMessage{Role: "assistant", Content: []piContent{{Type: "text", Text: "go append"}}, Timestamp: now.UnixMilli()},
	})
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := h.Check(); err != nil {
		if errors.Is(err, ErrLockLost) {
			return false, nil
		}
		return false, err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return false, err
	}
	if err := h.Release(); errors.Is(err, ErrLockLost) {
		lostAfterWrite.Add(1)
	} else if err != nil {
		return false, err
	}
	return true, nil
}

func init() {
	extraModes["pi-append"] = func() error {
		n, _ := strconv.Atoi(os.Getenv("LOCKTEST_N"))
		for range n {
			if err := goTranscriptAppend(context.Background(), os.Getenv("LOCKTEST_PATH")); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "go child appender: lock lost before write %d, after write %d\n", lostBeforeWrite.Load(), lostAfterWrite.Load())
		return nil
	}
}

func writeHeader(t *testing.T, file string) {
	t.Helper()
	h := fmt.Sprintf(`{"type":"session","version":3,"id":"0b7e6a52-3c1d-4f7a-9e0b-2d4c6e8f1a3b","timestamp":%q,"cwd":%q}`+"\n",
		time.Now().UTC().Format(isoMillis), filepath.Dir(file))
	if err := os.WriteFile(file, []byte(h), 0o600); err != nil {
		t.Fatal(err)
	}
}

// (3) One OpenClaw transcript-append (300) beside two Go appenders (300 each:
// one goroutine here, one child process): one linear chain of 900 messages.
func TestInteropTranscriptLinearChain(t *testing.T) {
	p := peertest.Peer(t)
	file := filepath.Join(t.TempDir(), "0b7e6a52-3c1d-4f7a-9e0b-2d4c6e8f1a3b.jsonl")
	writeHeader(t, file)

	start := time.Now()
	r := peertest.Start(t, p, "transcript-append", "--file", file, "--count", "300")
	child := childCmd("pi-append", "LOCKTEST_PATH="+file, "LOCKTEST_N=300")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	for range 300 {
		if err := goTranscriptAppend(context.Background(), file); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // spread over the peer's run
	}
	inProc := time.Since(start)
	if err := child.Wait(); err != nil {
		t.Fatalf("Go child appender: %v", err)
	}
	childDur := time.Since(start)
	res := r.Result(t)
	t.Logf("peer pid %d: ok=%d p50=%vms max=%vms (ran %v); Go in-process appender done after %v, Go child done after %v",
		res.PID, res.OK, res.P50Ms, res.MaxMs, r.Duration().Round(time.Millisecond), inProc.Round(time.Millisecond), childDur.Round(time.Millisecond))

	switches, prev := 0, ""
	for _, l := range strings.Split(readString(t, file), "\n") {
		who := ""
		switch {
		case strings.Contains(l, `"text":"go append"`):
			who = "go"
		case strings.Contains(l, `"text":"peer append`):
			who = "peer"
		default:
			continue
		}
		if prev != "" && who != prev {
			switches++
		}
		prev = who
	}
	t.Logf("file order switches between OpenClaw and Go writers: %d; in-process Go appender: lock lost before write %d (retried), after write %d",
		switches, lostBeforeWrite.Load(), lostAfterWrite.Load())
	if switches < 2 {
		// Happens on a heavily loaded host: the peer re-takes the lock at
		// once after releasing it while our appenders sleep in back-off.
		t.Log("WARNING: OpenClaw and Go appends did not interleave in this run; only the final chain was checked")
	}

	out, err := peertest.TranscriptCheck(p, file, 900)
	t.Logf("transcript-check: %s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// (4) While we hold the transcript lock for 2 s, OpenClaw's transcript-append
// waits (backing off) and then succeeds; it does not evict our lock.
func TestInteropTranscriptPeerWaitsForUs(t *testing.T) {
	p := peertest.Peer(t)
	dir := t.TempDir()
	scratch := filepath.Join(dir, "scratch.jsonl")
	writeHeader(t, scratch)
	startup := startupTime(t, p, "transcript-append", "--file", scratch, "--count", "1")

	file := filepath.Join(dir, "s.jsonl")
	writeHeader(t, file)
	h, err := AcquireTranscript(context.Background(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := peertest.Start(t, p, "transcript-append", "--file", file, "--count", "1")
	time.Sleep(startup + 2*time.Second)
	if err := h.Release(); err != nil {
		t.Fatalf("our transcript lock was taken from us: %v", err)
	}
	res := r.Result(t)
	t.Logf("peer pid %d: ok=%d p50=%vms max=%vms (we held the lock for its start-up %v + 2s)", res.PID, res.OK, res.P50Ms, res.MaxMs, startup.Round(time.Millisecond))
	if res.OK != 1 || res.MaxMs < 1000 {
		t.Errorf("peer did not wait for our lock: %+v", res)
	}
}

// (5) Our payloads are byte-identical to what Node's JSON.stringify produces.
func TestInteropPayloadBytesMatchNode(t *testing.T) {
	p := peertest.Peer(t)
	node, _ := peertest.Paths(t, p)
	const pid, ms = 4242, int64(1795236048358)
	js := `const [pid, ms] = process.argv.slice(1).map(Number);
process.stdout.write(JSON.stringify({ pid, startedAt: ms }) + "\n" + JSON.stringify({ pid, createdAt: new Date(ms).toISOString() }, null, 2));`
	got, err := exec.Command(node, "-e", js, strconv.Itoa(pid), strconv.FormatInt(ms, 10)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := string(storePayload(pid, time.UnixMilli(ms))) + "\n" + string(transcriptPayload(pid, time.UnixMilli(ms)))
	if string(got) != want {
		t.Fatalf("node %q != go %q", got, want)
	}
}
