//go:build interop

// The real OpenClaw 2026.9.6 (the test peer in ../shared/peer) loads the
// installed skill: `openclaw skills list --json` lists it as eligible with
// the sessions binary on its PATH, and as ineligible (bins missing)
// without it, from the state dir's skills (--global) and from a
// workspace's. Run: make interop (or, from the repository root,
// OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run InteropSkill -count=1 ./e2e/). Skips with one line when
// OPENCLAW_PEER is unset or the peer cannot be installed here.

package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// peerSkill is one row of `openclaw skills list --json`.
type peerSkill struct {
	Name     string `json:"name"`
	Eligible bool   `json:"eligible"`
	Source   string `json:"source"`
	Missing  struct {
		Bins []string `json:"bins"`
	} `json:"missing"`
}

// openclawSkill runs the real 2026.9.6 `openclaw skills list --json` on
// state with PATH and returns its row of the sessions skill (nil when it
// lists none).
func openclawSkill(t *testing.T, p, home, state, path string) *peerSkill {
	t.Helper()
	cmd := exec.Command(p, "run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "300",
		"--env", "PATH="+path, "--", "skills", "list", "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openclaw skills list --json: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	var doc struct {
		Skills []peerSkill `json:"skills"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("openclaw skills list --json: %v\n%.2000s", err, out)
	}
	for _, s := range doc.Skills {
		if s.Name == "sessions" {
			return &s
		}
	}
	return nil
}

// withoutSessions is the machine's PATH without the directories that hold
// a sessions executable.
func withoutSessions() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(d, "sessions")); err == nil && !st.IsDir() {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func TestInteropSkillEligible(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	for _, c := range []struct {
		scope, source string
		args          func(state string) []string
	}{
		{"global", "openclaw-managed", func(string) []string { return nil }},
		// OpenClaw's default workspace is <state>/workspace
		{"workspace", "openclaw-workspace", func(state string) []string { return []string{"--workspace", filepath.Join(state, "workspace")} }},
	} {
		t.Run(c.scope, func(t *testing.T) {
			e := newSkillEnv(t)
			state := filepath.Join(e.tmp, "oc-state")
			home := filepath.Join(e.tmp, "oc-home")
			for _, d := range []string{filepath.Join(state, "workspace"), home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if s := openclawSkill(t, p, home, state, filepath.Dir(e.bin)+string(os.PathListSeparator)+withoutSessions()); s != nil {
				t.Fatalf("before the install OpenClaw lists the skill: %+v", s)
			}
			if code, res, msg := e.install(append([]string{"--state-dir", state}, c.args(state)...)...); code != 0 || res.Scope != c.scope {
				t.Fatalf("skill install: exit %d %+v %s", code, res, msg)
			}
			s := openclawSkill(t, p, home, state, filepath.Dir(e.bin)+string(os.PathListSeparator)+withoutSessions())
			if s == nil || !s.Eligible || s.Source != c.source || len(s.Missing.Bins) != 0 {
				t.Fatalf("with sessions on PATH: %+v, want eligible from %s", s, c.source)
			}
			s = openclawSkill(t, p, home, state, withoutSessions())
			if s == nil || s.Eligible || strings.Join(s.Missing.Bins, ",") != "sessions" {
				t.Fatalf("without sessions on PATH: %+v, want ineligible, missing bins [sessions]", s)
			}
		})
	}
}
