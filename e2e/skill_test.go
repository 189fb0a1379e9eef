package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cmd/skill"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/runstate"
)

// skillEnv is an isolated environment for the sessions binary: nothing of the
// machine's OpenClaw, no gateway, a demo state dir copy, an exec engine
// (testutil.EngineScript) and the binary itself as the detached runner
// and on PATH as "sessions".
type skillEnv struct {
	t     *testing.T
	tmp   string
	state string
	bin   string
	vars  []string
}

func newSkillEnv(t *testing.T) *skillEnv {
	t.Helper()
	e := &skillEnv{t: t, tmp: t.TempDir(), bin: buildBinary(t)}
	e.state = filepath.Join(e.tmp, "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), e.state); err != nil {
		t.Fatal(err)
	}
	engine := filepath.Join(e.tmp, "engine.sh")
	if err := os.WriteFile(engine, []byte(testutil.EngineScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENCLAW_") || strings.HasPrefix(k, "SESSIONS_") || strings.HasPrefix(k, "XDG_") ||
			k == "HOME" || k == "PATH" || k == "CLAWDBOT_STATE_DIR" || k == "ENGINE_TEST_GATE" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "HOME="+e.tmp, "XDG_CONFIG_HOME="+filepath.Join(e.tmp, "xdg-config"),
		"XDG_STATE_HOME="+filepath.Join(e.tmp, "xdg-state"), "XDG_CACHE_HOME="+filepath.Join(e.tmp, "xdg-cache"),
		"PATH="+filepath.Dir(e.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENCLAW_STATE_DIR="+e.state, "SESSIONS_ENGINE=exec:sh "+engine, "SESSIONS_RUNNER_EXE="+e.bin,
		"NO_COLOR=1", "TZ=UTC")
	t.Cleanup(func() { runstate.Settle(e.state) })
	return e
}

// run runs the sessions binary; its exit code, stdout and stderr.
func (e *skillEnv) run(args ...string) (int, string, string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env, cmd.Dir = e.vars, e.tmp
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// traced is a command bash -x traced ("+ sessions …", "++ sessions …" in
// a command substitution).
var traced = regexp.MustCompile(`(?m)^\++ sessions `)

// recipe is one ```sh block of the skill's body, under its heading.
type recipe struct {
	heading string
	line    int
	script  string
}

// recipes are the ```sh blocks of the embedded SKILL.md.
func recipes(t *testing.T) []recipe {
	var out []recipe
	var cur *recipe
	heading := ""
	sc := bufio.NewScanner(bytes.NewReader(skill.Content))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "## "):
			heading = strings.TrimPrefix(l, "## ")
		case cur == nil && l == "```sh":
			cur = &recipe{heading: heading, line: n}
		case cur == nil && strings.HasPrefix(l, "```"):
			t.Fatalf("SKILL.md:%d: a code block that is not sh: its commands would not be run", n)
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.script += l + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("SKILL.md:%d: unterminated code block", cur.line)
	}
	return out
}

// Every recipe of the skill, as the embedded SKILL.md has it, runs in bash
// (-e, pipefail) with the sessions binary on PATH, on the demo state and
// an exec engine: every command exits 0 and each recipe prints something.
// Run in order on one state, as an agent following them would.
func TestSkillRecipesRun(t *testing.T) {
	rs := recipes(t)
	want := []string{"Find a session", "Read a session page by page", "Send a message and wait for the reply",
		"Spawn a sub-agent and follow it", "Search"}
	var got []string
	for _, r := range rs {
		got = append(got, r.heading)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("recipes %q, want %q", got, want)
	}
	e := newSkillEnv(t)
	for _, r := range rs {
		commands := 0
		for _, l := range strings.Split(r.script, "\n") {
			if strings.Contains(l, "sessions ") && !strings.HasPrefix(strings.TrimSpace(l), "#") {
				commands++
			}
		}
		if commands == 0 {
			t.Errorf("SKILL.md:%d (%s): no sessions command", r.line, r.heading)
		}
		// -x: the trace on stderr shows each command that ran (a branch
		// not taken would leave its command untested)
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-x", "-c", r.script)
		cmd.Env, cmd.Dir = e.vars, e.tmp
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Errorf("SKILL.md:%d (%s): %v\n%s\nstdout:\n%s\nstderr:\n%s", r.line, r.heading, err, r.script, out.String(), errOut.String())
			continue
		}
		if strings.TrimSpace(out.String()) == "" {
			t.Errorf("SKILL.md:%d (%s): printed nothing", r.line, r.heading)
		}
		if ran := traced.FindAllString(errOut.String(), -1); len(ran) != commands {
			t.Errorf("SKILL.md:%d (%s): %d sessions commands ran, the recipe has %d:\n%s", r.line, r.heading, len(ran), commands, errOut.String())
		}
		t.Logf("SKILL.md:%d (%s): %d commands, %d bytes out", r.line, r.heading, commands, out.Len())
	}
}

