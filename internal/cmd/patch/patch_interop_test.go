//go:build interop

// `sessions patch` beside the real OpenClaw 2026.1.30 (../shared/peer).
// Run: make interop.
package patch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func peer(t *testing.T) string {
	t.Helper()
	p := os.Getenv("OPENCLAW_PEER")
	if p == "" {
		t.Skip("OPENCLAW_PEER not set (run: make interop)")
	}
	out, err := exec.Command(p, "install").CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 75 {
		t.Skip("OpenClaw peer unavailable (install exited 75)")
	} else if err != nil {
		t.Fatalf("openclaw-peer install: %v\n%s", err, out)
	}
	return p
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInteropPatchBesideOpenClaw: `sessions patch` processes and a real
// OpenClaw writer (store-write) on the same store at once: no update lost
// on either side; then the real `openclaw sessions --json --store` lists
// our patched entries, and OpenClaw's own read-modify-write keeps our
// label and sendPolicy.
func TestInteropPatchBesideOpenClaw(t *testing.T) {
	p := peer(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "sessions")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/openclaw/sessions/cmd/sessions").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	state := filepath.Join(tmp, "state")
	copyTree(t, "../../../testdata/state-2026.1.30", state)
	store := filepath.Join(state, "agents", "main", "sessions", "sessions.json")

	const peerN, patches = 300, 60
	var wg sync.WaitGroup
	wg.Add(1)
	var peerOut []byte
	var peerErr error
	go func() {
		defer wg.Done()
		peerOut, peerErr = exec.Command(p, "store-write", "--store", store, "--key", "agent:main:main", "--count", fmt.Sprint(peerN)).CombinedOutput()
	}()
	keys := []string{"agent:main:telegram:group:-100123", "agent:main:hook:github:push-42", "main"}
	var durs []time.Duration
	for i := 0; i < patches; i++ {
		k := keys[i%len(keys)]
		pol := []string{"allow", "deny"}[i%2]
		start := time.Now()
		out, err := exec.Command(bin, "--state-dir", state, "patch", k, "--send-policy", pol, "--label", fmt.Sprintf("lbl-%d", i), "--json").CombinedOutput()
		if err != nil {
			t.Fatalf("patch %d: %v\n%s", i, err, out)
		}
		durs = append(durs, time.Since(start))
	}
	wg.Wait()
	if peerErr != nil {
		t.Fatalf("store-write: %v\n%s", peerErr, peerOut)
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
	t.Logf("%d patches beside %d OpenClaw updates: %s; patch command wall time first %v last %v", patches, peerN, strings.TrimSpace(string(peerOut)), durs[0].Round(time.Millisecond), durs[len(durs)-1].Round(time.Millisecond))

	// The real `openclaw sessions --json --store` reads our file and lists
	// the patched entries (its rows carry no label/sendPolicy in 1.30).
	var out bytes.Buffer
	cmd := exec.Command(p, "run", "--home", filepath.Join(tmp, "home"), "--state", state, "--", "sessions", "--json", "--store", store)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw sessions: %v", err)
	}
	var listed struct {
		Sessions []struct {
			Key       string `json:"key"`
			UpdatedAt int64  `json:"updatedAt"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &listed); err != nil {
		t.Fatalf("openclaw sessions output: %v\n%s", err, out.String())
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
	if out, err := exec.Command(p, "store-write", "--store", store, "--key", "agent:main:hook:github:push-42", "--count", "1").CombinedOutput(); err != nil {
		t.Fatalf("store-write: %v\n%s", err, out)
	}
	data2, _ := os.ReadFile(store)
	for k, w := range want {
		e := gjson.GetBytes(data2, gjson.Escape(k))
		if e.Get("label").String() != w[0] || e.Get("sendPolicy").String() != w[1] {
			t.Errorf("after OpenClaw's write %s: %s", k, e.Raw)
		}
	}
}
