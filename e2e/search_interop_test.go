//go:build interop

package e2e_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropIndexAfterOpenClawTurn: the real OpenClaw 2026.9.6 runs a turn
// (`openclaw agent --local`, the mock LLM) on a copy of the 2026.9.6
// fixture; search then finds its new user and assistant messages through
// OpenClaw's own search index, which OpenClaw keeps current, and the same
// ones through the event scan.
func TestInteropIndexAfterOpenClawTurn(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	if out, err := exec.Command(p, "install", "--version", "2026.9.6").CombinedOutput(); err != nil {
		t.Skipf("OpenClaw 2026.9.6 peer unavailable: %v: %s", err, peertest.LastLine(string(out)))
	}
	base := t.TempDir()
	state, home := filepath.Join(base, "state"), filepath.Join(base, "home")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	bin := peertest.BuildSessions(t)
	url, _ := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	word := "quagga" + time.Now().Format("150405")
	cmd := exec.Command(p, "run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "300", "--",
		"agent", "--local", "--agent", "main", "--session-key", "agent:main:main", "--message", "Tell me about the "+word, "--json")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("openclaw agent --local: %v\n%s", err, out)
	}
	viaIndex := runSearch(t, bin, state, word)
	viaEvents := runSearch(t, bin, state, word, "--no-index")
	if len(viaIndex.Hits) < 2 {
		t.Fatalf("want OpenClaw's user message and the mock's echo, got %+v", viaIndex.Hits)
	}
	if strings.Join(viaIndex.got(), "|") != strings.Join(viaEvents.got(), "|") {
		t.Fatalf("index %q\nevents %q", viaIndex.got(), viaEvents.got())
	}
	for _, h := range viaIndex.Hits {
		if h.Source != "index" || h.Key != "main" {
			t.Errorf("hit %+v: want source index, key main", h)
		}
	}
	t.Logf("%d hits of %q through OpenClaw's index and through the events", len(viaIndex.Hits), word)

	// Our search index on what the real OpenClaw wrote (this 2026.9.6 store
	// after its turn, and the 2026.1.30 fixture OpenClaw wrote): the same
	// bytes as the scan, for the operator and for an agent.
	sameWithAndWithoutIndex(t, bin, state, word)
	sameWithAndWithoutIndex(t, bin, filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), "hello")
}

// sameWithAndWithoutIndex runs queries about word with the search index (a
// cache dir of its own, built by the first query and caught up by the next)
// and with SESSIONS_NO_INDEX=1, and wants the same stdout.
func sameWithAndWithoutIndex(t *testing.T, bin, state, word string) {
	t.Helper()
	cache := "XDG_CACHE_HOME=" + t.TempDir()
	queries := [][]string{
		{word, "--include-tools"},
		{"-i", strings.ToUpper(word), "--all-agents", "-C", "1"},
		{"--regex", word + "[a-z0-9 ]*", "--include-archived", "--all-agents"},
		{"MOCK", "--all-agents", "--limit", "3"},
		{word, "--as", "agent:main:main", "--include-tools"},
	}
	for _, q := range queries {
		argv := append([]string{"search", "--json"}, q...)
		indexed := peertest.Sessions(t, bin, state, []string{cache}, argv...)
		scanned := peertest.Sessions(t, bin, state, []string{cache, "SESSIONS_NO_INDEX=1"}, argv...)
		if string(indexed) != string(scanned) {
			t.Errorf("sessions %v on %s: with the index\n%s\nwithout\n%s", argv, filepath.Base(state), indexed, scanned)
		}
	}
}

// searchDoc is the JSON document of `sessions search`.
type searchDoc struct {
	Count      int  `json:"count"`
	TotalCount int  `json:"totalCount"`
	HasMore    bool `json:"hasMore"`
	Hits       []struct {
		Key       string `json:"key"`
		SessionID string `json:"sessionId"`
		ID        string `json:"id"`
		Role      string `json:"role"`
		Timestamp int64  `json:"timestamp"`
		Source    string `json:"source"`
	} `json:"hits"`
}

// runSearch runs `sessions --state-dir STATE search --json --limit all
// ARGS...` (the binary, as a person runs it) and returns its document,
// all of it on one page.
func runSearch(t *testing.T, bin, state string, args ...string) searchDoc {
	t.Helper()
	argv := append([]string{"search", "--json", "--limit", "all"}, args...)
	out := peertest.Sessions(t, bin, state, nil, argv...)
	var d searchDoc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("sessions %v: %v\n%s", argv, err, out)
	}
	if d.Count != len(d.Hits) || d.TotalCount != d.Count || d.HasMore {
		t.Fatalf("sessions %v: count %d, totalCount %d, hasMore %v, %d hits", argv, d.Count, d.TotalCount, d.HasMore, len(d.Hits))
	}
	return d
}

// got is the hits as "sessionId id role timestamp" lines, sorted.
func (d searchDoc) got() []string {
	var out []string
	for _, h := range d.Hits {
		out = append(out, fmt.Sprintf("%s %s %s %d", h.SessionID, h.ID, h.Role, h.Timestamp))
	}
	slices.Sort(out)
	return out
}
