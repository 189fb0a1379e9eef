package sqlitestore

import (
	"path/filepath"
	"testing"
)

// TestSubagentRuns reads the state database's sub-agent registry strictly
// read-only: a live writer's rows are seen (through its -wal), nothing is
// changed; a missing database or one without the table is no rows.
func TestSubagentRuns(t *testing.T) {
	state := copyFixture(t)
	path := StateDBPath(state)
	rows, err := SubagentRuns(path, Options{})
	if err != nil || len(rows) != 0 {
		t.Fatalf("the fixture's registry is empty: %v %v", rows, err)
	}
	// A live writer's rows are read through its -wal (a mode=ro reader
	// shares its -shm, as any OpenClaw reader does).
	w := rw(t, path)
	mustExec(t, w, `INSERT INTO subagent_runs (run_id, child_session_key, requester_session_key, created_at, payload_json)
		VALUES ('a', 'agent:main:subagent:a', 'agent:main:main', 2, '{"execution":{"status":"running"}}'),
		       ('b', 'agent:ops:subagent:b', 'agent:main:main', 1, '{}')`)
	check := func() {
		t.Helper()
		rows, err := SubagentRuns(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].RunID != "a" || rows[1].RunID != "b" || rows[0].PayloadJSON != `{"execution":{"status":"running"}}` || rows[1].CreatedAt != 1 {
			t.Fatalf("rows %+v", rows)
		}
	}
	check()
	// Quiescent (the writer closed, the -wal checkpointed away): read
	// immutable, not a byte changed, no -wal or -shm created.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, state)
	check()
	assertUnchanged(t, state, before)

	if rows, err := SubagentRuns(filepath.Join(state, "nope.sqlite"), Options{}); err != nil || rows != nil {
		t.Errorf("missing database: %v %v", rows, err)
	}
	if rows, err := SubagentRuns(Path(state, "main"), Options{}); err != nil || len(rows) != 0 {
		t.Errorf("a database without the table: %v %v", rows, err)
	}
}
