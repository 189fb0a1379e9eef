package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// An example is one command line of documentation: an `Example:` line of a
// command's --help, or a line of a ```sh block of the README or of a page
// of the manual (docs/*.md).
type example struct {
	where string // "sessions list --help", "README.md:57", "docs/SCRIPTING.md:120"
	group string // the Example block or code block it belongs to
	line  string
}

// TestExamples runs every example of --help, of the README and of the
// manual's pages (docs/*.md) as printed
// on a copy of the bundled demo state (testdata/state-2026.1.30, found
// through $OPENCLAW_STATE_DIR; the README's `--state-dir testdata/…` lines
// find it in their working directory), in bash with pipefail: each must
// exit 0. Every `sessions …` invocation in them — also the ones that cannot
// run here — must pass flag parsing and the argument check of its command.
// Checked for flag and argument validity only:
//   - send, spawn and wait: they run an agent turn through a model provider
//     (the demo's mock provider is not running) or wait for one;
//   - --follow and watch: they never end, like tail -f;
//   - mcp --http and metrics --listen: they serve until stopped (stdio ends
//     when stdin does); metrics --textfile /abs/path: node_exporter's dir;
//   - ui: it needs a terminal (TestUIInTmux runs it in one);
//   - --gateway and --context: they need a running gateway;
//   - zsh syntax (${fpath[1]}): the examples run in bash.
func TestExamples(t *testing.T) {
	exs := append(helpExamples(t), docExamples(t)...)
	if len(exs) < 30 {
		t.Fatalf("found only %d examples: the extraction is broken", len(exs))
	}
	// The examples of one block run in order in one sandbox, as a reader
	// types them (a context added by one line is used by the next).
	dir := t.TempDir()
	run := 0
	var groups []string
	lines := map[string][]string{}
	for _, ex := range exs {
		invs := invocations(ex.line)
		if len(invs) == 0 {
			t.Errorf("%s: no sessions invocation found in %q", ex.where, ex.line)
			continue
		}
		skip := ""
		for _, argv := range invs {
			cmd, err := checkInvocation(argv)
			if err != nil {
				t.Errorf("%s: %q: %v", ex.where, ex.line, err)
			}
			if r := validityOnly(cmd, argv, ex.line); r != "" {
				skip = r
			}
		}
		if skip != "" {
			t.Logf("%s: flags and arguments checked only (%s): %s", ex.where, skip, ex.line)
			continue
		}
		line := strings.Replace(ex.line, "go run ./cmd/sessions ", "sessions ", 1)
		if _, ok := lines[ex.group]; !ok {
			groups = append(groups, ex.group)
		}
		lines[ex.group] = append(lines[ex.group], fmt.Sprintf("echo '# %s' >&2\n%s", ex.where, line))
		run++
	}
	for i, g := range groups {
		script := fmt.Sprintf(`# %s
copystate state-2026.1.30 state
copystate state-2026.1.30 testdata/state-2026.1.30
mkdir home/.config/sessions
cp vps.token home/.config/sessions/vps.token
env HOME=$WORK/home
env OPENCLAW_STATE_DIR=$WORK/state
exec bash -e -o pipefail example.sh
-- vps.token --
a-token-the-context-examples-name
-- example.sh --
%s
`, g, strings.Join(lines[g], "\n"))
		name := fmt.Sprintf("example_%02d.txtar", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if run < 15 {
		t.Fatalf("only %d examples run for real", run)
	}
	root := fixtures(t)
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", root)
			e.Setenv("NO_COLOR", "1")
			e.Setenv("TZ", "UTC")
			e.Setenv("OPENCLAW_SESSION_KEY", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"copystate": copyState},
	})
}

func exampleFactory() *cmdutil.Factory {
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Getenv: func(string) string { return "" },
	}
}

// helpExamples collects the `sessions …` lines of every command's Example.
func helpExamples(t *testing.T) []example {
	var out []example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Example, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "sessions ") || strings.HasPrefix(l, "source <(sessions ") {
				out = append(out, example{c.CommandPath() + " --help", c.CommandPath(), l})
			} else if l != "" {
				t.Errorf("%s --help: example line %q does not start with sessions", c.CommandPath(), l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.NewRoot(exampleFactory()))
	return out
}

