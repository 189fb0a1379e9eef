package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// fixtureHost is this host over a copy of the 2026.1.30 fixture.
func fixtureHost(t *testing.T) (*Local, string) {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.CopyTree(testutil.Fixture(t), dir); err != nil {
		t.Fatal(err)
	}
	env := config.Env{Home: t.TempDir(), Getenv: func(string) string { return "" }}
	return &Local{State: func() (*state.State, error) { return state.Open(state.Options{StateDir: dir, Env: env}) }, Warn: func(string) {}}, dir
}

// The detached runner works on the state dir that recorded its run: the
// host opens it, hands the run's record (nil for a run it does not hold)
// and a runner over that state and its run store to setup, and a setup
// that refuses stops it before any step.
func TestExecuteRunHandsTheRecord(t *testing.T) {
	l, dir := fixtureHost(t)
	rec := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusAccepted, Engine: "provider"}
	if err := runs.Open(dir).Save(rec); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	for _, c := range []struct {
		id   string
		want string // the record's run id setup gets ("" none)
	}{{rec.RunID, rec.RunID}, {runs.NewID(), ""}} {
		var got *runs.Record
		var r *runner.Runner
		err := l.ExecuteRun(context.Background(), c.id, func(rc *runs.Record, rn *runner.Runner) error {
			got, r = rc, rn
			return stop
		})
		if !errors.Is(err, stop) {
			t.Fatalf("%s: %v, want setup's refusal", c.id, err)
		}
		if (got == nil) != (c.want == "") || got != nil && got.RunID != c.want {
			t.Errorf("%s: setup got record %+v, want %q", c.id, got, c.want)
		}
		if r == nil || r.State == nil || r.State.Dir.Path != dir || r.Runs == nil || r.Runs.Path(c.id) != runs.Open(dir).Path(c.id) {
			t.Errorf("%s: runner %+v, want one over %s and its run store", c.id, r, dir)
		}
	}
	broken := &Local{State: func() (*state.State, error) { return nil, stop }}
	if err := broken.ExecuteRun(context.Background(), rec.RunID, func(*runs.Record, *runner.Runner) error {
		t.Error("setup called without a state")
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("a state dir that does not open: %v", err)
	}
}

// The archive sweep is the host's: asked only if due, it reads the index
// alone (no index: nothing done; an unreadable one: skipped, and why) and
// a state dir that does not open is no error (the invocation reports
// that itself); asked outright, it sweeps, and that state's error is the
// sweep's.
func TestSweepArchive(t *testing.T) {
	ctx := context.Background()
	l, dir := fixtureHost(t)
	if a, err := l.SweepArchive(ctx, backend.SweepAsk{IfDue: true}); err != nil || a.Report != nil || a.Skipped != nil {
		t.Errorf("no index, if due: %+v, %v; want nothing done", a, err)
	}
	a, err := l.SweepArchive(ctx, backend.SweepAsk{})
	if err != nil || a.Report == nil || len(a.Report.Archived) != 0 {
		t.Errorf("no index, outright: %+v, %v; want an empty report", a, err)
	}
	if err := os.MkdirAll(filepath.Dir(archive.IndexPath(dir)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive.IndexPath(dir), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if a, err := l.SweepArchive(ctx, backend.SweepAsk{IfDue: true}); err != nil || a.Report != nil || a.Skipped == nil {
		t.Errorf("a corrupt index, if due: %+v, %v; want skipped", a, err)
	}
	stop := errors.New("no state")
	broken := &Local{State: func() (*state.State, error) { return nil, stop }}
	if a, err := broken.SweepArchive(ctx, backend.SweepAsk{IfDue: true}); err != nil || a.Report != nil || a.Skipped != nil {
		t.Errorf("no state, if due: %+v, %v; want nothing done, no error", a, err)
	}
	if _, err := broken.SweepArchive(ctx, backend.SweepAsk{}); !errors.Is(err, stop) {
		t.Errorf("no state, outright: %v", err)
	}
}
