package jsonx

import (
	"encoding/json"
	"testing"
)

func TestObjectRoundTrip(t *testing.T) {
	in := `{"z":1,"a":{"nested":[1,2,{"k":"<&>"}]},"m":"\u2028","dup":1,"dup":2,"n":null}`
	var o Object
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if got := o.Keys(); len(got) != 5 || got[0] != "z" || got[1] != "a" || got[3] != "dup" {
		t.Fatalf("keys = %q", got)
	}
	if v := string(o.Raw("dup")); v != "2" {
		t.Errorf("dup = %s, want the last value", v)
	}
	out, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":{"nested":[1,2,{"k":"<&>"}]},"m":"\u2028","dup":2,"n":null}`; string(out) != want {
		t.Errorf("round trip:\n got %s\nwant %s", out, want)
	}
	o.Delete("a")
	if err := o.Set("new", map[string]string{"x": "<y>"}); err != nil {
		t.Fatal(err)
	}
	if s, ok := o.String("m"); !ok || s != "\u2028" {
		t.Errorf("String = %q %v", s, ok)
	}
	if n, ok := o.Number("z"); !ok || n != 1 {
		t.Errorf("Number = %v %v", n, ok)
	}
	out, _ = o.MarshalJSON()
	if want := `{"z":1,"m":"\u2028","dup":2,"n":null,"new":{"x":"<y>"}}`; string(out) != want {
		t.Errorf("after edit:\n got %s\nwant %s", out, want)
	}
	c := o.Clone()
	c.Delete("z")
	if !o.Has("z") {
		t.Error("Clone shares state")
	}
	var bad Object
	if err := json.Unmarshal([]byte(`[1]`), &bad); err == nil {
		t.Error("array accepted as object")
	}
}

func TestMarshalIndentLikeJS(t *testing.T) {
	b, err := MarshalIndent(map[string]any{"a": []int{1}, "b": "<>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"<>\"\n}"; string(b) != want {
		t.Errorf("got %q", b)
	}
}

func TestObjectInvalidUTF8AndErrors(t *testing.T) {
	var o Object
	// Raw invalid UTF-8 inside a string: encoding/json accepts it; so must we.
	if err := o.UnmarshalJSON([]byte("{\"a\":\"x\xffy\",\"b\":1}")); err != nil {
		t.Fatalf("invalid UTF-8 refused: %v", err)
	}
	if got := o.Keys(); len(got) != 2 || got[0] != "a" {
		t.Errorf("keys = %q", got)
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `{"a":1,}`, `[]`, `"x"`, `{"a":1} x`} {
		if err := o.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// The values do not alias the caller's buffer.
	in := []byte(`{"k":"v"}`)
	if err := o.UnmarshalJSON(in); err != nil {
		t.Fatal(err)
	}
	in[6] = 'X'
	if s, _ := o.String("k"); s != "v" {
		t.Errorf("value aliases the input: %q", s)
	}
}
