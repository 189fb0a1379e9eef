package gatewaysel

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// A selector names a gateway by URL or context; options alone name none.
func TestNamedAndZero(t *testing.T) {
	for _, c := range []struct {
		s           Selector
		zero, named bool
	}{
		{Selector{}, true, false},
		{Selector{Insecure: true}, false, false},
		{Selector{TokenFile: "t"}, false, false},
		{Selector{URL: "ws://h"}, false, true},
		{Selector{Contexts: []string{"a"}}, false, true},
	} {
		if c.s.IsZero() != c.zero || c.s.Named() != c.named {
			t.Errorf("%+v: zero %v named %v, want %v %v", c.s, c.s.IsZero(), c.s.Named(), c.zero, c.named)
		}
	}
}

// Portable makes the token file's path absolute and copies the contexts;
// its JSON (a run record's) reads back the same and holds no secret.
func TestPortable(t *testing.T) {
	in := Selector{URL: "wss://h", TokenFile: "tok", Insecure: true, Fingerprint: "ab", Contexts: []string{"c1"}}
	p := in.Portable()
	abs, _ := filepath.Abs("tok")
	if p.TokenFile != abs || in.TokenFile != "tok" {
		t.Errorf("token file %q (given %q), want %q", p.TokenFile, in.TokenFile, abs)
	}
	p.Contexts[0] = "changed"
	if in.Contexts[0] != "c1" {
		t.Error("Portable shares the contexts")
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"url":"wss://h","tokenFile":"tok","insecure":true,"fingerprint":"ab","contexts":["c1"]}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Selector
	if err := json.Unmarshal(b, &back); err != nil || back.URL != in.URL || back.TokenFile != in.TokenFile || !back.Insecure || back.Fingerprint != in.Fingerprint || len(back.Contexts) != 1 {
		t.Errorf("read back %+v (%v)", back, err)
	}
	if b, _ := json.Marshal(Selector{}); string(b) != "{}" {
		t.Errorf("zero JSON %s", b)
	}
}
