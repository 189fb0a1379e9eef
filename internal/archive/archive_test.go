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

// removed records the children a sweep removes, as a store would: each
// existed, its transcript renamed.
type removed struct{ keys []string }

func (r *removed) remove(_ context.Context, agent, key string, now time.Time, _ time.Duration) (*Removed, error) {
	r.keys = append(r.keys, agent+"/"+key)
	return &Removed{Existed: true, Renamed: []string{key + ".jsonl.deleted"}, At: now.UnixMilli()}, nil
}

func TestIndexAndSweep(t *testing.T) {
	s := openState(t)
	dir := s.Dir.Path
	ctx := context.Background()
	// nothing: no index file, nothing due, nothing created
	rm := &removed{}
	so := SweepOptions{LockTimeout: time.Second, Remove: rm.remove}
	rep, err := Sweep(ctx, s, time.Now(), so)
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
	rep, err = Sweep(ctx, s, time.UnixMilli(5000), so)
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
	rep, err = Sweep(ctx, s, time.UnixMilli(6000), so)
	if err != nil || len(rep.Archived) != 1 || rep.Archived[0].RunID != run2 {
		t.Fatalf("%+v %v", rep, err)
	}
	if want := []string{"main/" + child, "ops/agent:ops:subagent:b164e3e3-49bc-47c3-9d9b-5d7810e1c44f"}; strings.Join(rm.keys, " ") != strings.Join(want, " ") {
		t.Errorf("removed %v, want %v", rm.keys, want)
	}
	if _, err := Sweep(ctx, s, time.UnixMilli(7000), SweepOptions{}); err == nil {
		t.Error("a sweep without a remover ran")
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
