//go:build interop

// Read parity with the real OpenClaw 2026.1.30 (the test peer in
// ../shared/peer): `openclaw sessions --json --store <agent store>` and
// `sessions list --agent <id> --json` must agree on the sessions of every
// store, on a copy of the fixture state and on a 1,000-entry synthetic store.
// Run: make interop (or, from the repository root,
// OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run Interop -count=1 ./e2e/). Skips with one line when
// OPENCLAW_PEER is unset or the peer cannot be installed here (exit 75).
//
// TestMain is script_test.go's (testscript.Main).

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// decode parses JSON keeping numbers exact.
func decode(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: not JSON (%v):\n%.2000s", what, err, data)
	}
}

type row = map[string]any

// openclawSessions runs the real `openclaw sessions --json --store STORE`.
func openclawSessions(t *testing.T, peerPath, home, state, store string) []row {
	t.Helper()
	return sessionRows(t, "openclaw sessions --json", peertest.OpenClaw(t, peerPath, home, state, "sessions", "--json", "--store", store))
}

// oursList runs `sessions --state-dir STATE list --agent ID --limit 10000 --json`.
func oursList(t *testing.T, bin, state, agent string) []row {
	t.Helper()
	return sessionRows(t, "sessions list --json", peertest.Sessions(t, bin, state, nil, "list", "--agent", agent, "--limit", "10000", "--json"))
}

// sessionRows decodes the {"count","sessions"} document both tools print
// and checks that count is the number of rows.
func sessionRows(t *testing.T, what string, out []byte) []row {
	t.Helper()
	var doc struct {
		Count    int   `json:"count"`
		Sessions []row `json:"sessions"`
	}
	decode(t, what, out, &doc)
	if doc.Count != len(doc.Sessions) {
		t.Fatalf("%s: count %d, %d sessions", what, doc.Count, len(doc.Sessions))
	}
	return doc.Sessions
}

// compareStore compares both tools on one agent's store: the same keys in
// the same order (newest first), and for every field both show, the value
// OpenClaw takes from the entry. OpenClaw lists raw store keys; we show the
// requester agent's main session as "main" (CONTRACT §3) and never list the
// reserved keys global/unknown. contextTokens and model are compared only
// where the entry has them (OpenClaw fills the others from its model
// catalogue and config; we leave them out).
func compareStore(t *testing.T, bin, peerPath, home, state, agent, store string) (sessions, values int) {
	t.Helper()
	var raw map[string]map[string]any
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, store, data, &raw)

	theirs := openclawSessions(t, peerPath, home, state, store)
	ours := oursList(t, bin, state, agent)

	var wantKeys []string
	for _, r := range theirs {
		k, _ := r["key"].(string)
		if k == "global" || k == "unknown" {
			continue
		}
		wantKeys = append(wantKeys, k)
	}
	var gotKeys []string
	byKey := map[string]row{}
	for _, r := range ours {
		k, _ := r["key"].(string)
		if k == "main" {
			k = "agent:" + agent + ":main"
		}
		if got, _ := r["agentId"].(string); got != agent {
			t.Errorf("%s: agentId %q, want %q", k, got, agent)
		}
		gotKeys = append(gotKeys, k)
		byKey[k] = r
	}
	if strings.Join(gotKeys, "\n") != strings.Join(wantKeys, "\n") {
		t.Fatalf("agent %s: keys (newest first) differ\nopenclaw: %v\nsessions: %v", agent, wantKeys, gotKeys)
	}
	if len(wantKeys) == 0 {
		t.Fatalf("agent %s: no sessions on either side; the comparison proves nothing", agent)
	}

	fields := []string{"sessionId", "updatedAt", "totalTokens", "contextTokens", "model",
		"thinkingLevel", "verboseLevel", "systemSent", "abortedLastRun"}
	for _, r := range theirs {
		key, _ := r["key"].(string)
		mine, ok := byKey[key]
		if !ok {
			continue
		}
		entry := raw[key]
		for _, f := range fields {
			ev, inEntry := entry[f]
			if !inEntry || !shown(ev) {
				if mv, has := mine[f]; has && (f != "contextTokens" && f != "model") {
					t.Errorf("%s: %s = %v in sessions, absent from the entry", key, f, mv)
				}
				continue
			}
			values++
			tv, mv := r[f], mine[f]
			if !same(tv, ev) {
				t.Errorf("%s: openclaw %s = %v, entry has %v", key, f, tv, ev)
			}
			if !same(mv, ev) {
				t.Errorf("%s: sessions %s = %v, entry (and openclaw) %v", key, f, mv, ev)
			}
		}
	}
	return len(wantKeys), values
}

// same compares two decoded JSON values; numbers by value.
func same(a, b any) bool {
	na, okA := a.(json.Number)
	nb, okB := b.(json.Number)
	if okA && okB {
		fa, errA := na.Float64()
		fb, errB := nb.Float64()
		return errA == nil && errB == nil && fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}

// shown: the entry value is one `sessions list` shows (strings non-empty,
// numbers, booleans); anything else is left out of our rows.
func shown(v any) bool {
	switch v := v.(type) {
	case string:
		return v != ""
	case json.Number, bool:
		return true
	}
	return false
}

func agentStores(t *testing.T, state string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(filepath.Join(state, "agents"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(state, "agents", e.Name(), "sessions", "sessions.json")
		if _, err := os.Stat(p); err == nil {
			out[e.Name()] = p
		}
	}
	if len(out) == 0 {
		t.Fatal("no agent stores in the fixture")
	}
	return out
}

func TestInteropListFixture(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	stores := agentStores(t, state)
	ids := make([]string, 0, len(stores))
	for id := range stores {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			n, v := compareStore(t, bin, p, home, state, id, stores[id])
			t.Logf("agent %s: %d sessions, %d field values agree", id, n, v)
		})
	}
}

func TestInteropListSynthetic1000(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	store := filepath.Join(state, "agents", "main", "sessions", "sessions.json")
	src := filepath.Join(t.TempDir(), "source.json")
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	peertest.Cmd(t, p, "synth-store", "--from", src, "--count", "1000", "--out", store)
	n, v := compareStore(t, bin, p, home, state, "main", store)
	if n != 1000 {
		t.Errorf("%d sessions compared, want 1000", n)
	}
	t.Logf("synthetic store: %d sessions, %d field values agree", n, v)
}
