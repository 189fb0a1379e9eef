package e2e_test

// The rule for a store directory that is a symlink: it is followed for
// reads (and OpenClaw's own writes), but `doctor --fix` repairs only files
// whose real place is inside the real state dir. An orphan transcript in a
// sessions dir symlinked outside the state dir stays where it is, and its
// finding says why; one symlinked within the state dir is renamed.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const orphanName = "0badf00d-1111-4222-8333-444455556666.jsonl"

// symlinkedOpsStore moves agents/ops/sessions to target (relative to root)
// and links it back, then plants an orphan transcript in it.
func symlinkedOpsStore(t *testing.T, root, target string) (state string) {
	t.Helper()
	state = relState(t, root, "state-2026.1.30")
	dir := filepath.Join(state, "agents", "ops", "sessions")
	real := filepath.Join(root, filepath.FromSlash(target))
	must(t, os.MkdirAll(filepath.Dir(real), 0o755))
	must(t, os.Rename(dir, real))
	must(t, os.Symlink(real, dir))
	src := filepath.Join(real, "5ceeb65c-a102-4129-8193-0ee080a00422.jsonl")
	data, err := os.ReadFile(src)
	must(t, err)
	orphan := filepath.Join(real, orphanName)
	must(t, os.WriteFile(orphan, data, 0o600))
	old := time.Now().Add(-time.Hour) // past doctor's grace for a turn in progress
	must(t, os.Chtimes(orphan, old, old))
	return state
}

type doctorDoc struct {
	Findings []struct {
		Check    string `json:"check"`
		Path     string `json:"path"`
		Fixable  bool   `json:"fixable"`
		Fixed    string `json:"fixed"`
		FixError string `json:"fixError"`
	} `json:"findings"`
}

func orphanFinding(t *testing.T, out string) (fixed, fixErr string, found bool) {
	t.Helper()
	var d doctorDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, f := range d.Findings {
		if filepath.Base(f.Path) == orphanName {
			return f.Fixed, f.FixError, true
		}
	}
	return "", "", false
}

func TestAdversarialSymlinkedStoreOutsideIsNeverRepaired(t *testing.T) {
	root := t.TempDir()
	state := symlinkedOpsStore(t, root, "outside/ops-sessions")
	env := relEnv(root, "OPENCLAW_STATE_DIR="+state)

	// read: followed
	if r := relRun(t, env, 20*time.Second, "list", "--agent", "ops", "--json"); r.Code != 0 || !strings.Contains(r.Stdout, `"agent:ops:`) {
		t.Fatalf("list --agent ops through the symlinked store: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	outside := filepath.Join(root, "outside")
	before := relSnapshot(t, outside)
	r := relRun(t, env, 20*time.Second, "doctor", "--fix", "--json")
	if r.Hung || r.Code != 1 {
		t.Fatalf("doctor --fix: exit %d (want 1: a warning left)\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if d := relDiff(before, relSnapshot(t, outside)); len(d) > 0 {
		t.Errorf("doctor --fix changed files outside the state dir: %v", d)
	}
	fixed, fixErr, found := orphanFinding(t, r.Stdout)
	if !found || fixed != "" || !strings.Contains(fixErr, "outside the state dir") || !strings.Contains(fixErr, "fix it by hand") {
		t.Errorf("the orphan's finding: found %v, fixed %q, fixError %q; want not fixed, outside the state dir: fix it by hand", found, fixed, fixErr)
	}
}

func TestAdversarialSymlinkedStoreInsideIsRepaired(t *testing.T) {
	root := t.TempDir()
	state := symlinkedOpsStore(t, root, "state/relocated/ops-sessions")
	env := relEnv(root, "OPENCLAW_STATE_DIR="+state)
	r := relRun(t, env, 20*time.Second, "doctor", "--fix", "--json")
	if r.Hung || r.Code != 0 && r.Code != 1 {
		t.Fatalf("doctor --fix: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	fixed, fixErr, found := orphanFinding(t, r.Stdout)
	if !found || !strings.HasPrefix(fixed, "renamed to ") || fixErr != "" {
		t.Errorf("the orphan's finding: found %v, fixed %q, fixError %q; want renamed", found, fixed, fixErr)
	}
	if _, err := os.Stat(filepath.Join(root, "state", "relocated", "ops-sessions", orphanName)); !os.IsNotExist(err) {
		t.Errorf("the orphan inside the state dir was not renamed: %v", err)
	}
}
