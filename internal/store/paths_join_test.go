package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestJoinNameIsJoin: joinName(filepath.Clean(dir), name) is
// filepath.Join(dir, name) for every name a transcript gets (a session id
// that ValidSessionID takes, plus ".jsonl").
func TestJoinNameIsJoin(t *testing.T) {
	dirs := []string{"", ".", "/", "//", "/a", "/a/", "a", "a/b/../c", "/a/./b//", "../x", "/state/agents/main/sessions",
		`C:`, `C:.`, `C:\`, `C:\a`, `C:a`, `\\host\share`, `\\host\share\x`}
	names := []string{"x.jsonl", "cd613e30-d8f1-4adf-91b7-584a2265b1f5.jsonl", " a b .jsonl", ".jsonl", "a.b.jsonl", "é.jsonl"}
	for _, d := range dirs {
		for _, n := range names {
			if got, want := joinName(filepath.Clean(d), n), filepath.Join(d, n); got != want {
				t.Errorf("joinName(Clean(%q), %q) = %q, want %q", d, n, got, want)
			}
		}
	}
}

func FuzzJoinNameIsJoin(f *testing.F) {
	f.Add("/state/agents/main/sessions", "abc")
	f.Add("", ".")
	f.Fuzz(func(t *testing.T, dir, id string) {
		if ValidSessionID(id) != nil || strings.ContainsRune(dir, 0) {
			t.Skip()
		}
		n := id + ".jsonl"
		if got, want := joinName(filepath.Clean(dir), n), filepath.Join(dir, n); got != want {
			t.Fatalf("joinName(Clean(%q), %q) = %q, want %q", dir, n, got, want)
		}
	})
}
