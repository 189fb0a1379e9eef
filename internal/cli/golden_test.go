package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// goldenRuns are the read commands whose output must not change when the
// code under them is reshaped: JSON and tables (piped and on a terminal),
// on both storage eras.
var goldenRuns = []struct {
	name string
	tty  bool
	args []string
}{
	{"list_all_json", false, []string{"list", "--all-agents", "--limit", "all", "--json"}},
	{"list_all_tsv", false, []string{"list", "--all-agents", "--limit", "all"}},
	{"list_all_tty", true, []string{"list", "--all-agents"}},
	{"list_msgs_json", false, []string{"list", "--messages", "2", "--json"}},
	{"list_kinds_tsv", false, []string{"list", "--all-agents", "--kinds", "main,group"}},
	{"show_main_json", false, []string{"show", "main", "--json"}},
	{"show_main_tsv", false, []string{"show", "main"}},
	{"show_main_tty", true, []string{"show", "main"}},
	{"history_main_json", false, []string{"history", "main", "--json"}},
	{"history_main_text", false, []string{"history", "main"}},
	{"history_main_md", false, []string{"history", "main", "--format", "markdown", "--include-tools"}},
	{"history_main_raw", false, []string{"history", "main", "--raw", "--json", "--limit", "3"}},
	{"search_json", false, []string{"search", "-i", "mock", "--all-agents", "--include-archived", "--json"}},
	{"search_text", false, []string{"search", "-i", "hello", "--all-agents"}},
	{"search_tty", true, []string{"search", "-i", "hello", "--all-agents", "-C", "1"}},
	{"usage_json", false, []string{"usage", "--all-agents", "--by", "model,day", "--json"}},
	{"usage_table", false, []string{"usage", "--all-agents", "--by", "agent"}},
	{"usage_tty", true, []string{"usage", "--all-agents", "--by", "session"}},
	{"agents_json", false, []string{"agents", "--json"}},
	{"agents_tsv", false, []string{"agents"}},
	{"agents_tty", true, []string{"agents"}},
	{"locks_json", false, []string{"locks", "--json"}},
	{"doctor_json", false, []string{"doctor", "--json"}},
	{"doctor_tty", true, []string{"doctor"}},
	{"runs_json", false, []string{"runs", "--json", "--source", "all"}},
	{"runs_tree", false, []string{"runs", "--tree", "--source", "all"}},
	{"notfound_json", false, []string{"show", "no-such-session", "--json"}},
}

// TestGoldenReads runs every read command on a copy of each fixture state
// and compares stdout, stderr and the exit code with testdata/golden
// (UPDATE_GOLDEN=1 rewrites them). The copy's path reads as $STATE.
func TestGoldenReads(t *testing.T) {
	prev := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = prev })
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6", "state-2026.9.8"} {
		t.Run(fx, func(t *testing.T) {
			for _, g := range goldenRuns {
				t.Run(g.name, func(t *testing.T) {
					tmp := t.TempDir()
					dir := filepath.Join(tmp, "state")
					if err := testutil.CopyTree(filepath.Join("..", "..", "testdata", fx), dir); err != nil {
						t.Fatal(err)
					}
					env := map[string]string{"NO_COLOR": "1", "HOME": tmp,
						"XDG_STATE_HOME": filepath.Join(tmp, "xdg-state"), "XDG_CONFIG_HOME": filepath.Join(tmp, "xdg-config"),
						"XDG_CACHE_HOME": filepath.Join(tmp, "xdg-cache")}
					ios, _, out, errOut := iostreams.Test()
					ios.SetStdoutTTY(g.tty)
					ios.SetTerminalWidth(1000) // wide: a cut never depends on the temp dir's length
					f := &cmdutil.Factory{
						IO:     ios,
						Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: tmp},
						Flags:  &cmdutil.GlobalFlags{},
						Now:    func() time.Time { return time.UnixMilli(1795236254224 + 90*60*1000) },
						Getenv: func(k string) string { return env[k] },
					}
					code := Run(f, append([]string{"--state-dir", dir}, g.args...))
					real, _ := filepath.EvalSymlinks(dir)
					norm := func(b *bytes.Buffer) string {
						s := b.String()
						if real != "" && real != dir {
							s = strings.ReplaceAll(s, real, "$STATE")
						}
						return strings.ReplaceAll(s, dir, "$STATE")
					}
					got := fmt.Sprintf("exit %d\n-- stdout --\n%s-- stderr --\n%s", code, norm(out), norm(errOut))
					path := filepath.Join("testdata", "golden", fx, g.name)
					if testutil.UpdateGolden() {
						if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
					}
					if got != string(want) {
						t.Errorf("%s %s changed:\n%s", fx, strings.Join(g.args, " "), lineDiff(string(want), got))
					}
				})
			}
		})
	}
}

// lineDiff names the first differing line of want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return "(equal lines, different ends)"
}
