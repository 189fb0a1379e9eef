package cli

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// commandsMustNotImport are the packages that know where sessions live or
// how they are written: a command reaches them only through internal/ops.
// Front-ends (the commands, cmdutil, the MCP server, the terminal UI) get
// documents from ops and ask ops.Capabilities where they must choose:
// they know no era, no run store, no state.
var commandsMustNotImport = []string{
	"gateway", "sqlitestore", "sqlitewrite", "sqlitefile", "sqlitedb", "store", "transcript", "transcripts",
	"backend", "sessionwrite", "engine", "runner", "launch", "lifecycle", "archive",
	"state", "runs", "era", "lock", "doctor", "usage", "search",
}

// TestCommandLayers holds the layering of docs/ARCHITECTURE.md: no package
// under internal/cmd imports a store, a transport, the writers or another
// command (the context command edits the gateway contexts file), and
// state does not import a writer.
func TestCommandLayers(t *testing.T) {
	const mod = "github.com/openclaw/sessions/internal/"
	allowed := map[string]map[string]bool{"context": {"gateway": true}}
	root := filepath.Join("..", "cmd")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			for _, imp := range imports(t, file) {
				if !strings.HasPrefix(imp, mod) {
					continue
				}
				p := strings.TrimPrefix(imp, mod)
				if strings.HasPrefix(p, "cmd/") {
					t.Errorf("%s imports the command %s", file, p)
				}
				for _, banned := range commandsMustNotImport {
					if (p == banned || strings.HasPrefix(p, banned+"/")) && !allowed[d.Name()][banned] {
						t.Errorf("%s imports internal/%s: commands reach it through internal/ops", file, p)
					}
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d command files checked", checked)
	}
	// the MCP server, the terminal UI and what the commands share are
	// front-ends like the commands
	files, _ := filepath.Glob(filepath.Join("..", "mcpserver", "*.go"))
	uiFiles, _ := filepath.Glob(filepath.Join("..", "ui", "*.go"))
	utilFiles, _ := filepath.Glob(filepath.Join("..", "cmdutil", "*.go"))
	if len(uiFiles) == 0 || len(utilFiles) == 0 {
		t.Fatal("no terminal UI or cmdutil files found")
	}
	files = append(append(files, uiFiles...), utilFiles...)
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		for _, imp := range imports(t, file) {
			p := strings.TrimPrefix(imp, mod)
			for _, banned := range append(commandsMustNotImport, "cmd") {
				if strings.HasPrefix(imp, mod) && (p == banned || strings.HasPrefix(p, banned+"/")) {
					t.Errorf("%s imports internal/%s: a front-end reaches it through internal/ops", file, p)
				}
			}
		}
	}
	files, _ = filepath.Glob(filepath.Join("..", "state", "*.go"))
	for _, file := range files {
		for _, imp := range imports(t, file) {
			if strings.HasSuffix(imp, "/sqlitewrite") || strings.HasSuffix(imp, "/sessionwrite") {
				t.Errorf("%s imports the writer %s", file, imp)
			}
		}
	}
}

func imports(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}

// TestSignalsInMain: signals are handled in one place, cli.Main (every
// command gets them through cmd.Context() and says what it needs through
// cmdutil.Signals): no other non-test file of the module sets up signal
// handling.
func TestSignalsInMain(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", ".git", "dist", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		// cli itself, and the fake LLM server of the engine tests (a
		// program of its own)
		if strings.HasPrefix(rel, "internal/cli/") || strings.Contains(rel, "/enginetest/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, call := range []string{"signal.Notify", "signal.Ignore", "signal.Reset"} {
			if strings.Contains(string(data), call) {
				t.Errorf("%s calls %s: signals are handled in cli.Main (cmdutil.Signals)", path, call)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked", checked)
	}
}
