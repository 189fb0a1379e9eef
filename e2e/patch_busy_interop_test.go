//go:build interop

package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropPatchBusySession: while the real OpenClaw 2026.1.30 runs a
// turn on a session (`openclaw agent --local`, an exec tool call that
// sleeps, so it holds the transcript lock for seconds), `sessions patch`
// warns that the change may be undone — and it is: OpenClaw rewrites the
// entry from its turn-start copy right after it releases the lock. A patch
// with --wait-idle waits for the turn and its store write, and survives.
func TestInteropPatchBusySession(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	url, _ := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	const sessionID = "c040fd20-0a1c-4ce0-924c-6e695a32eecb" // agent:main:main in the fixture
	sessions := filepath.Join(state, "agents", "main", "sessions")
	lockPath := filepath.Join(sessions, sessionID+".jsonl.lock")

	turn := exec.Command(p, "run", "--home", home, "--state", state, "--cwd", home, "--timeout", "300", "--",
		"agent", "--local", "--agent", "main", "--session-id", sessionID,
		"--message", `[[tool:exec {"command":"sleep 8"}]]`, "--json")
	var turnErr bytes.Buffer
	turn.Stderr = &turnErr
	if err := turn.Start(); err != nil {
		t.Fatal(err)
	}
	var turnWaitErr error
	done := make(chan struct{}) // closed when the turn has exited
	go func() { turnWaitErr = turn.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = turn.Process.Kill()
			<-done
		}
	})

	// Wait for the turn to take the transcript lock (OpenClaw starts slowly
	// on a loaded machine).
	deadline := time.Now().Add(240 * time.Second)
	for {
		if _, err := os.Stat(lockPath); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("openclaw agent ended before taking the transcript lock: %v\n%s", turnWaitErr, turnErr.Bytes())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("openclaw agent never took the transcript lock")
		}
		time.Sleep(50 * time.Millisecond)
	}

	var during struct {
		Entry    map[string]any `json:"entry"`
		Warnings []string       `json:"warnings"`
	}
	out := peertest.Sessions(t, bin, state, nil, "patch", "main", "--label", "during", "--json")
	if err := json.Unmarshal(out, &during); err != nil {
		t.Fatalf("patch output: %v\n%s", err, out)
	}
	if len(during.Warnings) != 1 || !strings.Contains(during.Warnings[0], "may undo this change") {
		t.Fatalf("patch during an OpenClaw turn: want one warning, got %q", during.Warnings)
	}
	t.Logf("warning: %s", during.Warnings[0])

	start := time.Now()
	out = peertest.Sessions(t, bin, state, nil, "patch", "main", "--send-policy", "deny", "--wait-idle=240s", "--json")
	waited := time.Since(start)
	if w := gjson.GetBytes(out, "warnings"); w.Exists() {
		t.Errorf("patch --wait-idle still warned: %s", w.Raw)
	}
	<-done
	if turnWaitErr != nil {
		t.Fatalf("openclaw agent: %v\n%s", turnWaitErr, turnErr.Bytes())
	}
	data, err := os.ReadFile(filepath.Join(sessions, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := gjson.GetBytes(data, gjson.Escape("agent:main:main"))
	if e.Get("label").String() == "during" {
		t.Errorf("OpenClaw kept the label set during its turn (the warning would be needless): %s", e.Get("label").Raw)
	}
	if got := e.Get("sendPolicy").String(); got != "deny" {
		t.Errorf("the patch made with --wait-idle was lost: sendPolicy %q", got)
	}
	t.Logf("label set during the turn: lost (now %q); send policy set with --wait-idle after %v: kept", e.Get("label").String(), waited.Round(time.Millisecond))
}