// docExamples collects the lines of the ```sh blocks of the README, of
// CONTRIBUTING.md and of every page of the manual (docs/*.md) that invoke
// sessions (not make, go test or go install).
func docExamples(t *testing.T) []example {
	root := testutil.Root(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, p := range append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, pages...) {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		exs := fileExamples(t, p, filepath.ToSlash(rel))
		if len(exs) == 0 && strings.HasPrefix(rel, "README") {
			t.Errorf("%s: no examples found", rel)
		}
		out = append(out, exs...)
	}
	return out
}

// fileExamples collects the sessions lines of one file's ```sh blocks.
func fileExamples(t *testing.T, path, name string) []example {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	in := false
	block := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			block = fmt.Sprintf("%s:%d", name, n)
		case strings.HasPrefix(l, "```"):
			in = false
		case in && (strings.HasPrefix(l, "sessions ") || strings.HasPrefix(l, "go run ./cmd/sessions ") ||
			strings.HasPrefix(l, "source <(sessions ") || strings.Contains(l, "$(sessions ")):
			out = append(out, example{fmt.Sprintf("%s:%d", name, n), block, l})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// invocations finds every `sessions …` command in a shell line and returns
// their arguments (after "sessions"), word-split as the shell would for
// plain quoting; an invocation ends at an unquoted | & ; ) < > or #.
func invocations(line string) [][]string {
	line = strings.Replace(line, "go run ./cmd/sessions ", "sessions ", 1)
	var out [][]string
	for i := 0; i < len(line); {
		j := strings.Index(line[i:], "sessions ")
		if j < 0 {
			break
		}
		at := i + j
		if at > 0 && !strings.ContainsRune(" \t($", rune(line[at-1])) {
			i = at + len("sessions ")
			continue
		}
		words, end := shellWords(line[at+len("sessions "):])
		out = append(out, words)
		i = at + len("sessions ") + end
		if i < len(line) && line[i] == '#' {
			break // the rest is a comment
		}
	}
	return out
}

func shellWords(s string) (words []string, end int) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				k = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+k])
			inWord = true
			i += k + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte("|&;)<>", c) >= 0 || (c == '#' && !inWord):
			flush()
			return words, i
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, len(s)
}

// checkInvocation parses argv against the command tree as sessions would:
// the command must exist, its flags and values parse, its arguments count.
func checkInvocation(argv []string) (*cobra.Command, error) {
	root := cli.NewRoot(exampleFactory())
	cmd, rest, err := root.Find(argv)
	if err != nil {
		return nil, err
	}
	if cmd == root {
		return nil, fmt.Errorf("no command")
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return cmd, err
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return cmd, err
	}
	return cmd, cmd.ValidateFlagGroups()
}

// validityOnly says why an invocation cannot run here, "" when it can.
func validityOnly(cmd *cobra.Command, argv []string, line string) string {
	if cmd == nil {
		return ""
	}
	switch cmd.Name() {
	case "send", "spawn", "wait":
		return "needs a model provider"
	case "watch":
		return "watch never ends"
	case "ui":
		return "ui needs a terminal"
	case "mcp":
		if slices.Contains(argv, "--http") {
			return "an HTTP server: it serves until stopped"
		}
	case "metrics":
		if slices.Contains(argv, "--listen") {
			return "an HTTP server: it serves until stopped"
		}
		if i := slices.Index(argv, "--textfile"); i >= 0 && i+1 < len(argv) && strings.HasPrefix(argv[i+1], "/") {
			return "writes into node_exporter's directory"
		}
	}
	for _, a := range argv {
		if a == "--follow" || a == "-f" {
			return "--follow never ends"
		}
	}
	if !strings.HasPrefix(cmd.CommandPath(), "sessions context") && (slices.Contains(argv, "--gateway") || slices.Contains(argv, "--context")) {
		return "needs a running gateway"
	}
	if strings.Contains(line, "${fpath") {
		return "zsh syntax"
	}
	return ""
}
