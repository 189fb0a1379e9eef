package delivery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Delivery hook faults: a hook that fails, hangs, or leaves a process
// behind ends with a clear error within its bound. (The end-to-end version,
// through a send and its run record, is TestDeliveryHookFaults in the
// repository root.)

var hookItem = Item{ID: "i1", RunID: "r1", Kind: "announce", SessionKey: "agent:main:main",
	Target: Target{Channel: "signal", To: "+1555"}, Message: "hello", Status: "recorded"}

func TestHookFaults(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		spec    string
		timeout time.Duration
		want    string // "" = delivered
		max     time.Duration
	}{
		{"delivered, item on stdin and in the environment", `exec:read -r line; case "$line" in *'"message":"hello"'*) ;; *) exit 9;; esac; test "$SESSIONS_DELIVERY_TO" = +1555`, time.Second, "", 2 * time.Second},
		{"exit 1 with a message", `exec:echo 'channel rejected the message' >&2; exit 1`, time.Second, "delivery hook failed (exit status 1): channel rejected the message", 2 * time.Second},
		{"exit 1 without a message", `exec:exit 1`, time.Second, "delivery hook failed (exit status 1)", 2 * time.Second},
		{"killed by a signal", `exec:kill -9 $$`, time.Second, "delivery hook failed (signal: killed)", 2 * time.Second},
		{"command not found", `exec:/nonexistent/deliver-hook`, time.Second, "delivery hook failed (exit status 127)", 2 * time.Second},
		{"hangs", `exec:sleep 30`, 300 * time.Millisecond, "delivery hook timed out after 300ms", 2 * time.Second},
		{"hangs with children", `exec:sleep 30 & sleep 30 & wait`, 300 * time.Millisecond, "delivery hook timed out after 300ms", 2 * time.Second},
		{"hangs ignoring SIGTERM", `exec:trap '' TERM; while :; do sleep 1; done`, 300 * time.Millisecond, "delivery hook timed out after 300ms", 2 * time.Second},
		// A process that leaves the hook's process group keeps its output
		// open: the hook must still end within its bound.
		{"hangs, output held by an escaped process", `exec:setsid sleep 5 & sleep 30`, 300 * time.Millisecond, "delivery hook timed out after 300ms", 5 * time.Second},
		{"exits, output held by an escaped process", `exec:setsid sleep 5 & echo sent`, 5 * time.Second, "", 5 * time.Second},
		{"floods its output", `exec:yes | head -c 10000000 >&2; exit 3`, 5 * time.Second, "delivery hook failed (exit status 3): …", 5 * time.Second},
		{"invalid spec", `curl x`, time.Second, `invalid delivery hook "curl x"`, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.spec, "setsid") {
				if _, err := os.Stat("/usr/bin/setsid"); err != nil {
					t.Skip("no setsid(1)")
				}
			}
			start := time.Now()
			err := Hook(context.Background(), tc.spec, hookItem, tc.timeout)
			took := time.Since(start)
			if took > tc.max {
				t.Errorf("took %v, bound %v", took, tc.max)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("err = %v, want delivered", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q…", err, tc.want)
			}
			if err != nil && len(err.Error()) > 1000 {
				t.Errorf("error message is %d bytes long", len(err.Error()))
			}
		})
	}
	_ = dir
}

// TestHookCanceled: a canceled context (the runner's) stops the hook too.
func TestHookCanceled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Hook(ctx, "exec:sleep 30", hookItem, time.Minute)
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

// TestHookDefaultTimeout: a zero timeout means DefaultHookTimeout, which
// SESSIONS_DELIVER_TIMEOUT (test only) shortens.
func TestHookDefaultTimeout(t *testing.T) {
	t.Setenv(HookTimeoutEnv, "250ms")
	start := time.Now()
	err := Hook(context.Background(), "exec:sleep 30", hookItem, 0)
	if err == nil || !strings.Contains(err.Error(), "timed out after 250ms") || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	t.Setenv(HookTimeoutEnv, "nonsense")
	if got := hookTimeout(0); got != DefaultHookTimeout {
		t.Fatalf("hookTimeout with a bad override = %v", got)
	}
}

// TestRecordOutboxMode: the outbox and its directory get OpenClaw's modes.
func TestRecordOutboxMode(t *testing.T) {
	state := t.TempDir()
	if err := Record(state, hookItem); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		OutboxPath(state):               0o600,
		filepath.Dir(OutboxPath(state)): 0o700,
	} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}
}
