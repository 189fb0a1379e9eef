package sqlitestore

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/store"
)

func TestDetect(t *testing.T) {
	dir := copyFixture(t)
	jsonPath := func(agent string) string { return filepath.Join(dir, "agents", agent, "sessions", "sessions.json") }
	n := 0
	writeJSON := func(agent string, mtime time.Time) string {
		p := jsonPath(agent)
		os.MkdirAll(filepath.Dir(p), 0o755)
		n++ // new content every time
		if err := os.WriteFile(p, []byte(`{"agent:`+agent+`:main":{"sessionId":"x","updatedAt":`+strconv.Itoa(n)+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(agent string, wantEra era.Era, wantWhy string) {
		t.Helper()
		got, why := Detect(dir, agent, jsonPath(agent))
		if got != wantEra || !strings.Contains(why, wantWhy) {
			t.Errorf("%s: %s (%s), want %s (…%s…)", agent, got, why, wantEra, wantWhy)
		}
	}
	check("nobody", era.None, "neither")
	check("main", era.SQLite, "only")
	writeJSON("fileonly", time.Now())
	check("fileonly", era.JSON, "only")

	// Half-migrated: a sessions.json older than the database is a leftover…
	dbm, _ := os.Stat(Path(dir, "main"))
	writeJSON("main", dbm.ModTime().Add(-time.Hour))
	check("main", era.SQLite, "leftover")
	// …equal mtimes go to SQLite…
	writeJSON("main", dbm.ModTime())
	check("main", era.SQLite, "leftover")
	// …a newer one is a file-era OpenClaw writing after a downgrade.
	p := writeJSON("main", dbm.ModTime().Add(time.Hour))
	check("main", era.JSON, "newer")

	// OpenClaw's import receipt for exactly this content: SQLite, whatever
	// the mtimes; a changed file no longer matches the receipt.
	b, _ := os.ReadFile(p)
	sum := sha256.Sum256(b)
	w := rw(t, filepath.Join(dir, "state", "openclaw.sqlite"))
	mustExec(t, w, `INSERT INTO migration_runs (id, started_at, finished_at, status, report_json) VALUES ('run-1', 1, 2, 'completed', '{}')`)
	mustExec(t, w, `INSERT INTO migration_sources (source_key, migration_kind, source_path, target_table, source_sha256, source_size_bytes,
		source_record_count, last_run_id, status, imported_at, report_json)
		VALUES ('k', 'deferred-plugin-session-import', ?, 'session_nodes', ?, ?, 1, 'run-1', 'imported', 1795238300000, '{}')`,
		p, hex.EncodeToString(sum[:]), len(b))
	w.Close()
	check("main", era.SQLite, "imported")
	os.WriteFile(p, append(b, ' '), 0o600)
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	check("main", era.JSON, "newer")

	// A live -wal newer than the file counts as the database's last write.
	writeJSON("main", dbm.ModTime().Add(time.Minute))
	wal := Path(dir, "main") + "-wal"
	os.WriteFile(wal, nil, 0o600)
	later := dbm.ModTime().Add(2 * time.Minute)
	os.Chtimes(wal, later, later)
	check("main", era.SQLite, "leftover")
}

func TestDetectReadsOnlyReceipts(t *testing.T) {
	// Detect never changes the state database it consults.
	dir := copyFixture(t)
	p := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{}`), 0o600)
	before := snapshot(t, filepath.Join(dir, "state"))
	Detect(dir, "main", p)
	assertUnchanged(t, filepath.Join(dir, "state"), before)
}

// TestDeliveryMapping: the 2026.8+ canonical delivery object maps onto the
// sessions.json-era fields the way OpenClaw projects it; fields the entry
// carries itself win.
func TestDeliveryMapping(t *testing.T) {
	const ext = `{"sessionId":"s1","updatedAt":7,"sessionFile":"/old/s1.jsonl","delivery":{"kind":"external",
		"route":{"channel":"telegram","target":{"to":"-100123","chatType":"group"}},
		"context":{"channel":"telegram","to":"-100123","accountId":"default","threadId":"9"},
		"origin":{"provider":"telegram","to":"-100123","chatType":"group"}}}`
	e, why := entryOf("agent:main:telegram:group:-100123", []byte(ext), sql.NullFloat64{Float64: 7, Valid: true})
	if why != "" {
		t.Fatal(why)
	}
	m := e.Meta
	if m.DC == nil || *m.DC != (store.DeliveryContext{Channel: "telegram", To: "-100123", AccountID: "default"}) ||
		m.LastChannel != "telegram" || m.LastTo != "-100123" || m.LastAccountID != "default" ||
		m.Channel != "telegram" || m.ChatType != "group" || m.SessionFile != "" {
		t.Errorf("meta = %+v dc=%+v", m, m.DC)
	}
	// Explicit 1.30-style fields win; origin.provider is the channel fallback.
	const mixed = `{"sessionId":"s2","updatedAt":8,"channel":"discord","lastTo":"u1","chatType":"direct",
		"delivery":{"kind":"external","route":{},"context":{"to":"u2"},"origin":{"provider":"slack"}}}`
	e, why = entryOf("k", []byte(mixed), sql.NullFloat64{Float64: 8, Valid: true})
	if why != "" {
		t.Fatal(why)
	}
	if e.Channel != "discord" || e.LastTo != "u1" || e.LastChannel != "" || e.ChatType != "direct" || e.DC == nil || e.DC.To != "u2" {
		t.Errorf("mixed: %+v dc=%+v", e.Meta, e.DC)
	}
	e, _ = entryOf("k", []byte(`{"sessionId":"s3","updatedAt":9,"delivery":{"kind":"external","context":{},"origin":{"provider":"slack"}}}`), sql.NullFloat64{Float64: 9, Valid: true})
	if e.Channel != "slack" || e.DC != nil {
		t.Errorf("origin fallback: %+v", e.Meta)
	}
	for _, kind := range []string{"none", "internal"} {
		e, _ = entryOf("k", []byte(`{"sessionId":"s","updatedAt":1,"delivery":{"kind":"`+kind+`"}}`), sql.NullFloat64{Float64: 1, Valid: true})
		if e.DC != nil || e.LastChannel != "" || e.Channel != "" {
			t.Errorf("%s: %+v", kind, e.Meta)
		}
	}
	// Row validity, as OpenClaw's parseSqliteSessionEntryRecord.
	for raw, upd := range map[string]float64{
		`[]`:                                   1,
		`{"updatedAt":1}`:                      1,
		`{"sessionId":5,"updatedAt":1}`:        1,
		`{"sessionId":"s","updatedAt":"1"}`:    1,
		`{"sessionId":"s","updatedAt":1}`:      2,
		`{"sessionId":"s","updatedAt":1} junk`: 1,
	} {
		if _, why := entryOf("k", []byte(raw), sql.NullFloat64{Float64: upd, Valid: true}); why == "" {
			t.Errorf("%s accepted", raw)
		}
	}
}
