// Package docjson holds a document to the JSON of the stored type it is
// converted from: Fill sets every field of the stored value, SameJSON
// compares the two marshalled. For the tests beside each converter.
package docjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Fill sets every exported field of v (a pointer) to a value that is not
// its zero, at any depth (down to depth levels of a recursive type): a
// document converted from it shows every field the storage type has.
func Fill(v reflect.Value, depth int) {
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
			Fill(v.Elem(), depth-1)
		}
	case reflect.Slice:
		if depth > 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			Fill(v.Index(0), depth-1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				Fill(v.Field(i), depth)
			}
		}
	}
}

// SameJSON fails t when doc does not marshal byte for byte as stored.
func SameJSON(t *testing.T, what string, stored, doc any) {
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
