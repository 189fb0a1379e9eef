package e2e_test

// A FIFO planted in place of every file the tool reads under the state dir,
// on copies of both eras' fixtures: every read command (and doctor, and
// doctor --fix) either ignores it or refuses it cleanly — a finding, or a
// "not a regular file" error with exit 10 — and never blocks opening it.
// Every file is left exactly as it was, and the FIFO is still a FIFO.

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
)

const fifoRunID = "6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e"

type fifoSpot struct {
	name string
	rel  string // under the state dir, "/"-separated
}

var fifoSpots = map[string][]fifoSpot{
	"state-2026.1.30": {
		{"transcript", "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"},
		{"sessions.json", "agents/main/sessions/sessions.json"},
		{"subagents-runs.json", "subagents/runs.json"},
		{"config", "openclaw.json"},
		{"run-record", "sessions-cli/runs/" + fifoRunID + ".json"},
		{"archive-index", "sessions-cli/archive.json"},
	},
	"state-2026.9.6": {
		{"agent-db", "agents/main/agent/openclaw-agent.sqlite"},
		{"agent-db-wal", "agents/main/agent/openclaw-agent.sqlite-wal"},
		{"agent-db-shm", "agents/main/agent/openclaw-agent.sqlite-shm"},
		{"subagents-runs.json", "subagents/runs.json"},
		{"config", "openclaw.json"},
		{"run-record", "sessions-cli/runs/" + fifoRunID + ".json"},
	},
}

// fifoCmds are the read commands, and doctor with --fix: a FIFO is never
// opened blocking, whatever the command.
var fifoCmds = [][]string{
	{"list"},
	{"list", "--messages", "2", "--json"},
	{"history", "main"},
	{"show", "main"},
	{"search", "the"},
	{"usage"},
	{"doctor"},
	{"doctor", "--fix"},
	{"locks"},
	{"agents"},
	{"runs"},
	{"runs", "--source", "all"},
	{"wait", fifoRunID, "--timeout", "1"},
}

// doctorMayMiss are the spots doctor has no check of its own for (its
// other reads refuse them without blocking); every other FIFO is a finding.
var doctorMayMiss = map[string]bool{"subagents-runs.json": true, "agent-db-wal": true, "agent-db-shm": true, "archive-index": true, "run-record": true}

func TestAdversarialFIFO(t *testing.T) {
	if err := testutil.Mkfifo(filepath.Join(t.TempDir(), "probe")); errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	notRegular := regexp.MustCompile(`not a regular file`)
	for fixture, spots := range fifoSpots {
		for _, spot := range spots {
			t.Run(fixture+"/"+spot.name, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				state := relState(t, root, fixture)
				p := filepath.Join(state, filepath.FromSlash(spot.rel))
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
				must(t, testutil.Mkfifo(p))
				env := relEnv(root, "OPENCLAW_STATE_DIR="+state)
				before := relSnapshot(t, root)
				for _, args := range fifoCmds {
					r := relRun(t, env, 20*time.Second, args...)
					what := strings.Join(args, " ")
					if r.Hung {
						t.Errorf("sessions %s: hung on the FIFO at %s (killed after 20s)", what, spot.rel)
						continue
					}
					t.Logf("sessions %s: exit %d: %s", what, r.Code, firstLine(r.Stderr))
					switch {
					case r.Code == 0 && args[0] == "doctor" && !doctorMayMiss[spot.name]:
						t.Errorf("sessions %s: no finding for the FIFO at %s:\n%s", what, spot.rel, r.Stdout)
					case r.Code == 0:
					case r.Code == 10:
						if !notRegular.MatchString(r.Stdout + r.Stderr) {
							t.Errorf("sessions %s: exit 10 without naming the FIFO: %s", what, r.Stderr)
						}
					case r.Code == 1 && args[0] == "doctor":
						if !notRegular.MatchString(r.Stdout + r.Stderr) {
							t.Errorf("sessions %s: findings without the FIFO: %s", what, r.Stdout)
						}
					case r.Code == 4 && args[0] == "wait": // no such run (unless the record is the FIFO)
					default:
						t.Errorf("sessions %s: exit %d, want 0 or 10 (not a regular file):\n%s", what, r.Code, r.Stderr)
					}
				}
				// home/ holds the usage cache, outside the state dir
				if d := relDiff(before, relSnapshot(t, root), "home"); len(d) > 0 {
					t.Errorf("files changed: %v", d)
				}
				if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
					t.Errorf("%s is no longer a FIFO: %v %v", spot.rel, fi, err)
				}
			})
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
