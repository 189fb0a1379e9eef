package transcripts_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/transcripts"
)

// The sessions dir of the 1.30 fixture: the transcripts of its entries (by
// key) and its one orphan.
const (
	mainT    = "c040fd20-0a1c-4ce0-924c-6e695a32eecb"
	dmT      = "26a610b5-ea74-4c48-bd74-9be14f7f2944"
	cronT    = "f0a65321-234f-4249-82a5-20d842f0160d"
	dmOrphan = "a62a3a2e-299a-4c9a-84ee-c16cbe885241"
)

// headerOf is a session header naming parent as parentSession ("": none),
// padded with a second line to exactly size bytes.
func headerOf(id, parent string, size int) []byte {
	h := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"`
	if parent != "" {
		h += `,"parentSession":"/elsewhere/` + parent + `.jsonl"`
	}
	h += "}\n"
	pad := size - len(h) - len(`{"type":"custom","pad":""}`+"\n")
	return []byte(h + `{"type":"custom","pad":"` + strings.Repeat("x", max(pad, 0)) + `"}` + "\n")
}

// attribution is the agent's orphans with their keys, attributed with the
// process's cache (cached) or reading every header.
func attribution(t *testing.T, dir string, cached bool) []string {
	t.Helper()
	s := open(t, dir)
	a := mainAgent(t, s)
	os := a.Orphans(s)
	if cached {
		a.Attribute(s, os)
		a.Attribute(s, os) // the second call of one listing reads nothing again
	} else {
		a.AttributeUncached(s, os)
	}
	var out []string
	for _, o := range os {
		out = append(out, o.SessionID+" "+o.Path()+" "+o.Key)
	}
	return out
}

// runHeaderOps applies ops (three bytes each: what, which file, which
// parent) to the fixture's sessions dir — writes in place, replacements by
// rename, deletions, renames — and after each holds the attribution through
// the cache to the one reading every header. The cache's clock is an hour
// ahead, so every version is trusted (the rule for recent writes, which
// covers a rewrite that keeps size and times in one clock tick, is
// bypassed): each write here has a size of its own instead.
func runHeaderOps(t *testing.T, ops []byte) {
	dir := copyFixture(t, "state-2026.1.30")
	sess := filepath.Join(dir, "agents", "main", "sessions")
	defer transcripts.SetHeaderClock(func() time.Time { return time.Now().Add(time.Hour) })()
	was := transcripts.CacheHeaders(true)
	defer transcripts.CacheHeaders(was)
	names := []string{mainT, dmT, cronT, dmOrphan}
	for i := range 6 {
		names = append(names, fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i))
	}
	size := 4096
	write := func(path, id, parent string) {
		size++
		if err := os.WriteFile(path, headerOf(id, parent, size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file := func(name string) string { return filepath.Join(sess, name+".jsonl") }
	for step := 0; len(ops) >= 3 && step < 64; step, ops = step+1, ops[3:] {
		target := names[int(ops[1])%len(names)]
		parent := ""
		if p := int(ops[2]) % (len(names) + 1); p < len(names) {
			parent = names[p]
		}
		switch ops[0] % 5 {
		case 0: // written in place (a new file when it is gone)
			write(file(target), target, parent)
		case 1: // replaced by a rename over it
			tmp := filepath.Join(sess, "tmp.partial")
			write(tmp, target, parent)
			if err := os.Rename(tmp, file(target)); err != nil {
				t.Fatal(err)
			}
		case 2:
			os.Remove(file(target))
		case 3: // renamed to another name of the pool
			os.Rename(file(target), file(parent))
		case 4: // nothing changed
		}
		got, want := attribution(t, dir, true), attribution(t, dir, false)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d (op %v): with the cache\n%s\nreading every header\n%s", step, ops[:3], strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestHeaderCacheDifferential: under random writes, replacements,
// deletions and renames between listings, the orphans' keys attributed
// through the headers' cache are those read from every header.
func TestHeaderCacheDifferential(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 36))
			ops := make([]byte, 3*40)
			for i := range ops {
				ops[i] = byte(r.IntN(256))
			}
			runHeaderOps(t, ops)
		})
	}
}

