package cli

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	"state", "runs", "era", "lock", "doctor", "usage", "search", "hostset",
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
	// the terminal UI is no cobra program: it formats its cells with
	// internal/cells, not through the commands' shared package
	for _, file := range uiFiles {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		for _, imp := range imports(t, file) {
			if imp == mod+"cmdutil" || strings.HasPrefix(imp, "github.com/spf13/cobra") {
				t.Errorf("%s imports %s: the terminal UI does not depend on cobra", file, imp)
			}
		}
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

// binaryUsers are the test files outside e2e that may use the binary the
// shared testutil.SessionsBinary builds, and why: each starts it as the
// detached runner of the runs it makes, or measures the MCP server process
// beside list processes (scripts/bench_mcp.sh runs those benchmarks).
var binaryUsers = map[string]string{
	"internal/ops/conformance_test.go":         "the detached runner of the conformance suite's runs",
	"internal/ops/conformance_interop_test.go": "the detached runner, beside the real gateways",
	"internal/mcpserver/harness_test.go":       "sessionsBinary, for the two below",
	"internal/mcpserver/disconnect_test.go":    "the detached runner of a send whose MCP client went away",
	"internal/mcpserver/bench_test.go":         "the MCP server's benchmarks beside list (make bench-mcp)",
}

// buildsBinary matches what builds cmd/sessions in a test: go build, the
// interop helper, the shared build of the detached runner.
var buildsBinary = regexp.MustCompile(`exec\.Command(Context)?\([^\n]*"build"|peertest\.BuildSessions\(|testutil\.SessionsBinary\(`)

// TestTestLayout holds the map of the tests (CONTRIBUTING.md): a test that
// builds and runs the sessions binary lives in e2e, nowhere else, except
// the binary as the detached runner (binaryUsers); each testscript is named
// after the command it tests, <command>_<what>.txtar (sessions_<what> for
// the root command: global flags, what every command shares), and is
// listed in CONTRIBUTING.md's tests by command.
func TestTestLayout(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "e2e" || rel == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, "_test.go") || rel == "internal/cli/layers_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if m := buildsBinary.Find(b); m != nil && binaryUsers[rel] == "" {
			t.Errorf("%s builds the sessions binary (%s): a test that runs the binary belongs in e2e (CONTRIBUTING.md)", rel, m)
		}
		if bytes.Contains(b, []byte("sessionsBinary(")) && binaryUsers[rel] == "" {
			t.Errorf("%s runs the sessions binary (sessionsBinary): a test that runs the binary belongs in e2e (CONTRIBUTING.md)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d test files checked: the walk is broken", checked)
	}

	f, _, _ := testFactory(false)
	commands := map[string]bool{"sessions": true, "help": true}
	for _, c := range NewRoot(f).Commands() {
		commands[c.Name()] = true
	}
	contributing, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "e2e", "testdata", "script", "*.txtar"))
	if len(scripts) < 100 {
		t.Fatalf("only %d testscripts found", len(scripts))
	}
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ".txtar")
		cmd, _, _ := strings.Cut(name, "_")
		if !commands[cmd] {
			t.Errorf("e2e/testdata/script/%s.txtar: not named <command>_<what>.txtar (%q is no command; sessions_<what> for the root's)", name, cmd)
		}
		if !regexp.MustCompile(`[ |,]` + regexp.QuoteMeta(name) + `[ ,|]`).Match(contributing) {
			t.Errorf("e2e/testdata/script/%s.txtar is not in CONTRIBUTING.md's tests by command", name)
		}
	}
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

