package boundary

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sanitize"
)

const secret = "ghp_Zq7pW3xK9mB2vL5nR8tY4cA1sD6fG0hJ2kL4"

// hidden is the part of secret no masked form keeps.
const hidden = "xK9mB2vL5nR8tY4c"

type inner struct {
	Note  string
	Any   any
	Token string `json:"token"`
}

type doc struct {
	Key      string            `json:"key"`
	Count    int               `json:"count"`
	Label    *string           `json:"label,omitempty"`
	Tags     []string          `json:"tags"`
	ByName   map[string]string `json:"byName"`
	Nested   []*inner          `json:"nested"`
	Messages []json.RawMessage `json:"messages"`
	Hidden   string            `json:"-"`
	fixed    string
}

func newMasker() *Masker { return New(sanitize.NewRedactor(nil, nil)) }

// Every string at any depth is masked — fields, pointers, slices, map
// keys and values, interfaces, embedded JSON, fields the JSON leaves out
// — and the document handed in is left as it was.
func TestApplyMasksEveryString(t *testing.T) {
	label := "deploy " + secret
	in := &doc{
		Key:      "agent:main:main",
		Count:    3,
		Label:    &label,
		Tags:     []string{"a", secret},
		ByName:   map[string]string{secret: "x", "to": "https://hook.example/?token=" + secret},
		Nested:   []*inner{{Note: secret, Any: map[string]any{"deep": []any{secret}}, Token: "short"}},
		Messages: []json.RawMessage{json.RawMessage(`{"role":"user","content":[{"type":"text","text":"` + secret + `"}],"details":{"cmd":"` + secret + `"}}`)},
		Hidden:   secret,
		fixed:    "unexported",
	}
	out, err := Apply(newMasker(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), hidden) || strings.Contains(out.Hidden, hidden) {
		t.Fatalf("a secret left the boundary: %s (Hidden %q)", b, out.Hidden)
	}
	if out.Key != "agent:main:main" || out.Count != 3 || out.fixed != "unexported" {
		t.Errorf("structure changed: %+v", out)
	}
	if out.Nested[0].Token != "***" {
		t.Errorf("a value under a secret-naming key is masked whole: %q", out.Nested[0].Token)
	}
	// the input is untouched (it may be a cache's)
	if *in.Label != label || in.Tags[1] != secret || in.Nested[0].Note != secret || !strings.Contains(string(in.Messages[0]), secret) {
		t.Errorf("the input was changed: %+v", in)
	}
}

// A text the boundary's own masker masked on the way is not masked again
// (masking is not idempotent), nor is a cut of it; any other string is.
func TestApplyKeepsWhatItMasked(t *testing.T) {
	m := newMasker()
	raw := "run --token abcdefghijklmnopqrstuvwxyz now"
	once, _ := m.Redactor().Redact(raw)
	twice, _ := sanitize.NewRedactor(nil, nil).Redact(once)
	if once == twice {
		t.Fatalf("the test needs a text masking changes twice: %q", once)
	}
	cut := once[:20] + "\n…(truncated)…"
	type page struct{ Text, Cut, Foreign string }
	out, err := Apply(m, page{Text: once, Cut: cut, Foreign: once + "!"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != once || out.Cut != cut {
		t.Errorf("masked twice: %q, %q", out.Text, out.Cut)
	}
	if out.Foreign == once+"!" {
		t.Errorf("a string the masker never produced was kept: %q", out.Foreign)
	}
	// a second Masker knows nothing of the first's texts
	out2, _ := Apply(newMasker(), page{Text: once})
	if out2.Text != twice {
		t.Errorf("another invocation's masked text was kept: %q", out2.Text)
	}
}

type opaque struct{ data []string }

func (o opaque) MarshalJSON() ([]byte, error) { return json.Marshal(o.data) }

type rebuildable struct{ data []string }

func (o rebuildable) MarshalJSON() ([]byte, error) { return json.Marshal(o.data) }
func (o *rebuildable) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &o.data)
}

// A value whose data the boundary cannot reach is refused, never handed
// out; one it can rebuild from its JSON is masked through it.
func TestApplyFailsClosed(t *testing.T) {
	if _, err := Apply(newMasker(), struct{ O opaque }{opaque{[]string{secret}}}); err == nil {
		t.Error("an opaque value went out")
	}
	out, err := Apply(newMasker(), struct{ R rebuildable }{rebuildable{[]string{secret}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(out.R.data, ""), hidden) {
		t.Errorf("not masked: %v", out.R.data)
	}
	if _, err := Apply(newMasker(), struct{ B []byte }{[]byte(secret)}); err == nil {
		t.Error("bytes went out unmasked")
	}
}

// Without a masker (the operator) a document goes out as it is.
func TestApplyNilMasker(t *testing.T) {
	in := &doc{Key: secret}
	out, err := Apply[*doc](nil, in)
	if err != nil || out != in {
		t.Errorf("Apply(nil) = %v, %v", out, err)
	}
	if New(nil) != nil {
		t.Error("New(nil) is not nil")
	}
}

// An error's message is masked and its exit code kept.
func TestErr(t *testing.T) {
	m := newMasker()
	err := m.Err(apperr.NotFoundf("no session %s", secret))
	if strings.Contains(err.Error(), hidden) || apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("Err = %v (code %d)", err, apperr.CodeOf(err))
	}
	if strings.Contains(m.Err(errors.New(secret)).Error(), hidden) {
		t.Error("a plain error's message was not masked")
	}
}
