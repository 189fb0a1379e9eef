package hoststat_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/testutil"
)

// StatNames says of each name what os.Lstat says of its path: a regular
// file, a link (never followed), a directory, a FIFO (never opened), and
// nothing for a name that is gone.
func TestStatNamesIsLstat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.jsonl", "d.jsonl", "gone.jsonl"}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "l.jsonl")); err != nil {
			t.Fatal(err)
		}
		if err := testutil.Mkfifo(filepath.Join(dir, "f.jsonl")); err != nil {
			t.Fatal(err)
		}
		names = append(names, "l.jsonl", "f.jsonl")
	}
	got, err := hoststat.StatNames(dir, hoststat.NewNames(names))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			if got[i].OK {
				t.Errorf("%s: %+v, lstat: %v", n, got[i], err)
			}
			continue
		}
		want := hoststat.Stat{OK: true, Mode: fi.Mode().Type(), Size: fi.Size(), MtimeNano: fi.ModTime().UnixNano()}
		want.Dev, want.Ino, _ = fsutil.DevIno(fi)
		want.CtimeNano = fsutil.StampOf(fi).CTime
		if got[i] != want {
			t.Errorf("%s: %+v, lstat says %+v", n, got[i], want)
		}
	}
	if _, err := hoststat.StatNames(filepath.Join(dir, "none"), hoststat.NewNames(names)); err == nil {
		t.Error("a missing directory: no error")
	}
	if out, err := hoststat.StatNames(filepath.Join(dir, "none"), hoststat.NewNames(nil)); err != nil || len(out) != 0 {
		t.Errorf("no names: %v %v", out, err)
	}
}

// AgentWith sums with what it is given; with SumTranscripts it is Agent.
func TestAgentWith(t *testing.T) {
	s, _ := open(t, "state-2026.1.30")
	if a, w := hoststat.Agent(s, "main"), hoststat.AgentWith(s, "main", hoststat.SumTranscripts); a.Transcripts != w.Transcripts || a.SessionsJSON != w.SessionsJSON {
		t.Errorf("Agent %+v, AgentWith %+v", a, w)
	}
	f := hoststat.AgentWith(s, "main", func(string) (int64, error) { return 42, nil })
	if f.Transcripts != 42 || len(f.Errs) != 0 {
		t.Errorf("%+v", f)
	}
}
