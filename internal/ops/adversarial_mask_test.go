package ops

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/watch"
)

// A label or a display name is free text an agent reads in list, show and
// the change feed: a secret in it is masked for an agent, shown as stored
// to the operator.
func TestAdversarialLabelsMasked(t *testing.T) {
	const label = "deploy password=Zq7pW3xK9mB2vL5nR8tY4c"
	const hidden = "xK9mB2vL5nR8"
	for _, masked := range []bool{false, true} {
		o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{Redact: masked})
		editMainEntry(t, dir, func(e map[string]any) {
			e["label"] = label
			e["displayName"] = label
		})
		lr, err := o.List(context.Background(), ListQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(lr)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("list, masked %v: %s", masked, doc)
		}
		sr, err := o.Show(context.Background(), ShowQuery{Ref: "main"})
		if err != nil {
			t.Fatal(err)
		}
		doc, _ = json.Marshal(sr)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("show, masked %v: %s", masked, doc)
		}
		// each event leaves Watch through the boundary, as send delivers it
		evs, err := deliver(o, watch.Docs([]watch.Event{{Kind: watch.Updated, Fields: []string{"label"}, Row: &state.Row{Key: "agent:main:main", Label: label, DisplayName: label}}}, "", false, o.Now(), o.watchMask()), nil)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ = json.Marshal(evs)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("watch, masked %v: %s", masked, doc)
		}
	}
}

// Every string of an entry reaches an agent masked, not only the fields
// once on a list: where a reply goes (lastTo, deliveryContext.to and
// accountId — a webhook URL may carry a token) and any member added
// later; the operator reads them as stored.
func TestAdversarialEntryFieldsMasked(t *testing.T) {
	const token = "ghp_Zq7pW3xK9mB2vL5nR8tY4cA1sD6fG0hJ2kL4"
	const hidden = "xK9mB2vL5nR8tY4c"
	for _, as := range []string{"", "agent:main:main"} {
		o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: as})
		editMainEntry(t, dir, func(e map[string]any) {
			e["lastTo"] = "https://hooks.example/in?token=" + token
			e["deliveryContext"] = map[string]any{"channel": "webhook", "to": "https://hooks.example/" + token, "accountId": token}
			e["someFutureField"] = map[string]any{"nested": []any{"x " + token}}
		})
		lr, err := o.List(context.Background(), ListQuery{Limit: 50, Messages: 2})
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(lr)
		if strings.Contains(string(doc), hidden) != (as == "") {
			t.Errorf("list as %q: %s", as, doc)
		}
	}
}

// The one seam: every exported operation of Ops that hands out a document
// hands it out through deliver (the agent boundary), so an operation added
// later cannot forget it. A method returns through deliver (or calls the
// boundary itself), or is one of the few that hand out no document of the
// state.
func TestEveryOperationDelivers(t *testing.T) {
	notDocuments := map[string]string{
		"OpenStateForTest": "tests", "RunStoreForTest": "tests",
		"CanRead": "a check", "ExecuteRun": "the runner's own process",
		"Config": "the configuration given", "Now": "the clock",
		"Getenv": "the environment", "Scope": "where the invocation works", "InstallSkill": "the operator's file write",
		"RequesterKey": "the requester's own key, as it gave it",
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() || fn.Body == nil {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if id, ok := star.X.(*ast.Ident); !ok || id.Name != "Ops" {
				continue
			}
			if _, ok := notDocuments[fn.Name.Name]; ok {
				continue
			}
			through := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					switch c := x.Fun.(type) {
					case *ast.Ident:
						through = through || c.Name == "deliver"
					case *ast.SelectorExpr:
						// o.boundary().Err(...): an operation whose documents
						// go out through deliver as they are emitted
						through = through || c.Sel.Name == "Err"
					}
				}
				return true
			})
			if !through {
				t.Errorf("%s: (*Ops).%s hands out a document without the agent boundary (deliver)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}

// The boundary masks a document's exported fields and copies its
// unexported ones as they are (no encoding writes them). A document type
// that keeps data a front-end may show in unexported fields must hand it
// out through the boundary itself; this list is every such type reachable
// from an operation's result, so a new one is a decision, not an accident.
func TestDocumentsUnexportedFields(t *testing.T) {
	known := map[string]string{
		"ops.SearchResult": "hits built on demand: Hit and Highlight go through the boundary (r.m)",
		"ops.Session":      "handles to the transcript's readers, no text",
	}
	notDocuments := map[string]bool{"OpenStateForTest": true, "RunStoreForTest": true, "Config": true}
	seen := map[reflect.Type]bool{}
	found := map[string]bool{}
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			visit(t.Elem())
		case reflect.Struct:
			if t.PkgPath() == "time" {
				return
			}
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if !f.IsExported() {
					if f.Type.Kind() != reflect.Func && f.Type.Kind() != reflect.Chan {
						found[t.String()] = true
					}
					continue
				}
				visit(f.Type)
			}
		}
	}
	ops := reflect.TypeOf(&Ops{})
	for i := 0; i < ops.NumMethod(); i++ {
		m := ops.Method(i)
		if notDocuments[m.Name] {
			continue
		}
		for j := 0; j < m.Type.NumOut(); j++ {
			visit(m.Type.Out(j))
		}
	}
	for name := range found {
		if _, ok := known[name]; !ok {
			t.Errorf("%s keeps unexported fields: the boundary copies them unmasked; hand what a front-end shows of them out through the boundary and list it here", name)
		}
	}
	for name := range known {
		if !found[name] {
			t.Errorf("%s no longer keeps unexported fields: drop it from the list", name)
		}
	}
}
