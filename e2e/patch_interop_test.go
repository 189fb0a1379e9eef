//go:build interop

// `sessions patch` beside the real OpenClaw 2026.1.30 (../shared/peer).
// Run: make interop.
package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropPatchBesideOpenClaw: `sessions patch` processes and a real
// OpenClaw writer (store-write) on the same store at once: no update lost
// on either side; then the real `openclaw sessions --json --store` lists
// our patched entries, and OpenClaw's own read-modify-write keeps our
// label and sendPolicy.
func TestInteropPatchBesideOpenClaw(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	store := filepath.Join(state, "agents", "main", "sessions", "sessions.json")

	const peerN, patches = 300, 60
	var wg sync.WaitGroup
	wg.Add(1)
	var peerOut string
	var peerErr error
	go func() {
		defer wg.Done()
		_, peerOut, peerErr = peertest.Tool(p, "store-write", "--store", store, "--key", "agent:main:main", "--count", fmt.Sprint(peerN))
	}()
	keys := []string{"agent:main:telegram:group:-100123", "agent:main:hook:github:push-42", "main"}
	var durs []time.Duration
	for i := 0; i < patches; i++ {
		k := keys[i%len(keys)]
		pol := []string{"allow", "deny"}[i%2]
		start := time.Now()
		peertest.Sessions(t, bin, state, nil, "patch", k, "--send-policy", pol, "--label", fmt.Sprintf("lbl-%d", i), "--json")
		durs = append(durs, time.Since(start))
	}
	wg.Wait()
	if peerErr != nil {
		t.Fatal(peerErr)
	}
	data, _ := os.ReadFile(store)
	if !gjson.ValidBytes(data) {
		t.Fatal("store invalid")
	}
	if n := gjson.GetBytes(data, gjson.Escape("agent:main:main")+".peerCounter").Int(); n != peerN {
		t.Errorf("OpenClaw's updates lost: peerCounter %d, want %d", n, peerN)
	}
	want := map[string][2]string{}
	for i := patches - len(keys); i < patches; i++ {
		k := keys[i%len(keys)]
		if k == "main" {
			k = "agent:main:main"
		}
		want[k] = [2]string{fmt.Sprintf("lbl-%d", i), []string{"allow", "deny"}[i%2]}
	}
	for k, w := range want {
		e := gjson.GetBytes(data, gjson.Escape(k))
		if e.Get("label").String() != w[0] || e.Get("sendPolicy").String() != w[1] {
			t.Errorf("%s: label %q sendPolicy %q, want %v", k, e.Get("label").String(), e.Get("sendPolicy").String(), w)
		}
	}
	t.Logf("%d patches beside %d OpenClaw updates: %s; patch command wall time first %v last %v", patches, peerN, peerOut, durs[0].Round(time.Millisecond), durs[len(durs)-1].Round(time.Millisecond))

	// The real `openclaw sessions --json --store` reads our file and lists
	// the patched entries (its rows carry no label/sendPolicy in 1.30).
	out := peertest.OpenClaw(t, p, home, state, "sessions", "--json", "--store", store)
	var listed struct {
		Sessions []struct {
			Key       string `json:"key"`
			UpdatedAt int64  `json:"updatedAt"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatalf("openclaw sessions output: %v\n%s", err, out)
	}
	seen := map[string]int64{}
	for _, s := range listed.Sessions {
		seen[s.Key] = s.UpdatedAt
	}
	for k := range want {
		if u, ok := seen[k]; !ok || u != gjson.GetBytes(data, gjson.Escape(k)+".updatedAt").Int() {
			t.Errorf("openclaw sessions: %s listed=%v updatedAt %d", k, ok, u)
		}
	}
	// OpenClaw's own read-modify-write keeps our fields.
	if _, _, err := peertest.Tool(p, "store-write", "--store", store, "--key", "agent:main:hook:github:push-42", "--count", "1"); err != nil {
		t.Fatal(err)
	}
	data2, _ := os.ReadFile(store)
	for k, w := range want {
		e := gjson.GetBytes(data2, gjson.Escape(k))
		if e.Get("label").String() != w[0] || e.Get("sendPolicy").String() != w[1] {
			t.Errorf("after OpenClaw's write %s: %s", k, e.Raw)
		}
	}
}
