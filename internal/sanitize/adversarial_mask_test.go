package sanitize

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// MaskMessage masks every string of a message an agent reads, at any
// depth: what 9.6 masks (texts) exactly as RedactMessage does, and beyond
// it tool-call arguments (objects and string-encoded), details,
// errorMessage and values under keys that name a secret.
func TestMaskMessageEveryString(t *testing.T) {
	r := NewRedactor(nil, nil)
	in := `{"role":"assistant","content":[{"type":"text","text":"use sk-abcdefghijklmnop1234"},` +
		`{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"curl -H 'Authorization: Bearer bRr7Tk0QmWx2Lp9Zs4Nd8Hy3'","env":{"OPENAI_API_KEY":"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34","Db-Password":"plainpw"},"deep":[[{"x":{"token":"tok3nValue"}}]]}},` +
		`{"type":"toolCall","id":"c2","name":"login","arguments":"{\"apiKey\":\"str1ngEnc0dedKey\",\"user\":\"bob\"}"}],` +
		`"errorMessage":"401 for sk-proj-Er99Rr88Ee77Ww66Qq55Tt44","usage":{"totalTokens":12,"maxTokens":"400"},"details":{"stdout":"GITHUB_TOKEN=ghp_Uu0Tt9Ss8Rr7Qq6Pp5Oo4Nn3Mm2Ll1"}}`
	out, ok := r.MaskMessage([]byte(in))
	if !ok || !json.Valid(out) {
		t.Fatalf("MaskMessage = %s (%v)", out, ok)
	}
	for _, hidden := range []string{"ghijklmnop", "Tk0QmWx2Lp9Zs4", "Cd34Ef56Gh78Ij90", "plainpw", "tok3nValue", "str1ngEnc0dedKey", "Rr88Ee77Ww66", "Uu0Tt9Ss8Rr7Qq6Pp5"} {
		if strings.Contains(string(out), hidden) {
			t.Errorf("%q shown: %s", hidden, out)
		}
	}
	for _, kept := range []string{`"text":"use sk-abc…1234"`, `"user\":\"bob\"`, `"totalTokens":12`, `"id":"c1"`, `"name":"exec"`, `"Db-Password":"***"`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("%s not in %s", kept, out)
		}
	}
	// No secret: the same bytes.
	clean := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"IDENTITY.md","n":[1,2,{"a":null}]}}],"usage":{"totalTokens":12}}`
	if out, ok := r.MaskMessage([]byte(clean)); ok || string(out) != clean {
		t.Errorf("clean message changed: %s", out)
	}
}

// The texts 9.6 masks come out byte for byte as RedactMessage (the port
// of 9.6) gives them: the corpus comparison with 9.6 still holds.
func TestMaskMessageTextsAsRedactMessage(t *testing.T) {
	r := NewRedactor(nil, nil)
	for _, in := range []string{
		`{"role":"user","content":"use sk-abcdefghijklmnop1234 and password=hunter2"}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"token=abcdefghijklmnopqrstuv"},{"type":"text","text":"{\"apiKey\":\"abc\"} Bearer abcdefghijklmnopqrstuvwxyz"}]}`,
		`{"role":"user","text":"-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nxyz\n-----END RSA PRIVATE KEY-----"}`,
	} {
		want, _ := r.RedactMessage([]byte(in))
		got, _ := r.MaskMessage([]byte(in))
		if string(got) != string(want) {
			t.Errorf("MaskMessage(%s)\n  = %s\n  RedactMessage: %s", in, got, want)
		}
	}
}

// Hostile shapes: a nesting deeper than any stack, invalid JSON and a
// string that only looks like JSON answer without a crash, masked.
func TestMaskMessageHostile(t *testing.T) {
	r := NewRedactor(nil, nil)
	deep := strings.Repeat(`{"password":[`, 100000) + `"s3cretDeepValue"` + strings.Repeat(`]}`, 100000)
	out, ok := r.MaskMessage([]byte(deep))
	if !ok || strings.Contains(string(out), "s3cretDeepValue") || !gjson.ValidBytes(out) {
		t.Errorf("deep nesting: masked %v, valid %v", ok, gjson.ValidBytes(out))
	}
	bad := `{"role":"user","content":"password=hunter2hunter2 `
	out, ok = r.MaskMessage([]byte(bad))
	if !ok || strings.Contains(string(out), "hunter2hunter2") || !json.Valid(out) {
		t.Errorf("invalid JSON: %s", out)
	}
	looks := `{"arguments":"{not json password=hunter2hunter2"}`
	if out, _ := r.MaskMessage([]byte(looks)); strings.Contains(string(out), "hunter2hunter2") {
		t.Errorf("string that looks like JSON: %s", out)
	}
}

func TestIsSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"OPENAI_API_KEY": true, "apiKey": true, "password": true, "token": true, "GITHUB_TOKEN": true,
		"Authorization": true, "client_secret": true, "x-api-key": true, "pass": true, "cookie": true,
		"totalTokens": false, "sessionKey": false, "key": false, "text": false, "id": false, "passes": false,
	} {
		if got := IsSecretKey(k); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", k, got, want)
		}
	}
}
