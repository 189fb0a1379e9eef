package store

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/lock"
)

const killHelperEnv = "SESSIONS_STORE_KILL_HELPER"

// TestUpdateKillHelper is not a test: it is the child process of
// TestUpdateSIGKILL. It increments a counter with Update forever, printing
// "ok N" after each Update that returned success, until it is killed.
func TestUpdateKillHelper(t *testing.T) {
	path := os.Getenv(killHelperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	for {
		res, err := Update(context.Background(), path, UpdateOptions{LockTimeout: 5 * time.Second}, incr("agent:main:main", "killCounter"))
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
		n := gjson.GetBytes(res.Entries["agent:main:main"], "killCounter").Int()
		os.Stdout.WriteString("ok " + strconv.FormatInt(n, 10) + "\n")
	}
}

// TestUpdateSIGKILL re-executes a helper that patches the store in a loop
// and SIGKILLs it at a random moment, many times. After each kill: the
// store is valid JSON with every other entry intact, every increment the
// helper reported as done is in the store (at most one more, committed but
// not yet reported), no temp file is left, and the dead writer's lock does
// not block the next writer (it is evicted at once: its pid is dead).
//
// Iterations: 30 by default, 10 with -short, SESSIONS_KILL_ITERS=N (e.g.
// 300) for the long mode.
func TestUpdateSIGKILL(t *testing.T) {
	if os.Getenv(killHelperEnv) != "" {
		t.Skip("in helper")
	}
	iters := 30
	if testing.Short() {
		iters = 10
	}
	if v, err := strconv.Atoi(os.Getenv("SESSIONS_KILL_ITERS")); err == nil && v > 0 {
		iters = v
	}
	path, orig := copyFixture(t)
	okeys, ovals := entryBytes(t, orig)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var (
		acked        int64 // increments known to be committed
		tempsByKill  int
		locksByKill  int
		maxNextWait  time.Duration
		killedAtZero int
	)
	for it := 0; it < iters; it++ {
		cmd := exec.Command(exe, "-test.run=^TestUpdateKillHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), killHelperEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		last := make(chan int64, 1)
		go func() {
			sc := bufio.NewScanner(out)
			var n int64 = -1
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "ok "); ok {
					n, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			last <- n
		}()
		// Kill at a random moment: sometimes during start-up, mostly in
		// the middle of the write loop.
		time.Sleep(time.Duration(rand.IntN(60_000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		n := <-last
		_ = cmd.Wait() // reaps it: its pid is dead from here on
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("iteration %d: helper exited by itself: %v\n%s", it, cmd.ProcessState, stderr.String())
		}

		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			t.Fatalf("iteration %d: store is not a valid JSON object", it)
		}
		counter := gjson.GetBytes(data, gjson.Escape("agent:main:main")+".killCounter").Int()
		if n >= 0 && n > counter {
			t.Fatalf("iteration %d: helper reported %d, store has %d: a committed write was lost", it, n, counter)
		}
		if counter < acked || counter > max(n, acked)+1 {
			t.Fatalf("iteration %d: counter %d, acked before %d, reported %d", it, counter, acked, n)
		}
		if n < 0 {
			killedAtZero++
		}
		acked = counter
		nkeys, nvals := entryBytes(t, data)
		if strings.Join(nkeys, "\n") != strings.Join(okeys, "\n") {
			t.Fatalf("iteration %d: keys changed", it)
		}
		for _, k := range okeys {
			if k != "agent:main:main" && nvals[k] != ovals[k] {
				t.Fatalf("iteration %d: entry %s changed", it, k)
			}
		}
		if tmps := TempFiles(path); len(tmps) > 0 {
			tempsByKill++ // killed between link and rename: swept below
		}
		if _, err := os.Stat(lock.StoreLockPath(path)); err == nil {
			locksByKill++
		}

		// The next writer is not blocked by the dead writer's lock.
		start := time.Now()
		res, err := Update(context.Background(), path, UpdateOptions{LockTimeout: 2 * time.Second}, incr("agent:main:main", "killCounter"))
		if err != nil {
			t.Fatalf("iteration %d: next writer: %v", it, err)
		}
		acked++
		maxNextWait = max(maxNextWait, res.Timings.LockWait)
		if res.Timings.LockWait > time.Second {
			t.Fatalf("iteration %d: next writer waited %v for the lock", it, res.Timings.LockWait)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("iteration %d: next writer took %v", it, time.Since(start))
		}
		if tmps := TempFiles(path); len(tmps) > 0 {
			t.Fatalf("iteration %d: temp files left after the next write: %v", it, tmps)
		}
		if _, err := os.Stat(lock.StoreLockPath(path)); err == nil {
			t.Fatalf("iteration %d: lock file left after the next write", it)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	t.Logf("%d kills: final counter %d; kills that left a lock file %d (evicted at once, max wait of the next writer %v), left a temp file %d (swept by the next writer), before the first write %d",
		iters, acked, locksByKill, maxNextWait, tempsByKill, killedAtZero)
}
