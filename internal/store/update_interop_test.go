//go:build interop

// Interop of store.Update with the real OpenClaw 2026.1.30 writer
// (../shared/peer). Run: make interop, or
// OPENCLAW_PEER=/path/to/openclaw-peer go test -tags interop ./internal/store/
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropUpdateNoLostUpdates: real OpenClaw writers (store-write, its
// updateSessionStore) and ours (Update in goroutines and in child
// processes) increment counters of one entry of a realistic store at the
// same time: ≥ 2,000 updates, none lost, the store valid at every read.
func TestInteropUpdateNoLostUpdates(t *testing.T) {
	p := peertest.Peer(t)
	path, _ := copyFixture(t)
	const key = "agent:main:main"
	const peers, peerN = 3, 300 // 900 OpenClaw updates
	const gor, gorN = 4, 200    // 800 in-process Go updates
	const procs, procN = 2, 200 // 400 Go updates from other processes
	exe, _ := os.Executable()

	stop := make(chan struct{})
	var reads, invalid atomic.Int64
	var monitor sync.WaitGroup
	monitor.Add(1)
	go func() { // the store must parse at every moment
		defer monitor.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				reads.Add(1)
				if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
					invalid.Add(1)
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()

	node, ocDir := peertest.Paths(t, p)
	script := filepath.Join(t.TempDir(), "store-write-waits.mjs")
	if err := os.WriteFile(script, []byte(storeWriteWaits), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, peers+gor+procs)
	var peerWaits []float64 // OpenClaw's wait for the lock, ms, every update of every process
	var mu sync.Mutex
	for i := 0; i < peers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			waits, err := openClawStoreWrites(node, ocDir, script, path, key, peerN)
			mu.Lock()
			peerWaits = append(peerWaits, waits...)
			mu.Unlock()
			if err != nil {
				errs <- err
			}
		}()
	}
	var held []time.Duration
	for i := 0; i < gor; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < gorN; j++ {
				res, err := Update(context.Background(), path, UpdateOptions{LockTimeout: 60 * time.Second}, incr(key, "goCounter"))
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				held = append(held, res.Timings.Held)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^TestInteropIncrHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SESSIONS_INCR_HELPER="+path, "SESSIONS_INCR_N="+strconv.Itoa(procN))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("helper: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	monitor.Wait()
	close(errs)
	slices.Sort(peerWaits)
	q := func(p float64) float64 {
		if len(peerWaits) == 0 {
			return 0
		}
		return peerWaits[min(len(peerWaits)-1, int(p*float64(len(peerWaits))))]
	}
	waitStats := fmt.Sprintf("OpenClaw's wait for the lock (its timeout 10 s), %d updates: p50 %.0f ms p90 %.0f ms p99 %.0f ms max %.0f ms",
		len(peerWaits), q(0.5), q(0.9), q(0.99), q(1))
	for err := range errs {
		t.Fatalf("%v\n%s", err, waitStats)
	}
	data, _ := os.ReadFile(path)
	entry := gjson.GetBytes(data, gjson.Escape(key))
	pc, gc, hc := entry.Get("peerCounter").Int(), entry.Get("goCounter").Int(), entry.Get("goProcCounter").Int()
	if pc != peers*peerN || gc != gor*gorN || hc != procs*procN {
		t.Errorf("lost updates: peerCounter %d/%d goCounter %d/%d goProcCounter %d/%d", pc, peers*peerN, gc, gor*gorN, hc, procs*procN)
	}
	if invalid.Load() != 0 {
		t.Errorf("%d of %d reads saw an invalid store", invalid.Load(), reads.Load())
	}
	slices.Sort(held)
	t.Logf("%d updates (%d OpenClaw, %d Go goroutines, %d Go processes) in %v: none lost; %d reads of the store during the run, %d invalid; our lock held p50 %v max %v; %s",
		pc+gc+hc, pc, gc, hc, elapsed.Round(time.Millisecond), reads.Load(), invalid.Load(), held[len(held)/2], held[len(held)-1], waitStats)
}

// storeWriteWaits is the peer's store-write (n increments of peerCounter
// through OpenClaw's own updateSessionStore, its lock included) that also
// records how long each update waited for the store lock: from the call
// to the moment its open(lock, "wx") succeeded. Arguments: OpenClaw's
// directory, the store, the key, n. It prints {"waits":[ms...]} and the
// first error, if any.
const storeWriteWaits = `import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [ocDir, store, key, n] = process.argv.slice(2);
const { updateSessionStore } = await import(pathToFileURL(path.join(ocDir, "dist/config/sessions/store.js")).href);
const open = fs.promises.open;
let got = 0;
fs.promises.open = async function (p, flags, ...rest) {
  const h = await open.call(this, p, flags, ...rest);
  if (flags === "wx" && String(p) === store + ".lock") got = performance.now();
  return h;
};
const waits = [];
let error;
for (let i = 0; i < Number(n) && !error; i++) {
  const t0 = performance.now();
  try {
    await updateSessionStore(store, (s) => {
      const e = s[key];
      if (!e) throw new Error("no entry " + key);
      e.peerCounter = (typeof e.peerCounter === "number" ? e.peerCounter : 0) + 1;
      e.updatedAt = Math.max(e.updatedAt ?? 0, Date.now());
    });
    waits.push(got - t0);
  } catch (err) {
    error = String(err?.message ?? err);
    waits.push(performance.now() - t0); // how long it waited before giving up
  }
}
process.stdout.write(JSON.stringify({ waits, error }) + "\n");
`

// openClawStoreWrites runs storeWriteWaits with the peer's node and returns
// the lock waits of its n updates, in ms; an update that failed (OpenClaw
// timed out waiting for the lock) is an error.
func openClawStoreWrites(node, ocDir, script, path, key string, n int) ([]float64, error) {
	cmd := exec.Command(node, script, ocDir, path, key, strconv.Itoa(n))
	cmd.Dir = filepath.Dir(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("OpenClaw's updateSessionStore: %v\n%s", err, stderr.Bytes())
	}
	var res struct {
		Waits []float64 `json:"waits"`
		Error string    `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("OpenClaw's updateSessionStore: %v: %s\n%s", err, out, stderr.Bytes())
	}
	if res.Error != "" || len(res.Waits) != n {
		return res.Waits, fmt.Errorf("OpenClaw's updateSessionStore: %d of %d updates, then: %s", len(res.Waits)-1, n, res.Error)
	}
	return res.Waits, nil
}

// TestInteropIncrHelper is the child process of the test above.
func TestInteropIncrHelper(t *testing.T) {
	path := os.Getenv("SESSIONS_INCR_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("SESSIONS_INCR_N"))
	for i := 0; i < n; i++ {
		if _, err := Update(context.Background(), path, UpdateOptions{LockTimeout: 60 * time.Second}, incr("agent:main:main", "goProcCounter")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInteropOpenClawKeepsOurFields: OpenClaw's own read-modify-write of a
// store we wrote keeps our fields (label, sendPolicy, unknown ones), and
// its normalisation of the entries we touched changes nothing (we already
// normalised them the same way).
func TestInteropOpenClawKeepsOurFields(t *testing.T) {
	p := peertest.Peer(t)
	path, _ := copyFixture(t)
	const key = "agent:main:telegram:group:-100123"
	_, err := Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error {
		e, _ := tx.Entry(key)
		_ = e.Set("label", "interop <label> ü")
		_ = e.Set("sendPolicy", "deny")
		_ = e.Set("x-unknown", map[string]any{"keep": []int{1, 2}})
		_ = e.Set("lastChannel", " Telegram ") // normalised by us like OpenClaw would
		tx.Put(key, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := os.ReadFile(path)
	ourEntry := gjson.GetBytes(ours, gjson.Escape(key)).Raw
	if _, _, err := peertest.Tool(p, "store-write", "--store", path, "--key", "agent:main:main", "--count", "1"); err != nil {
		t.Fatal(err)
	}
	theirs, _ := os.ReadFile(path)
	their := gjson.GetBytes(theirs, gjson.Escape(key))
	if their.Raw != ourEntry {
		t.Errorf("OpenClaw re-saved our entry differently:\nours   %s\ntheirs %s", ourEntry, their.Raw)
	}
	if their.Get("label").String() != "interop <label> ü" || their.Get("sendPolicy").String() != "deny" || their.Get("x-unknown.keep.1").Int() != 2 || their.Get("lastChannel").String() != "telegram" {
		t.Errorf("fields lost: %s", their.Raw)
	}
}
