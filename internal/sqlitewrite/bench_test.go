package sqlitewrite

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// benchSessions is the size of the store the write benchmarks run on.
const benchSessions = 10000

// benchStore copies the fixture and grows agent main's database to 10,000
// sessions: the fixture's entries cloned under new keys, session ids and
// updatedAt (json_set keeps the rest, about 14 KB each), each with its
// window row, as internal/sqlitestore's read benchmarks build theirs.
func benchStore(b *testing.B) string {
	b.Helper()
	state := copyState(b)
	db := rawDB(b, Path(state, "main"))
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?),
		src AS (SELECT row_number() OVER (ORDER BY session_key) - 1 AS k, entry_json FROM session_nodes)
		INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
		SELECT 'agent:main:bench:' || i, printf('%08x-0000-4000-8000-%012x', i, i),
		       json_set(src.entry_json, '$.sessionId', printf('%08x-0000-4000-8000-%012x', i, i), '$.updatedAt', 1795000000000 + i * 1000),
		       1795000000000 + i * 1000
		FROM n JOIN src ON src.k = n.i % 4`, benchSessions-1-4)
	exec(`INSERT INTO session_windows (session_id, session_key, created_at, updated_at, session_entry_provenance)
		SELECT current_session_id, session_key, updated_at, updated_at, 1 FROM session_nodes WHERE session_key LIKE 'agent:main:bench:%'`)
	exec(`UPDATE session_nodes SET entry_valid = 1`)
	exec(`DELETE FROM session_canonical_validation_pending`)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	db.Close()
	return state
}

// BenchmarkAppendTurnLockHold10k: one appended turn (user + assistant
// event, projection, identities, entry touch) on agent:main:main of a
// 10,000-session store; reports how long the write lock is held
// (hold-p50-ms, hold-max-ms) beside the whole call (ns/op, which includes
// preparing the JSON outside the lock).
func BenchmarkAppendTurnLockHold10k(b *testing.B) {
	state := benchStore(b)
	w, err := Open(state, "main", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if n := queryInt(b, rawDB(b, filepath.Join(state, "agents", "main", "agent", FileName)), "SELECT count(*) FROM session_nodes"); n != benchSessions {
		b.Fatalf("%d sessions", n)
	}
	var holds []time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if _, err := w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: "sessions:bench-" + strconv.Itoa(i), Interaction: true,
			Messages: []json.RawMessage{userMsg("benchmark turn " + strconv.Itoa(i)), assistantMsg("reply " + strconv.Itoa(i))}}); err != nil {
			b.Fatal(err)
		}
		holds = append(holds, w.LastLockHold())
	}
	b.StopTimer()
	reportHolds(b, holds)
}

// BenchmarkPatchLockHold10k: one label patch of agent:main:main on the
// 10,000-session store (the sessions.json era's `sessions patch` figure in
// docs/PERFORMANCE.md is the same operation on a 10,000-entry file).
func BenchmarkPatchLockHold10k(b *testing.B) {
	state := benchStore(b)
	w, err := Open(state, "main", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var holds []time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		l := "bench " + strconv.Itoa(i)
		if _, err := w.PatchEntry(mainKey, Patch{Label: &l}); err != nil {
			b.Fatal(err)
		}
		holds = append(holds, w.LastLockHold())
	}
	b.StopTimer()
	reportHolds(b, holds)
}

// reportHolds reports the lock hold times' median, 99th percentile and maximum.
func reportHolds(b *testing.B, holds []time.Duration) {
	slices.Sort(holds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(holds[len(holds)/2]), "hold-p50-ms")
	b.ReportMetric(ms(holds[len(holds)*99/100]), "hold-p99-ms")
	b.ReportMetric(ms(holds[len(holds)-1]), "hold-max-ms")
}
