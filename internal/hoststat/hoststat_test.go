package hoststat_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

func open(t *testing.T, fixture string) (*state.State, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, dir
}

func TestJSONEra(t *testing.T) {
	s, dir := open(t, "state-2026.1.30")
	f := hoststat.Agent(s, "main")
	fi, err := os.Stat(filepath.Join(dir, "agents", "main", "sessions", "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.SessionsJSON != fi.Size() || f.DB != -1 || f.WAL != -1 || f.Schema != 0 || f.Transcripts <= 0 || len(f.Errs) != 0 {
		t.Errorf("main: %+v", f)
	}
	// an archived copy counts; another file does not
	sd := filepath.Join(dir, "agents", "main", "sessions")
	before := f.Transcripts
	if err := os.WriteFile(filepath.Join(sd, "x.jsonl.deleted.2026-01-01T00-00-00.000Z"), make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sd, "notes.txt"), make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := hoststat.Agent(s, "main").Transcripts; got != before+100 {
		t.Errorf("transcripts: %d, want %d", got, before+100)
	}
}

func TestSQLiteEra(t *testing.T) {
	s, dir := open(t, "state-2026.9.6")
	f := hoststat.Agent(s, "main")
	fi, err := os.Stat(filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if f.DB != fi.Size() || f.Schema != 23 || f.SessionsJSON != -1 || len(f.Errs) != 0 {
		t.Errorf("main: %+v", f)
	}
}

// A FIFO in place of the database is an error, never a hang.
func TestFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	s, dir := open(t, "state-2026.9.6")
	db := filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")
	wal := db + "-wal"
	_ = os.Remove(wal)
	if err := testutil.Mkfifo(wal); err != nil {
		t.Fatal(err)
	}
	f := hoststat.Agent(s, "main")
	if f.WAL != -1 || len(f.Errs) != 1 {
		t.Errorf("a FIFO -wal: %+v", f)
	}
}
