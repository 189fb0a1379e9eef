package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeliveryHookFaults: a delivery hook (--deliver exec:…) that fails or
// hangs ends the run's delivery as "failed" with a clear error, within the
// hook's bound; the send itself reports ok (status ok never promises the
// announce was delivered), the outbox records the failure, and a failed
// delivery is not mirrored into the transcript. The hang uses the test-only
// SESSIONS_DELIVER_TIMEOUT to shorten the 30 s bound.
func TestDeliveryHookFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, hook, want string
		max              time.Duration
	}{
		{"fails", `exec:echo 'signal-cli: unknown group' >&2; exit 1`, "delivery hook failed (exit status 1): signal-cli: unknown group", 10 * time.Second},
		{"hangs", `exec:sleep 60`, "delivery hook timed out after 700ms", 10 * time.Second},
		{"delivered", `exec:cat >/dev/null`, "", 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			state := relState(t, root, "state-2026.1.30")
			engine := filepath.Join(root, "engine.sh")
			must(t, os.WriteFile(engine, []byte("cat >/dev/null; case \"$SESSIONS_MESSAGE\" in *'announce step'*) echo 'the announce';; *) echo pong;; esac\n"), 0o755))
			env := relEnv(root, "SESSIONS_ENGINE=exec:sh '"+engine+"'", "SESSIONS_DELIVER_TIMEOUT=700ms")
			const target = "agent:main:telegram:group:-100123" // route from the key: telegram group:-100123
			start := time.Now()
			r := relRun(t, env, 20*time.Second, "--state-dir", state, "send", target, "ping", "--deliver", tc.hook, "--json")
			if r.Code != 0 || !strings.Contains(r.Stdout, `"reply": "pong"`) {
				t.Fatalf("send exited %d: %s%s", r.Code, r.Stdout, r.Stderr)
			}
			runs := relWaitRuns(t, env, state, 20*time.Second)
			if took := time.Since(start); took > tc.max {
				t.Errorf("the run took %v to end (bound %v)", took, tc.max)
			}
			if len(runs) != 1 || runs[0].Status != "ok" || runs[0].Delivery == nil {
				t.Fatalf("runs: %+v", runs)
			}
			d := runs[0].Delivery
			outbox := readFile(t, filepath.Join(state, "sessions-cli", "outbox.jsonl"))
			var item struct{ Status, Error, Channel, To, Message string }
			must(t, json.Unmarshal([]byte(strings.TrimSpace(outbox)), &item))
			transcript := readFile(t, filepath.Join(state, "agents", "main", "sessions", "31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl"))
			mirrored := strings.Contains(transcript, `"the announce"`) && strings.Contains(transcript, `"delivery-mirror"`)
			if tc.want == "" {
				if d.Status != "delivered" || item.Status != "delivered" || !mirrored {
					t.Errorf("delivery %+v, outbox %+v, mirrored %v", d, item, mirrored)
				}
				return
			}
			if d.Status != "failed" || !strings.HasPrefix(d.Error, tc.want) {
				t.Errorf("run delivery = %+v, want failed: %q", d, tc.want)
			}
			if item.Status != "failed" || !strings.HasPrefix(item.Error, tc.want) || item.Channel != "telegram" || item.Message != "the announce" {
				t.Errorf("outbox item = %+v", item)
			}
			if mirrored {
				t.Errorf("a failed delivery was mirrored into the transcript")
			}
		})
	}
}