// opsTwin is a function of ops named for one transport.
var opsTwin = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?(\w+(?:Local|Remote|ThroughNamed|ThroughGateway|OverGateway))\(`)

// TestOpsImportsNoStorage: the operations layer composes and checks
// policy; the stores, the transcript files and the lock files are read and
// written below it (state, transcripts, the sessionwrite writers), never
// from ops itself; nor does it know a gateway or write an operation once
// per transport (internal/hostset decides where, backend.Host implements).
func TestOpsImportsNoStorage(t *testing.T) {
	const mod = "github.com/openclaw/sessions/internal/"
	files, _ := filepath.Glob(filepath.Join("..", "ops", "*.go"))
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		checked++
		for _, imp := range imports(t, file) {
			switch strings.TrimPrefix(imp, mod) {
			case "store", "sqlitestore", "sqlitewrite", "sqlitefile", "sqlitedb", "transcript", "lock":
				t.Errorf("%s imports %s: ops reaches storage through state, transcripts and sessionwrite", file, imp)
			case "gateway":
				t.Errorf("%s imports %s: where an invocation works is internal/hostset's, and what a gateway does is gatewayhost.Gateway's", file, imp)
			case "github.com/tidwall/gjson", "bufio":
				t.Errorf("%s imports %s: ops reads no stored line and streams nothing itself: an export's range and stream are internal/export's, its transcripts the host's (backend.PlanExport)", file, imp)
			case "backend/local", "backend/gatewayhost":
				t.Errorf("%s imports %s: ops asks a host through backend's interfaces; which implementation answers is hostset's", file, imp)
			case "era", "transcripts", "usage", "hoststat", "doctor":
				t.Errorf("%s imports %s: ops knows no era and no host's files; a host-only read is a host's (backend's optional interfaces)", file, imp)
			}
		}
		for _, call := range fileSystemCalls(t, file) {
			t.Errorf("%s: %s: ops touches no file; what a host reads or writes is the host's (backend, its engines)", file, call)
		}
		for _, call := range hostBuilders(t, file) {
			t.Errorf("%s: %s: the hosts of an invocation are resolved and built by hostset.Resolver, asked once per Ops", file, call)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range opsTwin.FindAllSubmatch(b, -1) {
			t.Errorf("%s: %s is written for one transport: an operation on one host is backend.Host's, whole, on every implementation", file, m[1])
		}
	}
	if checked < 20 {
		t.Fatalf("only %d ops files checked", checked)
	}
}

// documentPackages hold the documents ops hands out as its own (aliases
// of their types): each is a leaf that knows nothing of where what it
// describes is stored, and the package that reads it converts into it
// (state rows, runs records, hostread answers).
var documentPackages = []string{"sessionrow", "rundoc", "hostdoc", "historydoc", "lifecycledoc"}

// aliasMustNotName are the packages whose types ops may not hand out as
// its own under another name: the stores, the engines that read a host's
// files and their answers. A document ops hands out is its own type or a
// type of a document package.
var aliasMustNotName = map[string]bool{
	"store": true, "sqlitestore": true, "sqlitewrite": true, "sqlitefile": true, "sqlitedb": true, "transcript": true,
	"transcripts": true, "lock": true, "runs": true, "usage": true, "doctor": true, "hoststat": true, "era": true,
	"state": true, "hostread": true, "hostmetrics": true, "lifecycle": true, "sessionwrite": true,
}

// TestDocumentPackages: the documents front-ends get are ops's own or a
// document package's (documentPackages: leaves, importing nothing of the
// module), never a storage type or an engine's answer renamed by an alias
// in ops.
func TestDocumentPackages(t *testing.T) {
	const mod = "github.com/openclaw/sessions/internal/"
	for _, pkg := range documentPackages {
		files, _ := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		checked := 0
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			checked++
			for _, imp := range imports(t, file) {
				if strings.HasPrefix(imp, "github.com/openclaw/sessions/") {
					t.Errorf("%s imports %s: a document package is a leaf; the package that reads what it describes converts into it", file, imp)
				}
			}
		}
		if checked == 0 {
			t.Errorf("no document package internal/%s", pkg)
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "ops", "*.go"))
	aliases := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkgOf := map[string]string{}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			pkgOf[name] = strings.TrimPrefix(path, mod)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Assign.IsValid() {
					continue
				}
				aliases++
				if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && aliasMustNotName[pkgOf[id.Name]] {
						t.Errorf("%s: %s = %s.%s hands out a type of internal/%s: declare ops's own document, or one of a document package (%s)",
							file, ts.Name.Name, id.Name, sel.Sel.Name, pkgOf[id.Name], strings.Join(documentPackages, ", "))
					}
				}
			}
		}
	}
	if aliases < 10 {
		t.Fatalf("only %d aliases found in ops", aliases)
	}
}

// hostBuilders are the calls in file that resolve or build hosts past
// hostset.Resolver (hostset.Resolve, hostset.NewLocal, state.Open: this
// host's state is opened by the Resolver, once), as "hostset.Resolve" at
// their line.
func hostBuilders(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			switch id.Name + "." + sel.Sel.Name {
			case "hostset.Resolve", "hostset.NewLocal", "state.Open":
				out = append(out, fmt.Sprintf("%s.%s (line %d)", id.Name, sel.Sel.Name, fset.Position(sel.Pos()).Line))
			}
		}
		return true
	})
	return out
}

// fileSystemCalls are the calls (and uses) of os, path/filepath and io/fs
// in file, as "os.Stat" at their line.
func fileSystemCalls(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		switch path {
		case "os", "path/filepath", "io/fs":
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = path
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] != "" && id.Obj == nil {
			out = append(out, fmt.Sprintf("%s.%s (line %d)", id.Name, sel.Sel.Name, fset.Position(sel.Pos()).Line))
		}
		return true
	})
	return out
}

// TestInteropNames: every test built only with -tags interop has Interop
// in its name, since make interop runs those alone (-run Interop; make
// test has run the others). Those of e2e, one package, run in parallel
// (t.Parallel first): each waits on real gateways most of its time, and
// one after the other they would take most of CI's time.
func TestInteropNames(t *testing.T) {
	root := filepath.Join("..", "..")
	test := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n(\s*t\.Parallel\(\))?`)
	interopOnly := regexp.MustCompile(`(?m)^//go:build interop\s*$`)
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !interopOnly.Match(b) {
			return nil
		}
		for _, m := range test.FindAllSubmatch(b, -1) {
			found++
			if !bytes.Contains(m[1], []byte("Interop")) {
				t.Errorf("%s: %s is built for interop only but make interop (-run Interop) would not run it: put Interop in its name", path, m[1])
			}
			if filepath.Base(filepath.Dir(path)) == "e2e" && len(m[2]) == 0 {
				t.Errorf("%s: %s does not start with t.Parallel(): the e2e interop tests run beside each other", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 30 {
		t.Fatalf("only %d interop tests found", found)
	}
}

// storageEras are the values an era.Era may have: where an agent's
// sessions live on a host (its store), or that it has none yet.
var storageEras = map[string]bool{"json": true, "sqlite": true, "none": true}

// TestNoGatewayEra: a gateway is a transport, not a storage era. The era
// package declares only the eras of a store (storageEras); no Go file of
// the module names a gateway era (an identifier of era containing
// "Gateway", or era.Era("gateway")): a write route says it goes through a
// gateway (sessionwrite.Route.Gateway), and a document answered by a
// gateway host says so in its own words.
func TestNoGatewayEra(t *testing.T) {
	const eraPath = "github.com/openclaw/sessions/internal/era"
	root := filepath.Join("..", "..")
	eraFiles, _ := filepath.Glob(filepath.Join("..", "era", "*.go"))
	declared := 0
	for _, file := range eraFiles {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Era" {
					continue
				}
				for i, name := range v.Names {
					declared++
					s := ""
					if i < len(v.Values) {
						if lit, ok := v.Values[i].(*ast.BasicLit); ok {
							s, _ = strconv.Unquote(lit.Value)
						}
					}
					if !storageEras[s] {
						t.Errorf("%s: era.%s is not the era of a store (%v): a gateway is a transport", file, name.Name, s)
					}
				}
			}
		}
	}
	if declared == 0 {
		t.Fatal("no era declared in internal/era")
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			if filepath.Base(filepath.Dir(path)) == "internal" && d.Name() == "era" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		name := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == eraPath {
				name = "era"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		isEra := func(e ast.Expr) (string, bool) {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok {
				return "", false
			}
			id, ok := sel.X.(*ast.Ident)
			return sel.Sel.Name, ok && id.Name == name && id.Obj == nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if sel, ok := isEra(n); ok && strings.Contains(strings.ToLower(sel), "gateway") {
					t.Errorf("%s:%d: era.%s names a gateway era: a gateway is a transport (a route's Gateway, a host's own words)", path, fset.Position(n.Pos()).Line, sel)
				}
			case *ast.CallExpr:
				if sel, ok := isEra(n.Fun); ok && sel == "Era" && len(n.Args) == 1 {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok {
						if s, _ := strconv.Unquote(lit.Value); !storageEras[s] {
							t.Errorf("%s:%d: era.Era(%s) is not the era of a store", path, fset.Position(n.Pos()).Line, lit.Value)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 300 {
		t.Fatalf("only %d Go files checked", checked)
	}
}

// overlayAPI is what this host's state dir may use of the gateway host's
// package, and overlayFile the one file of backend/local that may: a
// 2026.8+ agent whose gateway is live here spawns through that gateway's
// own spawn, as a gateway host does (the overlay).
var overlayAPI = map[string]bool{"SpawnThrough": true, "ChildSpawn": true}

const overlayFile = "overlay.go"

// TestBackendLayers holds the layout of internal/backend (rclone's
// backend/<name>): the package of the interfaces imports neither
// implementation nor the gateway client; the gateway host
// (backend/gatewayhost) imports nothing of the local host; the local host
// (backend/local) imports no gateway client, and reaches the gateway
// host's package from its overlay file only, through overlayAPI, never
// its other names. Test files are held too: a test of one host builds no
// other.
func TestBackendLayers(t *testing.T) {
	const mod = "github.com/openclaw/sessions/internal/"
	const (
		iface   = mod + "backend"
		local   = mod + "backend/local"
		gwHost  = mod + "backend/gatewayhost"
		gwCli   = mod + "gateway"
		backend = "backend"
	)
	files := func(dir string) []string {
		out, _ := filepath.Glob(filepath.Join("..", backend, dir, "*.go"))
		if len(out) < 5 {
			t.Fatalf("only %d files in internal/backend/%s", len(out), dir)
		}
		return out
	}
	for _, file := range files("") {
		for _, imp := range imports(t, file) {
			if imp == local || imp == gwHost || imp == gwCli || strings.HasPrefix(imp, iface+"/") {
				t.Errorf("%s imports %s: the interfaces and their shared values know no implementation and no transport", file, imp)
			}
		}
	}
	for _, file := range files("gatewayhost") {
		for _, imp := range imports(t, file) {
			if imp == local {
				t.Errorf("%s imports %s: the gateway host needs no state dir of this machine", file, imp)
			}
		}
	}
	overlays := 0
	for _, file := range files("local") {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			switch {
			case p == gwCli || strings.HasPrefix(p, gwCli+"/"):
				t.Errorf("%s imports %s: the local host writes through its live gateway with sessionwrite's gateway writer and the gateway host's overlay, never the client itself", file, p)
			case p == gwHost || strings.HasPrefix(p, gwHost+"/"):
				if filepath.Base(file) != overlayFile || p != gwHost {
					t.Errorf("%s imports %s: only the local host's %s reaches the gateway host", file, p, overlayFile)
					continue
				}
				overlays++
				name = "gatewayhost"
				if s.Name != nil {
					name = s.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && !overlayAPI[sel.Sel.Name] {
					t.Errorf("%s:%d: %s.%s: the overlay uses the gateway host's %v only", file, fset.Position(sel.Pos()).Line, name, sel.Sel.Name, overlayAPI)
				}
			}
			return true
		})
	}
	if overlays != 1 {
		t.Errorf("%d files of backend/local import the gateway host, want the overlay (%s) alone", overlays, overlayFile)
	}
}
