package doctor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/fsutil"
)

// collectCached is one doctor run over dir through the scan cache kept in
// cacheDir (opened, used, saved, as hostread.Doctor does): its findings,
// its transcripts' facts (as JSON: what a check can read of them) and the
// snapshot's counts.
func collectCached(t *testing.T, dir, cacheDir string, now time.Time) (string, string, *doctor.Snapshot, *doctor.ScanCache) {
	t.Helper()
	s := openState(t, dir)
	c := doctor.OpenScanCache(cacheDir, s.Dir.Path, testLimits.LineBytes)
	snap := doctor.Collect(s, now, testLimits, c)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	var facts []doctor.TranscriptFact
	for _, a := range snap.Agents {
		facts = append(facts, a.Transcripts...)
	}
	b, err := json.Marshal(facts)
	if err != nil {
		t.Fatal(err)
	}
	return lines(dir, doctor.Check(snap, s.GlobalScope())), string(b), snap, c
}

// uncached is the same run with no cache: what the cached ones must say.
func uncached(t *testing.T, dir string, now time.Time) (string, string) {
	t.Helper()
	s := openState(t, dir)
	snap := doctor.Collect(s, now, testLimits, nil)
	var facts []doctor.TranscriptFact
	for _, a := range snap.Agents {
		facts = append(facts, a.Transcripts...)
	}
	b, _ := json.Marshal(facts)
	return lines(dir, doctor.Check(snap, s.GlobalScope())), string(b)
}

