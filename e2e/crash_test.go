package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/store"
)

// TestCrashInjection SIGKILLs `sessions patch`, `sessions send` (the
// caller), the detached runner of a send, and — when the spawn command is
// there — `sessions spawn` and its runner, at random moments, many times
// over one state dir, with an exec engine (a sh script: no network). After
// every kill:
//
//   - every sessions.json is a valid store, and every entry no command
//     touched is byte-identical to the fixture's;
//   - every acknowledged write is there: a patch that exited 0 (its label,
//     unless a later patch of the same key may have replaced it), a turn
//     the run record says ended ok (its user message and reply in the
//     transcript), a spawn that returned accepted (its child entry);
//   - no transcript has a half line: every line is whole JSON and the
//     first is the session header;
//   - no lock blocks the next command beyond OpenClaw's own stale rule:
//     every lock file left behind names a dead pid (OpenClaw's transcript
//     lock and our store lock evict those at once), and a patch with a 2 s
//     lock timeout goes through at once;
//   - a run whose runner was killed ends "error: runner exited", and
//     `sessions wait` returns at once; every run ends.
//
// Iterations: 20 (about 15 s) in `make test`; SESSIONS_CRASH_ITERS=N for the
// long run (`make stress` uses 300).
func TestCrashInjection(t *testing.T) {
	t.Parallel()
	iters := 20
	if testing.Short() {
		iters = 8
	}
	if v, err := strconv.Atoi(os.Getenv("SESSIONS_CRASH_ITERS")); err == nil && v > 0 {
		iters = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("SESSIONS_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	t.Logf("seed %d (SESSIONS_CRASH_SEED=%d reproduces the order of scenarios)", seed, seed)

	root := t.TempDir()
	state := relState(t, root, "state-2026.1.30")
	engine := filepath.Join(root, "engine.sh")
	must(t, os.WriteFile(engine, []byte(crashEngine), 0o755))
	env := relEnv(root, "SESSIONS_ENGINE=exec:sh '"+engine+"'")
	c := &crash{t: t, root: root, state: state, env: env, rng: rng, labels: map[string][]string{}}
	c.fixture = c.storeEntries()
	var fixtureEntry struct{ Label string }
	_ = json.Unmarshal([]byte(c.fixture[crashPatchKey]), &fixtureEntry)
	c.labels[crashPatchKey] = []string{fixtureEntry.Label}
	c.hasSpawn = relRun(t, env, 20*time.Second, "spawn", "--help").Code == 0
	if !c.hasSpawn {
		t.Log("spawn: the command does not exist yet; its scenarios are skipped")
	}

	scenarios := []struct {
		name  string
		run   func(i int)
		spawn bool
	}{
		{"kill patch", c.killPatch, false},
		{"kill send caller", c.killSendCaller, false},
		{"kill send runner", c.killSendRunner, false},
		{"kill spawn caller", c.killSpawnCaller, true},
		{"kill spawn runner", c.killSpawnRunner, true},
	}
	counts := map[string]int{}
	for i := 0; i < iters; i++ {
		sc := scenarios[rng.IntN(len(scenarios))]
		if sc.spawn && !c.hasSpawn {
			sc = scenarios[rng.IntN(3)]
		}
		counts[sc.name]++
		c.it = i
		sc.run(i)
		c.checkAll(sc.name)
		if t.Failed() {
			t.Fatalf("iteration %d (%s) failed; seed %d", i, sc.name, seed)
		}
	}
	for _, r := range relRuns(t, state) {
		if r.Error == "runner exited" {
			c.reaped++
		}
	}
	t.Logf("%d kills: %v; callers killed before they exited %d; runners SIGKILLed %d, runs they left unfinished (ended %q by the next waiter) %d; patches acknowledged %d, turns acknowledged %d, spawns acknowledged %d; lock files left by a kill %d (all of dead pids; the next patch waited at most %v for the store lock)",
		iters, counts, c.callerKills, c.runnerKills, "runner exited", c.reaped, c.patchAcks, c.turnAcks, c.spawnAcks, c.locksLeft, c.maxLockWait)
}

// crashEngine is the exec engine of the crash runs: a short random pause,
// then a reply that names the message (so an acknowledged turn can be found
// in the transcript); announces are delivered (outbox + mirror).
const crashEngine = `cat >/dev/null
sleep "${CRASH_SLEEP:-0}"
case "$SESSIONS_MESSAGE" in
  *'announce step'*) echo "announce: done" ;;
  *) echo "reply to $SESSIONS_MESSAGE" ;;
esac
`

type crash struct {
	t                 *testing.T
	root, state       string
	env               []string
	rng               *rand.Rand
	it                int
	hasSpawn          bool
	fixture           map[string]string   // key → raw entry, as in the fixture
	labels            map[string][]string // key → labels it may have: [acknowledged, later unacknowledged…]
	turns             []string            // messages whose turn was acknowledged
	children          []string            // child keys of acknowledged spawns
	runnerKills       int
	callerKills       int
	reaped            int
	patchAcks         int
	turnAcks          int
	spawnAcks         int
	locksLeft         int
	maxLockWait       time.Duration
	seenLocks         map[string]bool
	checkedRunsBefore map[string]bool
}

var crashSendTargets = []string{"agent:main:main", "agent:main:telegram:group:-100123", "agent:ops:main"}

const crashPatchKey = "agent:main:hook:github:push-42"

func (c *crash) sleep() string {
	return []string{"0", "0.02", "0.05", "0.1"}[c.rng.IntN(4)]
}

// start runs `sessions args…` in the background.
func (c *crash) start(extraEnv []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(relExe(c.t), append([]string{"--state-dir", c.state}, args...)...)
	cmd.Args[0] = "sessions"
	cmd.Env = append(append([]string{}, c.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	must(c.t, cmd.Start())
	return cmd, &out
}

// killAfter SIGKILLs cmd after d unless it has exited; it reports whether it
// exited 0 by itself.
func (c *crash) killAfter(cmd *exec.Cmd, d time.Duration) (exitedOK bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err == nil
	case <-time.After(d):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := <-done
		if err != nil {
			c.callerKills++
		}
		return err == nil
	}
}

func (c *crash) killPatch(i int) {
	label := fmt.Sprintf("crash-label-%d", i)
	c.labels[crashPatchKey] = append(c.labels[crashPatchKey], label)
	cmd, _ := c.start(nil, "patch", crashPatchKey, "--label", label)
	if c.killAfter(cmd, time.Duration(c.rng.IntN(40_000))*time.Microsecond) {
		c.labels[crashPatchKey] = []string{label}
		c.patchAcks++
	}
}

func (c *crash) killSendCaller(i int) {
	msg := fmt.Sprintf("crash-msg-%d", i)
	target := crashSendTargets[c.rng.IntN(len(crashSendTargets))]
	cmd, out := c.start([]string{"CRASH_SLEEP=" + c.sleep()}, "send", target, msg, "--timeout", "20", "--json")
	if c.killAfter(cmd, time.Duration(c.rng.IntN(300_000))*time.Microsecond) {
		if !strings.Contains(out.String(), `"reply": "reply to `+msg+`"`) {
			c.t.Errorf("iteration %d: send exited 0 without the reply: %s", i, out)
		}
	}
}

func (c *crash) killSendRunner(i int) {
	msg := fmt.Sprintf("crash-msg-%d", i)
	target := crashSendTargets[c.rng.IntN(len(crashSendTargets))]
	r := relRun(c.t, append(c.env, "CRASH_SLEEP="+c.sleep()), 20*time.Second, "--state-dir", c.state, "send", target, msg, "--timeout", "0")
	if r.Code != 0 {
		c.t.Fatalf("iteration %d: send --timeout 0 exited %d: %s", i, r.Code, r.Stderr)
	}
	c.killRunner(strings.TrimSpace(r.Stdout), 150*time.Millisecond)
}

func (c *crash) killSpawnCaller(i int) {
	task := fmt.Sprintf("crash-msg-%d", i)
	cmd, out := c.start([]string{"CRASH_SLEEP=" + c.sleep()}, "spawn", task, "--json")
	if c.killAfter(cmd, time.Duration(c.rng.IntN(60_000))*time.Microsecond) {
		c.ackSpawn(i, out.String())
	}
}

func (c *crash) killSpawnRunner(i int) {
	task := fmt.Sprintf("crash-msg-%d", i)
	r := relRun(c.t, append(c.env, "CRASH_SLEEP="+c.sleep()), 20*time.Second, "--state-dir", c.state, "spawn", task, "--json")
	if r.Code != 0 {
		c.t.Fatalf("iteration %d: spawn exited %d: %s", i, r.Code, r.Stderr)
	}
	runID := c.ackSpawn(i, r.Stdout)
	c.killRunner(runID, 150*time.Millisecond)
}

// ackSpawn records an accepted spawn's child and returns its run id.
func (c *crash) ackSpawn(i int, out string) string {
	var res struct {
		Status, RunID, ChildSessionKey string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "accepted" || res.ChildSessionKey == "" {
		c.t.Fatalf("iteration %d: spawn exited 0 with %q", i, out)
	}
	c.children = append(c.children, res.ChildSessionKey)
	c.spawnAcks++
	return res.RunID
}

// killRunner waits for the runner of runID to be running, SIGKILLs it at a
// random moment within window, and requires `sessions wait` to return at
// once with the run's end.
func (c *crash) killRunner(runID string, window time.Duration) {
	t := c.t
	path := filepath.Join(c.state, "sessions-cli", "runs", runID+".json")
	pid := 0
	for deadline := time.Now().Add(10 * time.Second); pid == 0; {
		if data, err := os.ReadFile(path); err == nil {
			var r relRunRecord
			if json.Unmarshal(data, &r) == nil {
				if relTerminal(r.Status) {
					return // over before it could be killed
				}
				pid = r.RunnerPID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("iteration %d: the runner of %s never started", c.it, runID)
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(time.Duration(c.rng.Int64N(int64(window))))
	if p, err := os.FindProcess(pid); err == nil && p.Kill() == nil {
		c.runnerKills++
	}
	r := relRun(t, c.env, 20*time.Second, "--state-dir", c.state, "wait", runID, "--timeout", "15", "--json")
	if r.Took > 5*time.Second {
		t.Errorf("iteration %d: wait took %v after the runner was killed", c.it, r.Took)
	}
	switch {
	case r.Code == 0 && strings.Contains(r.Stdout, `"status": "ok"`): // the first step was over
	case r.Code == 1 && strings.Contains(r.Stdout, `"error": "runner exited"`):
	default:
		t.Errorf("iteration %d: wait after the kill exited %d:\n%s%s", c.it, r.Code, r.Stdout, r.Stderr)
	}
}

// storeEntries returns key → raw entry of every agent store.
func (c *crash) storeEntries() map[string]string {
	out := map[string]string{}
	for _, agent := range []string{"main", "ops"} {
		p := filepath.Join(c.state, "agents", agent, "sessions", "sessions.json")
		data, err := os.ReadFile(p)
		must(c.t, err)
		s, err := store.Parse(p, data)
		if err != nil {
			c.t.Fatalf("iteration %d: %s is not a valid store: %v", c.it, p, err)
		}
		for _, e := range s.Entries {
			out[e.Key] = string(e.Raw)
		}
	}
	return out
}

var (
	crashLineOK   = regexp.MustCompile(`^\{.*\}$`)
	crashLockWait = regexp.MustCompile(`lockWait=(\S+)`)
)

func (c *crash) checkAll(scenario string) {
	t := c.t
	// Every run ends (a dead runner's run is reaped by `runs`), and the
	// turns they acknowledged are recorded.
	runs := relWaitRuns(t, c.env, c.state, 30*time.Second)
	for _, r := range runs {
		if r.Status == "error" && r.Error != "runner exited" {
			t.Errorf("run %s ended with %q: the engine never fails here, only a killed runner may", r.RunID, r.Error)
		}
		if len(r.Steps) > 0 && (r.Steps[0].Name == "turn" || r.Steps[0].Name == "task") && r.Steps[0].Status == "ok" {
			c.ackTurn(r)
		}
		if r.Status == "error" && r.Error == "" {
			t.Errorf("run %s ended error without an error", r.RunID)
		}
	}

	// Stores: valid, untouched entries byte-identical, acknowledged writes.
	entries := c.storeEntries()
	touched := map[string]bool{crashPatchKey: true}
	for _, k := range crashSendTargets {
		touched[k] = true
	}
	for k, raw := range c.fixture {
		if touched[k] {
			continue
		}
		if entries[k] != raw {
			t.Errorf("iteration %d (%s): entry %s changed:\n%s\n→\n%s", c.it, scenario, k, raw, entries[k])
		}
	}
	for k := range c.fixture {
		if _, ok := entries[k]; !ok && !strings.Contains(k, ":subagent:") {
			t.Errorf("iteration %d (%s): entry %s lost", c.it, scenario, k)
		}
	}
	if labels := c.labels[crashPatchKey]; len(labels) > 0 {
		var e struct{ Label string }
		_ = json.Unmarshal([]byte(entries[crashPatchKey]), &e)
		ok := false
		for _, l := range labels {
			ok = ok || e.Label == l
		}
		if !ok {
			t.Errorf("iteration %d (%s): %s has label %q, want one of %q (the last acknowledged first)", c.it, scenario, crashPatchKey, e.Label, labels)
		}
	}
	for _, k := range c.children {
		if _, ok := entries[k]; !ok {
			t.Errorf("iteration %d (%s): the child %s of an acknowledged spawn is gone", c.it, scenario, k)
		}
	}

	// Transcripts: whole lines, header first; acknowledged turns present.
	all := ""
	files, _ := filepath.Glob(filepath.Join(c.state, "agents", "*", "sessions", "*.jsonl"))
	for _, p := range files {
		data := readFile(t, p)
		all += data
		if data == "" {
			continue
		}
		if !strings.HasSuffix(data, "\n") {
			t.Errorf("iteration %d (%s): %s ends with a half line", c.it, scenario, p)
		}
		sc := bufio.NewScanner(strings.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for n := 0; sc.Scan(); n++ {
			ln := sc.Text()
			if !crashLineOK.MatchString(ln) || !json.Valid([]byte(ln)) {
				t.Errorf("iteration %d (%s): %s line %d is not whole JSON: %.200q", c.it, scenario, p, n+1, ln)
			}
			if n == 0 && !strings.Contains(ln, `"type":"session"`) {
				t.Errorf("iteration %d (%s): %s does not start with its header", c.it, scenario, p)
			}
		}
	}
	for _, msg := range c.turns {
		if !strings.Contains(all, `"text":"`+msg+`"`) || !strings.Contains(all, `"text":"reply to `+msg+`"`) {
			t.Errorf("iteration %d (%s): the acknowledged turn %q is not in a transcript", c.it, scenario, msg)
		}
	}

	// Locks: whatever a kill left names a dead pid, and does not block.
	locks, _ := filepath.Glob(filepath.Join(c.state, "agents", "*", "sessions", "*.lock"))
	for _, p := range locks {
		if c.seenLocks == nil {
			c.seenLocks = map[string]bool{}
		}
		if id := p + "\x00" + readFile(t, p); !c.seenLocks[id] {
			c.seenLocks[id] = true
			c.locksLeft++
		}
		var payload struct{ PID int }
		if err := json.Unmarshal([]byte(readFile(t, p)), &payload); err != nil || payload.PID <= 0 {
			t.Errorf("iteration %d (%s): lock %s has no pid: %v", c.it, scenario, p, err)
		} else if relAlive(payload.PID) {
			t.Errorf("iteration %d (%s): lock %s names the live pid %d", c.it, scenario, p, payload.PID)
		}
	}
	label := fmt.Sprintf("crash-check-%d", c.it)
	r := relRun(t, c.env, 10*time.Second, "--state-dir", c.state, "--lock-timeout", "2s", "--log-level", "debug", "patch", crashPatchKey, "--label", label)
	if r.Code != 0 {
		t.Errorf("iteration %d (%s): the next patch exited %d after %v: %s", c.it, scenario, r.Code, r.Took, r.Stderr)
	} else {
		c.labels[crashPatchKey] = []string{label}
		m := crashLockWait.FindStringSubmatch(r.Stderr)
		if m == nil {
			t.Errorf("iteration %d: no lockWait in the patch's debug log: %s", c.it, r.Stderr)
		} else if d, err := time.ParseDuration(m[1]); err != nil || d > 500*time.Millisecond {
			t.Errorf("iteration %d (%s): the next patch waited %s for the store lock", c.it, scenario, m[1])
		} else if d > c.maxLockWait {
			c.maxLockWait = d
		}
	}
	if tmps := store.TempFiles(filepath.Join(c.state, "agents", "main", "sessions", "sessions.json")); len(tmps) > 0 {
		t.Errorf("iteration %d (%s): temp files left after the next write: %v", c.it, scenario, tmps)
	}
}

// ackTurn records the acknowledged first step of a run once.
func (c *crash) ackTurn(r relRunRecord) {
	if c.checkedRunsBefore == nil {
		c.checkedRunsBefore = map[string]bool{}
	}
	if c.checkedRunsBefore[r.RunID] {
		return
	}
	c.checkedRunsBefore[r.RunID] = true
	msg := ""
	if s := r.Steps[0].Reply; strings.HasPrefix(s, "reply to ") {
		msg = strings.TrimPrefix(s, "reply to ")
	}
	if msg == "" {
		c.t.Errorf("run %s: acknowledged turn with reply %q", r.RunID, r.Steps[0].Reply)
		return
	}
	c.turns = append(c.turns, msg)
	c.turnAcks++
}
