package ops

import (
	"context"
	"testing"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/runs"
)

// The sweep archives a due child through its store's writes and notes it
// in the run record; the automatic one does nothing when nothing is due.
func TestSweep(t *testing.T) {
	ctx := context.Background()
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	if rep, err := o.Sweep(ctx, SweepRequest{Auto: true}); rep != nil || err != nil {
		t.Fatalf("nothing due: %+v %v", rep, err)
	}
	id := runs.NewID()
	saveRuns(t, runs.Open(dir), &runs.Record{RunID: id, Kind: runs.KindSpawn, Status: runs.StatusOK, Spawn: &runs.Spawn{Task: "t"}})
	const child = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
	if err := archive.Add(dir, archive.Entry{RunID: id, ChildKey: child, Agent: "main", ArchiveAtMs: 1000}); err != nil {
		t.Fatal(err)
	}
	rep, err := o.Sweep(ctx, SweepRequest{Auto: true})
	if err != nil || rep == nil || len(rep.Archived) != 1 || !rep.Archived[0].Existed || len(rep.Archived[0].Renamed) != 1 {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
	if r, _ := runs.Open(dir).Load(id); r.Spawn.ArchivedBy != "sweep" {
		t.Errorf("run record %+v", r.Spawn)
	}
	rep, err = o.Sweep(ctx, SweepRequest{})
	if err != nil || len(rep.Archived) != 0 || rep.Pending != 0 {
		t.Fatalf("again: %+v %v", rep, err)
	}
}
