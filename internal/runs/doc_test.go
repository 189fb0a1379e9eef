package runs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fill sets every exported field of v (a pointer) to a value that is not
// its zero, at any depth (down to depth levels of a recursive type): a
// document converted from it shows every field the storage type has.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		if depth > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth-1)
		}
	case reflect.Slice:
		if depth > 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0), depth-1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth)
			}
		}
	}
}

func sameJSON(t *testing.T, what string, stored, doc any) {
	t.Helper()
	a, err := json.Marshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("%s: the document is not the stored JSON\nstored:   %s\ndocument: %s", what, a, b)
	}
}

// TestDocKeepsTheStoredJSON: the documents of a run and of its lineage
// (internal/rundoc, what ops hands out) marshal byte for byte as the
// records do, every field set — a field the record gains and the document
// lacks fails here. The one exception is a run's Gateway: the selector its
// runner resolves its gateway with is the runner's input, not part of what
// runs and wait show.
func TestDocKeepsTheStoredJSON(t *testing.T) {
	var rec Record
	fill(reflect.ValueOf(&rec).Elem(), 3)
	if b, _ := json.Marshal(Doc(&rec)); strings.Contains(string(b), `"gateway":`) {
		t.Errorf("a run's document shows the runner's gateway selector: %s", b)
	}
	rec.Gateway = nil
	sameJSON(t, "run", &rec, Doc(&rec))

	var tree []*Node
	fill(reflect.ValueOf(&tree).Elem(), 4)
	sameJSON(t, "lineage", tree, NodeDocs(tree))
}
