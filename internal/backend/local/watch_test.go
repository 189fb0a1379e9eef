package local

import (
	"reflect"
	"testing"

	"github.com/openclaw/sessions/internal/store"
)

// SameMeta compares every field of an entry's Meta.
func TestSameMetaCoversMeta(t *testing.T) {
	rt := reflect.TypeFor[store.Meta]()
	for i := range rt.NumField() {
		var a, b store.Meta
		v := reflect.ValueOf(&b).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		default:
			t.Fatalf("%s: a %s", rt.Field(i).Name, v.Kind())
		}
		if SameMeta(a, b) {
			t.Errorf("SameMeta misses %s", rt.Field(i).Name)
		}
	}
	x, y := 1.0, 1.0
	if !SameMeta(store.Meta{TotalTokens: &x}, store.Meta{TotalTokens: &y}) {
		t.Error("equal pointees differ")
	}
}
