package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// The expected strings are what OpenClaw 2026.9.6's redactToolPayloadText
// returned for the same input (run with the peer's node on its dist module).
var openclawRedactions = []struct{ in, want string }{
	{"key sk-abcdefghijklmnop1234 end", "key sk-abc…1234 end"},
	{"ghp_abcdefghij1234567890XYZ", "ghp_ab…0XYZ"},
	{"short sk-abcdefgh1", "short ***"},
	{"nothing here", "nothing here"},
	{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123", "Authorization: Bearer abcdef…0123"},
	{"SK-ABCDEFGHIJKLMNOPQRSTU", "SK-ABC…RSTU"},
	{"token github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "token github…mnop"},
	{"slack xoxb-1234567890-abcdefghijklmnop", "slack xoxb-1…mnop"},
	{"gsk_abcdefghijklmnopqrstuv and npm_ABCDEFGHIJKLMNOP1234", "gsk_ab…stuv and npm_AB…1234"},
	{"AIzaSyA1234567890abcdefghijklmnop", "AIzaSy…mnop"},
	{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrs", "jwt eyJhbG…pqrs"},
	{"url https://user:supersecretpassword123@example.com/x", "url https://user:supers…d123@example.com/x"},
	{"db postgres://admin:hunter2hunter2@db.local:5432/app", "db postgres://admin:***@db.local:5432/app"},
	{"run --api-key=abcdefghijklmnopqrstuvwxyz now", "run --api-key=abcdef…wxyz now"},
	{"hf_abcdefghijklmnopqrstuvwxyz", "hf_abc…wxyz"},
	{"two: sk-aaaaaaaaaaaaaaaaaaaa1111 and sk-bbbbbbbbbbbbbbbbbbbb2222", "two: sk-aaa…1111 and sk-bbb…2222"},
	{"AKIAIOSFODNN7EXAMPLE", "AKIAIO…MPLE"},
	{"telegram 123456789:AAbbccddeeffgghhiijjkkllmmnn", "telegram 123456…mmnn"},
	{"glpat-abcdefghijklmnopqrstu", "glpat-…rstu"},
	{"sk_live_abcdefghijklmnop1234", "sk_liv…1234"},
	{"bearer short12345", "bearer short12345"},
	{"pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAw", "pypi-A…MDAw"},
	{"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC\nabc\n-----END RSA PRIVATE KEY-----\ndone", "key:\n-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----\ndone"},
	{"-----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY-----", "***"},
	{"sk-abcdefghijklmnop1234)", "sk-abc…1234)"},
	{"see https://x.com/a?token=abcdefghijklmnopqrstuvwxyz&b=1", "see https://x.com/a?token=abcdef…wxyz&b=1"},
	{"https://x.com/?code=abc", "https://x.com/?code=***"},
	{"https://x.com/?page=2&api_key=&x=1", "https://x.com/?page=2&api_key=***&x=1"},
	{"https://x.com/?Access-Token=abcdefghijklmnopqrstuvwxyz)", "https://x.com/?Access-Token=abcdef…wxyz)"},
	{"https://x.com/?sig=abcdefghijklmnopqrstuvwxyz#frag", "https://x.com/?sig=abcdef…wxyz#frag"},
	{"https://x.com/?my_token=abcdefghijklmnopqrstuvwxyz", "https://x.com/?my_token=abcdef…wxyz"},
	{"https://x.com/?to%6Ben=abcdefghijklmnopqrstuvwxyz", "https://x.com/?to%6Ben=abcdef…wxyz"},
	{"no url ?token=abcdefghijklmnopqrstuvwxyz", "no url ?token=abcdef…wxyz"},
	{"(ghp_abcdefghij1234567890XYZ)", "(ghp_ab…0XYZ)"},
	{"my token is xoxp-abc", "my token is xoxp-abc"},
	{"data:image/png;base64,AAAAgAAAAabcdefghijklmnopqrstuvwxyz", "data:image/png;base64,AAAAgAAAAabcdefghijklmnopqrstuvwxyz"},
	{"-----BEGIN PRIVATE KEY-----\r\nAAAA\r\n\r\n-----END PRIVATE KEY----- x -----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----\n…redacted…\n-----END PRIVATE KEY----- x -----BEGIN PRIVATE KEY-----\n…redacted…\n-----END PRIVATE KEY-----"},
}

func TestRedactMatchesOpenClaw(t *testing.T) {
	r := NewRedactor(nil, nil)
	for _, c := range openclawRedactions {
		got, changed := r.Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, OpenClaw: %q", c.in, got, c.want)
		}
		if changed != (c.in != c.want) {
			t.Errorf("Redact(%q) changed = %v", c.in, changed)
		}
	}
}

// With logging.redactPatterns ["internal-[A-Z]{10,}", "(MYCORP_[a-z])",
// "(?<=x)y"] (the last one RE2 cannot compile; OpenClaw compiles it).
var openclawUserRedactions = []struct{ in, want string }{
	{"my internal-ABCDEFGHIJKLMNOPQRSTUV key", "my intern…STUV key"},
	{"MYCORP_x", "***"},
	{"sk-abcdefghijklmnop1234", "sk-abc…1234"},
}

var userPatternRuns int

func TestRedactUserPatterns(t *testing.T) {
	var warnings []string
	// a list of its own in each run: the process warns once per list
	userPatternRuns++
	unique := fmt.Sprintf("never-%d-[0-9]{40}", userPatternRuns)
	patterns := []string{"internal-[A-Z]{10,}", "(MYCORP_[a-z])", "(?<=x)y", "  ", unique}
	r := NewRedactor(patterns, func(m string) { warnings = append(warnings, m) })
	if again := NewRedactor(patterns, func(m string) { warnings = append(warnings, m) }); again != r {
		t.Error("the same patterns compiled twice")
	}
	for _, c := range openclawUserRedactions {
		if got, _ := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, OpenClaw: %q", c.in, got, c.want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "(?<=x)y") {
		t.Errorf("warnings = %q, want one naming the lookbehind pattern", warnings)
	}
}

func TestRedactPatternLiteralFlags(t *testing.T) {
	r := NewRedactor([]string{"/Secret-[0-9]+/"}, nil)
	if got, _ := r.Redact("secret-123 Secret-456"); got != "secret-123 ***" {
		t.Errorf("case-sensitive literal: got %q", got)
	}
	r = NewRedactor([]string{"/Secret-[0-9]+/i"}, nil)
	if got, _ := r.Redact("secret-123"); got != "***" {
		t.Errorf("/i literal: got %q", got)
	}
}

func TestRedactNilAndEmpty(t *testing.T) {
	var r *Redactor
	if got, ch := r.Redact("sk-abcdefghijklmnop1234"); ch || got != "sk-abcdefghijklmnop1234" {
		t.Errorf("nil redactor changed text: %q", got)
	}
}

func TestRedactMessage(t *testing.T) {
	r := NewRedactor(nil, nil)
	in := `{"role":"assistant","content":[{"type":"text","text":"key sk-abcdefghijklmnop1234"},{"type":"thinking","thinking":"ghp_abcdefghij1234567890XYZ","x":1},{"type":"toolCall","arguments":{"k":"sk-abcdefghijklmnop1234"}}],"text":"plain","z":2}`
	want := `{"role":"assistant","content":[{"type":"text","text":"key sk-abc…1234"},{"type":"thinking","thinking":"ghp_ab…0XYZ","x":1},{"type":"toolCall","arguments":{"k":"sk-abcdefghijklmnop1234"}}],"text":"plain","z":2}`
	got, ok := r.RedactMessage([]byte(in))
	if !ok || string(got) != want {
		t.Errorf("RedactMessage = %s (%v), want %s", got, ok, want)
	}
	clean := `{"role":"user","content":"hello"}`
	if got, ok := r.RedactMessage([]byte(clean)); ok || string(got) != clean {
		t.Errorf("clean message changed: %s", got)
	}
	if got, ok := r.RedactMessage([]byte(`{"role":"user","content":"use sk-abcdefghijklmnop1234"}`)); !ok || string(got) != `{"role":"user","content":"use sk-abc…1234"}` {
		t.Errorf("string content: %s", got)
	}
}

// BenchmarkRedact masks a 4000-character text (sessions_history's cap per
// text) holding two credentials.
func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat("plain words of a transcript, nothing to mask here. ", 76) + " sk-abcdefghijklmnop1234 and ghp_abcdefghij1234567890XYZ"
	r := NewRedactor(nil, nil)
	for b.Loop() {
		r.Redact(text)
	}
}
