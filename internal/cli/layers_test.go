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
var commandsMustNotImport = []string{
	"gateway", "sqlitestore", "sqlitewrite", "sqlitefile", "sqlitedb", "store", "transcript", "transcripts",
	"backend", "sessionwrite", "engine", "runner", "launch", "lifecycle", "archive",
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
	// the MCP server and the terminal UI are front-ends like the commands
	files, _ := filepath.Glob(filepath.Join("..", "mcpserver", "*.go"))
	uiFiles, _ := filepath.Glob(filepath.Join("..", "ui", "*.go"))
	if len(uiFiles) == 0 {
		t.Fatal("no terminal UI files found")
	}
	files = append(files, uiFiles...)
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
