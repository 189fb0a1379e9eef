package doctor_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/testutil"
)

// An index that cannot be kept is an info finding with a fix, never what
// makes doctor's exit non-zero; a cache dir that is fine (or holds no
// index yet) says nothing.
func TestIndexThatCannotBeKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	indexFindings := func() []doctor.Finding {
		var out []doctor.Finding
		for _, f := range run(t, dir, time.Now()) {
			if len(f.Check) > 6 && f.Check[:6] == "index." {
				out = append(out, f)
			}
		}
		return out
	}
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	if fs := indexFindings(); len(fs) != 0 {
		t.Fatalf("no cache dir yet (it can be made): %+v", fs)
	}
	cacheDir, _ := searchindex.DefaultCacheDir()
	ix, err := searchindex.Open(cacheDir, searchindex.StateKey(dir))
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if fs := indexFindings(); len(fs) != 0 {
		t.Fatalf("a fine cache dir: %+v", fs)
	}

	// The cache dir is a file: nothing can be kept there.
	file := filepath.Join(t.TempDir(), "cachefile")
	write(t, file, "x")
	t.Setenv("XDG_CACHE_HOME", file)
	fs := indexFindings()
	if len(fs) != 1 || fs[0].Check != "index.owner" || fs[0].Severity != doctor.SevInfo || fs[0].Path != file || fs[0].Fix == "" || fs[0].Fixable {
		t.Fatalf("a file for a cache dir: %+v", fs)
	}
	if doctor.Open(fs) {
		t.Error("an index that cannot be kept makes doctor's exit non-zero")
	}

	if os.Getuid() == 0 {
		// Another user's cache dir (root can give it away).
		t.Setenv("XDG_CACHE_HOME", cache)
		if err := os.Chown(cacheDir, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		fs := indexFindings()
		if len(fs) != 1 || fs[0].Check != "index.owner" || fs[0].Path != cacheDir {
			t.Fatalf("another user's cache dir: %+v", fs)
		}
	}
}

// Every problem Health names becomes an info finding with a message and a
// fix (Check is pure: no cache dir needed).
func TestIndexFindings(t *testing.T) {
	for _, check := range []string{"index.unwritable", "index.owner", "index.space", "index.corrupt"} {
		snap := &doctor.Snapshot{Index: []searchindex.Problem{{Check: check, Path: "/c/sessions/index", Why: "why"}}}
		fs := doctor.Check(snap, true)
		if len(fs) != 1 || fs[0].Check != check || fs[0].Severity != doctor.SevInfo || fs[0].Message == "" || fs[0].Fix == "" || fs[0].Path != "/c/sessions/index" {
			t.Errorf("%s: %+v", check, fs)
		}
	}
}
