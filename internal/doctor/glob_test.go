package doctor

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestDirNamesGlob: one directory read answers each pattern Collect asks
// as filepath.Glob does — and takes the directory's own name literally,
// where Glob would read "[x]" in it as a pattern.
func TestDirNamesGlob(t *testing.T) {
	odd := "with [x] * and ?"
	if runtime.GOOS == "windows" {
		odd = "with [x]" // no '*' or '?' in a name there
	}
	for _, parent := range []string{"plain", odd} {
		dir := filepath.Join(t.TempDir(), parent)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a.jsonl", ".hidden.jsonl", "b.jsonl.lock", "b.jsonl.lock.x", "c.jsonl.deleted.1",
			"sessions.json.migrated", "sessions.json.migrated.2", "sessions.json.migrated.x", ".migrated", "x.migrated.",
			"d.JSONL", "e.jsonl.jsonl", "[f].jsonl", "*.jsonl"} {
			if runtime.GOOS == "windows" && n == "*.jsonl" {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700); err != nil {
			t.Fatal(err)
		}
		dn := dirNames{}
		for _, pat := range []string{"*.jsonl", "*.jsonl.lock", "*.migrated", "*.migrated.[0-9]*"} {
			got := dn.glob(dir, pat)
			// Glob itself, from inside dir: its name is then no pattern
			t.Chdir(dir)
			want, err := filepath.Glob(pat)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i] = filepath.Join(dir, want[i])
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q in %q: %q; Glob: %q", pat, parent, got, want)
			}
		}
	}
	if got := (dirNames{}).glob(filepath.Join(t.TempDir(), "none"), "*.jsonl"); got != nil {
		t.Errorf("a missing dir: %q", got)
	}
}
