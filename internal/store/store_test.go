package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

func TestLoadFixture(t *testing.T) {
	s, err := Load("../../testdata/state-2026.1.30/agents/main/sessions/sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 8 || s.JSON5 || s.Missing {
		t.Fatalf("entries=%d json5=%v missing=%v", len(s.Entries), s.JSON5, s.Missing)
	}
	e, ok := s.Lookup("agent:main:signal:dm:+15551230001")
	if !ok {
		t.Fatal("dm entry missing")
	}
	if e.SessionID != "26a610b5-ea74-4c48-bd74-9be14f7f2944" || e.Updated() != 1795236253233 || e.ChatType != "direct" ||
		e.DC == nil || e.DC.Channel != "signal" || *e.TotalTokens != 6147 || e.SessionFile == "" {
		t.Errorf("meta = %+v", e.Meta)
	}
	if !strings.HasPrefix(string(e.Raw), "{") || !strings.HasSuffix(string(e.Raw), "}") {
		t.Errorf("raw entry not an object: %.40s", e.Raw)
	}
}

func TestParseEdgeCases(t *testing.T) {
	s, err := Parse("x/sessions.json", []byte(`{"a":{"sessionId":"1","updatedAt":5},"b":7,"a":{"sessionId":"2","provider":"Discord","lastProvider":"x","room":"#r"},"c":{"channel":"keep","provider":"no"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 2 || s.Skipped != 1 {
		t.Fatalf("entries=%d skipped=%d", len(s.Entries), s.Skipped)
	}
	if s.Entries[0].Key != "a" || s.Entries[0].SessionID != "2" {
		t.Errorf("duplicate key: want first position, last value; got %+v", s.Entries[0])
	}
	if s.Entries[0].Channel != "Discord" || s.Entries[0].LastChannel != "x" {
		t.Errorf("legacy provider fields not migrated: %+v", s.Entries[0].Meta)
	}
	if s.Entries[1].Channel != "keep" {
		t.Errorf("channel overwritten by provider: %q", s.Entries[1].Channel)
	}
}

func TestCorrupt(t *testing.T) {
	for name, in := range map[string]string{
		"empty":     "",
		"spaces":    " \n\t",
		"truncated": `{"a":{"sessionId":"1"`,
		"array":     `[{"a":1}]`,
		"null":      `null`,
		"string":    `"x"`,
		"garbage":   "\x00\x00\x00",
	} {
		_, err := Parse("p/sessions.json", []byte(in))
		if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "p/sessions.json is corrupt") {
			t.Errorf("%s: err = %v (code %d)", name, err, apperr.CodeOf(err))
		}
	}
}

func TestJSON5(t *testing.T) {
	s, err := Parse("s.json", []byte("// c\n{ a: {sessionId: 'x', updatedAt: 0x10,}, /* b */ 'b': {sessionId: \"y\"}, }"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.JSON5 || len(s.Entries) != 2 {
		t.Fatalf("json5=%v entries=%d", s.JSON5, len(s.Entries))
	}
	if e, _ := s.Lookup("a"); e.SessionID != "x" || e.Updated() != 16 {
		t.Errorf("a = %+v", e.Meta)
	}
}

func TestMissingAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	s, err := Load(filepath.Join(dir, "sessions.json"))
	if err != nil || !s.Missing || len(s.Entries) != 0 {
		t.Fatalf("missing store: %v %+v", err, s)
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads anything")
	}
	p := filepath.Join(dir, "locked.json")
	if err := os.WriteFile(p, []byte("{}"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("unreadable: %v", err)
	}
}

func TestValidSessionID(t *testing.T) {
	for id, ok := range map[string]bool{
		"26a610b5-ea74-4c48-bd74-9be14f7f2944": true, "abc": true,
		"": false, " ": false, "a/b": false, `a\b`: false, "..": false, "x..y": false, "a\x00": false,
	} {
		if (ValidSessionID(id) == nil) != ok {
			t.Errorf("ValidSessionID(%q) ok=%v", id, !ok)
		}
	}
}

func TestTranscriptResolution(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	sess := filepath.Join(state, "agents", "main", "sessions")
	out := filepath.Join(root, "outside")
	for _, d := range []string{sess, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sess, "id1.jsonl"))
	write(filepath.Join(out, "id2.jsonl"))
	write(filepath.Join(sess, "thread.jsonl"))
	write(filepath.Join(out, "thread.jsonl"))
	if err := os.Symlink(filepath.Join(out, "id2.jsonl"), filepath.Join(sess, "id3.jsonl")); err != nil {
		t.Fatal(err)
	}
	st := &Store{Path: filepath.Join(sess, FileName), Dir: sess}
	r := NewResolver(state)
	for _, tc := range []struct {
		name, id, file string
		want           string // base name under sess, "" = error, "new:" = not existing
	}{
		{"default", "id1", "", "id1.jsonl"},
		{"sessionFile inside", "zzz", filepath.Join(sess, "id1.jsonl"), "id1.jsonl"},
		{"sessionFile missing falls back", "id1", "/home/claw/.openclaw/agents/main/sessions/id1.jsonl", "id1.jsonl"},
		{"sessionFile outside, no copy", "id2", filepath.Join(out, "id2.jsonl"), ""},
		{"sessionFile outside, base name in store dir", "nope", filepath.Join(out, "thread.jsonl"), "thread.jsonl"},
		{"symlink out", "id3", "", ""},
		{"nothing yet", "fresh", "", "new:fresh.jsonl"},
		{"bad id", "../id1", "", ""},
	} {
		e := &Entry{Key: tc.name, Meta: Meta{SessionID: tc.id, SessionFile: tc.file}}
		got, err := r.Transcript(st, e, sess)
		switch {
		case tc.want == "":
			if err == nil {
				t.Errorf("%s: want error, got %+v", tc.name, got)
			}
		case strings.HasPrefix(tc.want, "new:"):
			if err != nil || got.Exists || filepath.Base(got.Path) != strings.TrimPrefix(tc.want, "new:") || !filepath.IsAbs(got.Path) {
				t.Errorf("%s: %+v %v", tc.name, got, err)
			}
		default:
			if err != nil || !got.Exists || got.Path != filepath.Join(sess, tc.want) {
				t.Errorf("%s: %+v %v", tc.name, got, err)
			}
		}
	}
}

// FuzzValidSessionID holds ValidSessionID's one-pass check of the usual
// id to the rule it shortens: not blank, no path separator, NUL or "..".
func FuzzValidSessionID(f *testing.F) {
	for _, s := range []string{"26a610b5-ea74-4c48-bd74-9be14f7f2944", "abc", "", " ", "\u00a0x", "a/b", `a\b`, "..", "x..y", "a.", ".a", "a\x00", "\x7fz", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ref := strings.TrimSpace(id) != "" && !strings.ContainsAny(id, "/\\\x00") && !strings.Contains(id, "..")
		if got := ValidSessionID(id) == nil; got != ref {
			t.Errorf("ValidSessionID(%q) ok=%v, the rule says %v", id, got, ref)
		}
	})
}
