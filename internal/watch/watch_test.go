package watch

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

func f64(v float64) *float64 { return &v }
func bp(v bool) *bool        { return &v }

func TestDiff(t *testing.T) {
	a := ID{Agent: "main", Key: "main"}
	b := ID{Agent: "main", Key: "agent:main:cron:x"}
	c := ID{Agent: "ops", Key: "agent:ops:main"}
	row := func(id ID, tokens float64, label string) Item {
		return Item{Row: state.Row{Key: id.Key, AgentID: id.Agent, Kind: "main", TotalTokens: f64(tokens), Label: label}}
	}
	prev := Snapshot{a: row(a, 1, ""), b: row(b, 2, "x")}
	cases := []struct {
		name string
		next Snapshot
		want []string // kind key fields
	}{
		{"nothing", Snapshot{a: row(a, 1, ""), b: row(b, 2, "x")}, nil},
		{"updated", Snapshot{a: row(a, 5, "new"), b: row(b, 2, "x")}, []string{"updated main label,totalTokens"}},
		{"added", Snapshot{a: row(a, 1, ""), b: row(b, 2, "x"), c: row(c, 0, "")}, []string{"added agent:ops:main "}},
		{"removed", Snapshot{a: row(a, 1, "")}, []string{"removed agent:main:cron:x "}},
		{"all three, in ID order", Snapshot{a: row(a, 9, ""), c: row(c, 0, "")},
			[]string{"removed agent:main:cron:x ", "updated main totalTokens", "added agent:ops:main "}},
		{"transcript marks are not compared", Snapshot{a: {Row: prev[a].Row, Transcript: Mark{Offset: 99}}, b: row(b, 2, "x")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ev := range Diff(prev, tc.next) {
				got = append(got, string(ev.Kind)+" "+ev.ID.Key+" "+strings.Join(ev.Fields, ","))
				if (ev.Kind == Removed) != (ev.Row == nil) {
					t.Errorf("%s: row %v", ev.Kind, ev.Row)
				}
				if ev.Row != nil && ev.Row.Key != ev.ID.Key {
					t.Errorf("%s: the row of %s", ev.ID.Key, ev.Row.Key)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Fields compares every field of a list row but the ones it says it
// leaves out: a field added to state.Row must be added there too.
func TestFieldsCoverTheRow(t *testing.T) {
	rt := reflect.TypeFor[state.Row]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || name == "" || slices.Contains(NotCompared, name) {
			continue
		}
		var a, b state.Row
		set(t, reflect.ValueOf(&b).Elem().Field(i))
		if got := Fields(&a, &b); !slices.Equal(got, []string{name}) {
			t.Errorf("field %s changed: Fields says %q", name, got)
		}
	}
	x := state.Row{DeliveryContext: &store.DeliveryContext{Channel: "c"}, SystemSent: bp(true)}
	y := state.Row{DeliveryContext: &store.DeliveryContext{Channel: "c"}, SystemSent: bp(true)}
	if got := Fields(&x, &y); got != nil {
		t.Errorf("equal pointees: %q", got)
	}
}

// set gives v a non-zero value.
func set(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		set(t, p.Elem())
		v.Set(p)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		set(t, v.Field(0))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	default:
		t.Fatalf("no value for a %s", v.Kind())
	}
}

func TestShort(t *testing.T) {
	long := strings.Repeat("é", 130)
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"  two\n\nlines\tand  spaces ", "two lines and spaces"},
		{"bell\a and nul\x00 go", "bell and nul go"},
		{long, strings.Repeat("é", 120) + "…"},
		{strings.Repeat("a", 119) + " b", strings.Repeat("a", 119) + "…"},
		{strings.Repeat("a", 120), strings.Repeat("a", 120)},
		{"", ""},
	} {
		if got := Short(c.in, ShortLen); got != c.want {
			t.Errorf("Short(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestReadMessage(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want MessageInfo
	}{
		{`{"role":"user","content":"hi"}`, MessageInfo{Role: "user", Text: "hi"}},
		{`{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a"},{"type":"toolCall","name":"read"},{"type":"text","text":"b"}]}`,
			MessageInfo{Role: "assistant", Text: "a [read] b"}},
		{`{"role":"user","content":[{"type":"image","data":"…"}],"__openclaw":{"id":"m9"}}`, MessageInfo{Role: "user", ID: "m9", Text: "[image]"}},
		{`{"type":"message","id":"e1","message":{"role":"toolResult","content":[{"type":"text","text":"out"}]}}`, MessageInfo{Role: "toolResult", ID: "e1", Text: "out"}},
		{`not json`, MessageInfo{}},
	} {
		if got := ReadMessage(json.RawMessage(c.raw)); got != c.want {
			t.Errorf("ReadMessage(%s) = %+v, want %+v", c.raw, got, c.want)
		}
	}
}