// `sessions skill` prints the embedded file as it is; --json wraps it.
func TestSkillPrint(t *testing.T) {
	e := newSkillEnv(t)
	code, out, _ := e.run("skill")
	if code != 0 || out != string(skill.Content) {
		t.Fatalf("skill: exit %d, output differs from the embedded SKILL.md", code)
	}
	code, out, _ = e.run("skill", "--json")
	var doc skill.Document
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Content != string(skill.Content) || doc.Name != "sessions" || doc.File != "SKILL.md" {
		t.Fatalf("skill --json: exit %d: %v %s", code, err, out)
	}
}

type installed struct {
	Skill, Scope, Path, Status string
}

func (e *skillEnv) install(args ...string) (int, installed, string) {
	e.t.Helper()
	code, out, errOut := e.run(append([]string{"skill", "install", "--json"}, args...)...)
	var res installed
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			e.t.Fatalf("skill install %v: %v\n%s", args, err, out)
		}
	}
	return code, res, errOut + out
}

// install writes the file (global by default, or into a workspace), leaves
// the same file alone, refuses a different one (exit 2, naming the line,
// nothing written) unless --force, and refuses a missing directory (exit
// 10) and both flags (exit 2).
func TestSkillInstall(t *testing.T) {
	e := newSkillEnv(t)
	global := filepath.Join(e.state, "skills", "sessions", "SKILL.md")
	ws := filepath.Join(e.tmp, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(ws, "skills", "sessions", "SKILL.md")

	check := func(path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(b, skill.Content) {
			t.Fatalf("%s: %v (or it differs from the embedded SKILL.md)", path, err)
		}
	}
	for _, c := range []struct {
		args        []string
		scope, path string
	}{{nil, "global", global}, {[]string{"--global"}, "global", global}, {[]string{"--workspace", ws}, "workspace", local}} {
		code, res, msg := e.install(c.args...)
		want := installed{"sessions", c.scope, c.path, "installed"}
		if c.args != nil && c.args[0] == "--global" {
			want.Status = "unchanged"
		}
		if code != 0 || res != want {
			t.Fatalf("skill install %v: exit %d %+v, want %+v: %s", c.args, code, res, want, msg)
		}
		check(c.path)
	}
	// --state-dir names the global target too
	other := filepath.Join(e.tmp, "other-state")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, res, msg := e.install("--state-dir", other); code != 0 || res.Path != filepath.Join(other, "skills", "sessions", "SKILL.md") {
		t.Fatalf("--state-dir: exit %d %+v %s", code, res, msg)
	}

	// a different file: refused, untouched; --force replaces it
	edited := bytes.Replace(skill.Content, []byte("# sessions\n"), []byte("# sessions (mine)\n"), 1)
	if err := os.WriteFile(local, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, msg := e.install("--workspace", ws)
	if code != 2 || !strings.Contains(msg, local) || !strings.Contains(msg, `"# sessions (mine)" there, "# sessions" here`) || !strings.Contains(msg, "--force") {
		t.Fatalf("a different SKILL.md: exit %d: %s", code, msg)
	}
	if b, _ := os.ReadFile(local); !bytes.Equal(b, edited) {
		t.Fatal("a refused install changed the file")
	}
	if code, res, msg := e.install("--workspace", ws, "--force"); code != 0 || res.Status != "replaced" {
		t.Fatalf("--force: exit %d %+v %s", code, res, msg)
	}
	check(local)
	entries, _ := os.ReadDir(filepath.Dir(local))
	if len(entries) != 1 {
		t.Fatalf("%s holds %d files, want SKILL.md only (no temp file left)", filepath.Dir(local), len(entries))
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--workspace", filepath.Join(e.tmp, "nope")}, 10, "does not exist"},
		{[]string{"--state-dir", filepath.Join(e.tmp, "nope")}, 10, "does not exist"},
		{[]string{"--workspace", ws, "--global"}, 2, "cannot be used together"},
		{[]string{"--workspace", ""}, 2, "needs a directory"},
		{[]string{"extra"}, 2, ""},
	} {
		if code, _, msg := e.install(c.args...); code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("skill install %v: exit %d, want %d %q: %s", c.args, code, c.code, c.msg, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(e.tmp, "nope")); err == nil {
		t.Error("a refused install created the directory")
	}
}