// FuzzHeaderCache is TestHeaderCacheDifferential's property on any script
// of changes.
func FuzzHeaderCache(f *testing.F) {
	f.Add([]byte{0, 4, 0, 0, 0, 4, 4, 0, 5})
	f.Add([]byte{0, 4, 0, 1, 4, 5, 2, 4, 0, 3, 0, 6, 4, 0, 0})
	f.Fuzz(runHeaderOps)
}

// TestRewrittenOrphanAttributedAnew: an orphan rewritten to name another
// one gives its key to that one at once — in the same clock tick, at the
// same size and inode (a version that recent is never served from the
// cache), and, once versions are trusted, after a replacement by rename of
// the same size. A listing of unchanged files reads no header again.
func TestRewrittenOrphanAttributedAnew(t *testing.T) {
	dir := copyFixture(t, "state-2026.1.30")
	sess := filepath.Join(dir, "agents", "main", "sessions")
	was := transcripts.CacheHeaders(true)
	defer transcripts.CacheHeaders(was)
	const a, b, c = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"
	write := func(name, parent string) {
		if err := os.WriteFile(filepath.Join(sess, name+".jsonl"), headerOf(name, parent, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(mainT, c) // the main session's transcript forked from c
	write(a, "")
	write(b, "")
	write(c, a) // which forked from a
	keys := func() map[string]string {
		got := attribution(t, dir, true)
		if want := attribution(t, dir, false); !slices.Equal(got, want) {
			t.Fatalf("with the cache %v, reading every header %v", got, want)
		}
		out := map[string]string{}
		for _, l := range got {
			f := strings.Fields(l)
			if len(f) == 3 {
				out[f[0]] = f[2]
			}
		}
		return out
	}
	const main = "agent:main:main"
	if k := keys(); k[c] != main || k[a] != main || k[b] != "" {
		t.Fatalf("keys: %v", k)
	}
	n := transcripts.HeaderReads()
	keys()
	if r := transcripts.HeaderReads() - n; r < 4 {
		t.Errorf("files written within the last 2 s: %d headers read again, want every one of the 4", r)
	}
	write(c, b) // same size, same inode, same tick
	if k := keys(); k[c] != main || k[b] != main || k[a] != "" {
		t.Fatalf("after c was rewritten to name b: %v", k)
	}

	// An hour later every version is trusted: unchanged files are not
	// read again, a replaced one is.
	defer transcripts.SetHeaderClock(func() time.Time { return time.Now().Add(time.Hour) })()
	keys()
	n = transcripts.HeaderReads()
	if k := keys(); k[b] != main {
		t.Fatalf("keys: %v", k)
	}
	if r := transcripts.HeaderReads() - n; r != 0 {
		t.Errorf("a listing of unchanged files read %d headers", r)
	}
	tmp := filepath.Join(sess, "tmp.partial")
	if err := os.WriteFile(tmp, headerOf(c, a, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(sess, c+".jsonl")); err != nil {
		t.Fatal(err)
	}
	n = transcripts.HeaderReads()
	if k := keys(); k[a] != main || k[b] != "" {
		t.Fatalf("after c was replaced to name a: %v", k)
	}
	if r := transcripts.HeaderReads() - n; r != 1 {
		t.Errorf("after one replacement the cache read %d headers, want 1", r)
	}
}

// TestArchiveOfIsItsRegex: the test ArchiveOf makes before its regular
// expression leaves no name out that the expression names an archive.
func TestArchiveOfIsItsRegex(t *testing.T) {
	parts := []string{"a", "b c", ".", "jsonl", ".jsonl", ".jsonl.", "reset", "deleted", ".reset.", ".deleted.", "/", "\n", "2026", ".zst", "é"}
	r := rand.New(rand.NewPCG(36, 1))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(7) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		name := b.String()
		if got, want := transcripts.ArchiveOf(name), transcripts.ArchiveOfByRegex(name); got != want {
			t.Fatalf("ArchiveOf(%q) = %q, its regex %q", name, got, want)
		}
	}
}
