package archive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := testutil.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
}

func openState(t *testing.T) *state.State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	copyTree(t, "../../testdata/state-2026.1.30", dir)
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTimestamp(t *testing.T) {
	if got, want := Timestamp(time.UnixMilli(1900000061234)), "2030-03-17T17-47-41.234Z"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

const child = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
const childID = "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d"

func TestSession(t *testing.T) {
	s := openState(t)
	now := time.UnixMilli(1900000061234)
	res, err := Session(context.Background(), s, "main", child, now, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	dir := s.SessionsDir("main")
	want := filepath.Join(dir, childID+".jsonl.deleted.2030-03-17T17-47-41.234Z")
	if !res.Existed || len(res.Renamed) != 1 || res.Renamed[0] != want {
		t.Fatalf("res %+v", res)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, childID+".jsonl")); !os.IsNotExist(err) {
		t.Error("transcript still there")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if strings.Contains(string(data), child) || !strings.Contains(string(data), "agent:main:main") {
		t.Error("entry not removed (or too much removed)")
	}
	// again: nothing left to do, not an error
	res, err = Session(context.Background(), s, "main", child, now, time.Second)
	if err != nil || res.Existed || len(res.Renamed) != 0 {
		t.Errorf("second time: %+v %v", res, err)
	}
}

func TestSessionNeverRenamesOutside(t *testing.T) {
	s := openState(t)
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	_ = os.WriteFile(outside, []byte("{}\n"), 0o644)
	dir := s.SessionsDir("main")
	// the child's transcript is a symlink to a file outside the state dir
	link := filepath.Join(dir, childID+".jsonl")
	_ = os.Remove(link)
	if err := os.Symlink(outside, link); err != nil {
		t.Skip(err)
	}
	res, err := Session(context.Background(), s, "main", child, time.Now(), time.Second)
	if err != nil || !res.Existed || len(res.Renamed) != 0 || len(res.Skipped) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("link renamed")
	}
}

func TestIndexAndSweep(t *testing.T) {
	s := openState(t)
	dir := s.Dir.Path
	ctx := context.Background()
	// nothing: no index file, nothing due, nothing created
	rep, err := Sweep(ctx, s, time.Now(), SweepOptions{LockTimeout: time.Second})
	if err != nil || len(rep.Archived) != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions-cli")); !os.IsNotExist(err) {
		t.Error("a sweep with nothing to do created files")
	}
	rs := runs.Open(dir)
	run1, run2 := runs.NewID(), runs.NewID()
	for _, r := range []*runs.Record{
		{RunID: run1, Kind: runs.KindSpawn, Status: runs.StatusOK, Spawn: &runs.Spawn{Task: "t"}},
		{RunID: run2, Kind: runs.KindSpawn, Status: runs.StatusRunning, Spawn: &runs.Spawn{Task: "t"}},
	} {
		if err := rs.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := Add(dir, Entry{RunID: run2, ChildKey: "agent:ops:subagent:b164e3e3-49bc-47c3-9d9b-5d7810e1c44f", Agent: "ops", ArchiveAtMs: 2000}); err != nil {
		t.Fatal(err)
	}
	if err := Add(dir, Entry{RunID: run1, ChildKey: child, Agent: "main", ArchiveAtMs: 1000}); err != nil {
		t.Fatal(err)
	}
	ix, _ := readIndex(dir)
	if len(ix.Entries) != 2 || ix.Entries[0].RunID != run1 {
		t.Fatalf("index not sorted: %+v", ix)
	}
	if due, _ := Due(dir, time.UnixMilli(999)); due {
		t.Error("due too early")
	}
	// run2's runner is alive: deferred; run1 archived
	fl := lock.NewFlock(rs.LockPath(run2))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	rep, err = Sweep(ctx, s, time.UnixMilli(5000), SweepOptions{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Archived) != 1 || rep.Archived[0].RunID != run1 || !rep.Archived[0].Existed || len(rep.Deferred) != 1 || rep.Deferred[0].RunID != run2 {
		t.Fatalf("%+v", rep)
	}
	if r, _ := rs.Load(run1); r.Spawn.ArchivedBy != "sweep" || r.Spawn.ArchivedAt != 5000 || len(r.Spawn.Archived) != 1 {
		t.Errorf("run1 record %+v", r.Spawn)
	}
	_ = fl.Unlock()
	rep, err = Sweep(ctx, s, time.UnixMilli(6000), SweepOptions{LockTimeout: time.Second})
	if err != nil || len(rep.Archived) != 1 || rep.Archived[0].RunID != run2 {
		t.Fatalf("%+v %v", rep, err)
	}
	if ix, _ := readIndex(dir); len(ix.Entries) != 0 {
		t.Errorf("index %+v", ix)
	}
	if err := Remove(dir, run1); err != nil {
		t.Error(err)
	}
}

func TestDueReadsNextAtMs(t *testing.T) {
	dir := t.TempDir()
	if due, err := Due(dir, time.Now()); due || err != nil {
		t.Fatal(due, err)
	}
	for i := 0; i < 3; i++ {
		if err := Add(dir, Entry{RunID: runs.NewID(), ChildKey: "k", Agent: "main", ArchiveAtMs: int64(3000 - i*1000)}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(IndexPath(dir))
	if !strings.Contains(string(data), `"nextAtMs": 1000,`) {
		t.Errorf("index:\n%s", data)
	}
	if due, _ := Due(dir, time.UnixMilli(999)); due {
		t.Error("due at 999")
	}
	if due, _ := Due(dir, time.UnixMilli(1000)); !due {
		t.Error("not due at 1000")
	}
	// an index without nextAtMs is decoded in full
	_ = os.WriteFile(IndexPath(dir), []byte(`{"version":1,"entries":[{"runId":"a","archiveAtMs":5},{"runId":"b","archiveAtMs":2}]}`), 0o600)
	if due, _ := Due(dir, time.UnixMilli(3)); !due {
		t.Error("old index: not due")
	}
}

// BenchmarkDueNothingDue is what every invocation pays when children are
// pending but none is due: one read of the index, one field looked up.
func BenchmarkDueNothingDue(b *testing.B) {
	dir := b.TempDir()
	ix := &Index{}
	for i := 0; i < 100; i++ {
		ix.Entries = append(ix.Entries, Entry{RunID: runs.NewID(), ChildKey: "agent:main:subagent:" + runs.NewID(), Agent: "main", ArchiveAtMs: 4102444800000 + int64(i)})
	}
	if err := writeIndex(dir, ix); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if due, err := Due(dir, now); due || err != nil {
			b.Fatal(due, err)
		}
	}
}

// BenchmarkDueNoIndex: no child pending (no index file).
func BenchmarkDueNoIndex(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	for i := 0; i < b.N; i++ {
		if due, err := Due(dir, now); due || err != nil {
			b.Fatal(due, err)
		}
	}
}