// TestScanCache: a doctor answered from the scan cache says what a full
// scan says, reads only what changed since (an append, a rewrite of the
// same size, a new file), forgets what is gone, and never trusts a cache
// file that is not its own or not whole.
func TestScanCache(t *testing.T) {
	root := t.TempDir()
	dir := brokenJSON(t, root)
	cacheDir := filepath.Join(t.TempDir(), "doctor")
	// past the orphan grace, and past recentWrite of every file the test
	// writes: all are kept
	later := time.Now().Add(2 * time.Hour)
	now := later
	check := func(step string, wantScanned, wantCached int) *doctor.ScanCache {
		t.Helper()
		f, facts, snap, c := collectCached(t, dir, cacheDir, now)
		wf, wfacts := uncached(t, dir, now)
		if f != wf || facts != wfacts {
			t.Fatalf("%s: the cached run differs from a full scan:\n--- cached\n%s%s\n--- full\n%s%s", step, f, facts, wf, wfacts)
		}
		if snap.Scanned != wantScanned || snap.Cached != wantCached {
			t.Fatalf("%s: %d scanned, %d from the cache; want %d and %d", step, snap.Scanned, snap.Cached, wantScanned, wantCached)
		}
		return c
	}
	mainS := filepath.Join(dir, "agents", "main", "sessions")
	// where the platform's stamps have no ctime (fsutil.Stamp: Linux has
	// it), a rewrite that keeps size and mtime is not seen, as by every
	// cache of this tool there: those steps are left out
	tfi, err := os.Stat(filepath.Join(mainS, mainSID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ctimeKnown := fsutil.StampOf(tfi).CTime != 0
	n := len(mustGlob(t, filepath.Join(dir, "agents", "*", "sessions", "*.jsonl")))
	// the first run reads all, and keeps them: 0600 in a 0700 dir
	c := check("first", n, 0)
	if c.Ignored != "" {
		t.Fatalf("no cache yet, yet ignored: %s", c.Ignored)
	}
	fi, err := os.Stat(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	di, err := os.Stat(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("cache file %v in a dir %v; want 0600 in 0700", fi.Mode(), di.Mode())
	}
	// a second Save with no scan between writes nothing (it kept all)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	check("unchanged", 0, n)

	// an append (a corrupt line), a rewrite of the same size, a new file
	appendTo(t, filepath.Join(mainS, mainSID+".jsonl"), "not json either\n")
	p := filepath.Join(mainS, cronSID+".jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.Stat(p)
	write(t, p, strings.Replace(string(b), `"id"`, `"ix"`, 1))
	if ctimeKnown {
		os.Chtimes(p, old.ModTime(), old.ModTime()) // mtime and size as before: ctime tells
	}
	write(t, filepath.Join(mainS, "66666666-2222-4333-8444-555555555555.jsonl"), "{\"type\":\"mess")
	check("changed", 3, n-2)
	check("changed, again", 0, n+1)

	// a transcript gone is gone from the cache
	if err := os.Remove(filepath.Join(mainS, "66666666-2222-4333-8444-555555555555.jsonl")); err != nil {
		t.Fatal(err)
	}
	check("removed", 0, n)
	data, err := os.ReadFile(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "66666666-2222") {
		t.Fatal("the cache still names the removed transcript")
	}

	// a write a moment ago is read every time, never kept: by its mtime,
	// or by its ctime when the mtime was set back
	for _, tc := range []struct {
		name, sid string
		setBack   bool
	}{{"recent", groupSID, false}, {"recent, mtime set back", pushSID, true}} {
		if tc.setBack && !ctimeKnown {
			continue // size and mtime are all a stamp has here
		}
		now = time.Now()
		p := filepath.Join(mainS, tc.sid+".jsonl")
		appendTo(t, p, "\n")
		if tc.setBack {
			if err := os.Chtimes(p, now.Add(-time.Hour), now.Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		check(tc.name, 1, n-1)
		check(tc.name+", again", 1, n-1)
		now = later
		check(tc.name+", settled", 1, n-1)
		check(tc.name+", settled, again", 0, n)
	}

	// a cache file that is not whole, not ours, or not this version is
	// ignored (and said so), and replaced
	for _, tc := range []struct {
		name, why string
		edit      func([]byte) []byte
	}{
		{"a flipped byte", "bad checksum", func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b }},
		{"truncated", "bad checksum", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", "not a doctor scan cache", func([]byte) []byte { return nil }},
		{"another tool's", "not a doctor scan cache", func(b []byte) []byte { return append([]byte("sessions-usage-cache\n"), b...) }},
	} {
		data, err := os.ReadFile(c.Path())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.Path(), tc.edit(data), 0o600); err != nil {
			t.Fatal(err)
		}
		c := check(tc.name, n, 0)
		if !strings.Contains(c.Ignored, tc.why) {
			t.Fatalf("%s: ignored because %q; want %q", tc.name, c.Ignored, tc.why)
		}
		check(tc.name+", replaced", 0, n)
	}

	// another state dir's or another line limit's cache is not used
	s := openState(t, dir)
	if c := doctor.OpenScanCache(cacheDir, s.Dir.Path, testLimits.LineBytes*2); !strings.Contains(c.Ignored, "another line limit") {
		t.Fatalf("another line limit: ignored because %q", c.Ignored)
	}
	// this state dir's file, under another state dir's name
	cp, err := os.ReadFile(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := doctor.OpenScanCache(cacheDir, s.Dir.Path+"-other", testLimits.LineBytes)
	if err := os.WriteFile(elsewhere.Path(), cp, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := doctor.OpenScanCache(cacheDir, s.Dir.Path+"-other", testLimits.LineBytes); !strings.Contains(c.Ignored, "another state dir") {
		t.Fatalf("another state dir: ignored because %q", c.Ignored)
	}
}

// TestScanCacheUnwritable: a cache dir that cannot be made leaves doctor
// as it was (every transcript read, the answer whole); Save says why.
func TestScanCacheUnwritable(t *testing.T) {
	dir := brokenJSON(t, t.TempDir())
	blocker := filepath.Join(t.TempDir(), "file")
	write(t, blocker, "not a dir")
	s := openState(t, dir)
	c := doctor.OpenScanCache(filepath.Join(blocker, "doctor"), s.Dir.Path, testLimits.LineBytes)
	now := time.Now().Add(2 * time.Hour)
	snap := doctor.Collect(s, now, testLimits, c)
	if err := c.Save(); err == nil {
		t.Fatal("saved under a file")
	}
	got := lines(dir, doctor.Check(snap, s.GlobalScope()))
	if want, _ := uncached(t, dir, now); got != want {
		t.Fatalf("with an unwritable cache:\n%s\nwant\n%s", got, want)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: %v %v", pattern, m, err)
	}
	return m
}
