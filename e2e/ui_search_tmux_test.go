package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUISearchInTmux drives the real binary's search across every session
// in tmux, on a copy of each era's demo state: S opens the box, the hits
// come as the query is typed (from the search index, built in the cache
// dir the environment names), Enter opens the session at the hit's
// message (marked ▶), Esc goes back to the hits and then to the listing,
// q quits with exit 0.
func TestUISearchInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("skipping the terminal UI test: tmux is not installed")
	}
	bin := relExe(t)
	for _, era := range []struct {
		name, fixture, query, count, hitText, session string
	}{
		{"json", "state-2026.1.30", "hello gr", "2 hits", "): Hello group, quick", "agent:main:signal:group:"},
		{"sqlite", "state-2026.9.6", "returned 15 chars", "1 hit", "MOCK: tool exec returned 15 chars", "main"},
	} {
		t.Run(era.name, func(t *testing.T) {
			root := t.TempDir()
			state := filepath.Join(root, "state")
			copyTree(t, filepath.Join(fixtures(t), era.fixture), state)
			cache := filepath.Join(root, "cache")
			env := relEnv(root, "XDG_CACHE_HOME="+cache, "XDG_CONFIG_HOME="+filepath.Join(root, "xdg-config"),
				"XDG_STATE_HOME="+filepath.Join(root, "xdg-state"))

			u := startUI(t, 120, 32, env, bin, "--state-dir", state, "ui", "--all-agents")
			u.waitText("KEY", "S search")

			u.keys("S")
			u.waitText("search every session:", "as you type")
			u.text(era.query)
			u.waitText(era.count+" for \""+era.query+"\"", era.hitText)
			if ents, err := os.ReadDir(cache); err != nil || len(ents) == 0 {
				t.Fatalf("the search index is not in the cache dir: %v %v", ents, err)
			}

			// Enter: the session, at the hit's message, marked
			u.keys("Enter")
			s := u.waitText("transcript ·", "▶")
			var marked bool
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, "▶") && (strings.Contains(l, "assistant") || strings.Contains(l, "user") || strings.Contains(l, era.hitText)) {
					marked = true
				}
			}
			if !marked || !strings.Contains(s, era.session) {
				t.Fatalf("the hit's message is not marked in %s:\n%s", era.session, s)
			}

			// Esc: the hits again; Esc: the listing; q quits
			u.keys("Escape")
			u.waitText(era.count + " for \"" + era.query + "\"")
			u.keys("Escape")
			u.waitText("KEY", "S search")
			u.keys("q")
			u.waitText("EXIT=0")
		})
	}
}
