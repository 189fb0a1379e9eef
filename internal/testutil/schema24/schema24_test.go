package schema24

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
)

// TestFixture checks that testdata/state-2026.9.8 is exactly what Build
// makes of testdata/state-2026.9.6 (every schema object and every row of
// every database), or regenerates it with UPDATE_GOLDEN=1 (keeping its
// PROVENANCE.md).
func TestFixture(t *testing.T) {
	root := testutil.Root(t)
	src := filepath.Join(root, "testdata", "state-2026.9.6")
	fixture := filepath.Join(root, "testdata", "state-2026.9.8")
	fresh := filepath.Join(t.TempDir(), "state")
	if err := Build(src, fresh); err != nil {
		t.Fatal(err)
	}
	if testutil.UpdateGolden() {
		prov, err := os.ReadFile(filepath.Join(fixture, "PROVENANCE.md"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(fixture); err != nil {
			t.Fatal(err)
		}
		if err := copyTree(fresh, fixture); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fixture, "PROVENANCE.md"), prov, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	dbs, _ := filepath.Glob(filepath.Join(fresh, "*", "*", "*", "*.sqlite"))
	more, _ := filepath.Glob(filepath.Join(fresh, "state", "*.sqlite"))
	dbs = append(dbs, more...)
	if len(dbs) < 3 {
		t.Fatalf("only %d databases built", len(dbs))
	}
	for _, p := range dbs {
		rel, _ := filepath.Rel(fresh, p)
		got, want := dump(t, filepath.Join(fixture, rel)), dump(t, p)
		if got != want {
			t.Errorf("%s differs from a fresh build; run UPDATE_GOLDEN=1 go test ./internal/testutil/schema24 -run TestFixture", rel)
		}
	}
	for _, f := range []string{"openclaw.json"} {
		a, _ := os.ReadFile(filepath.Join(fixture, f))
		b, _ := os.ReadFile(filepath.Join(fresh, f))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s differs from the 9.6 fixture's", f)
		}
	}
}

// TestMigrationMatchesOpenClaw checks the migrated agent databases against
// what OpenClaw 2026.9.8's migration leaves, object by object and row by
// row, against the 9.6 source: the only schema objects that differ are the
// new column, table and triggers; every row of every other table is
// unchanged; session_nodes differs only as the split requires.
func TestMigrationMatchesOpenClaw(t *testing.T) {
	root := testutil.Root(t)
	for _, agent := range []string{"main", "ops"} {
		rel := filepath.Join("agents", agent, "agent", "openclaw-agent.sqlite")
		before := openRO(t, filepath.Join(root, "testdata", "state-2026.9.6", rel))
		after := openRO(t, filepath.Join(root, "testdata", "state-2026.9.8", rel))
		var uv int
		if err := after.QueryRow("PRAGMA user_version").Scan(&uv); err != nil || uv != 24 {
			t.Fatalf("%s: user_version %d, %v", agent, uv, err)
		}
		var mv int
		var app string
		if err := after.QueryRow("SELECT schema_version, app_version FROM schema_meta WHERE meta_key = 'primary'").Scan(&mv, &app); err != nil || mv != 24 || app != AppVersion {
			t.Fatalf("%s: schema_meta %d %q %v", agent, mv, app, err)
		}
		objs := func(db *sql.DB) map[string]string {
			m := map[string]string{}
			rows, err := db.Query("SELECT type || ' ' || name, coalesce(sql, '') FROM sqlite_master")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var k, v string
				rows.Scan(&k, &v)
				m[k] = v
			}
			return m
		}
		ob, oa := objs(before), objs(after)
		var added, changed []string
		for k, v := range oa {
			if w, ok := ob[k]; !ok {
				added = append(added, k)
			} else if w != v {
				changed = append(changed, k)
			}
		}
		for k := range ob {
			if _, ok := oa[k]; !ok {
				t.Errorf("%s: %s dropped", agent, k)
			}
		}
		sort.Strings(added)
		sort.Strings(changed)
		wantAdded := "table session_entry_snapshots,trigger session_entry_snapshots_after_delete,trigger session_entry_snapshots_after_insert,trigger session_entry_snapshots_after_update"
		if got := strings.Join(added, ","); got != wantAdded {
			t.Errorf("%s: added objects %s, want %s", agent, got, wantAdded)
		}
		if got := strings.Join(changed, ","); got != "table session_nodes" {
			t.Errorf("%s: changed objects %s, want only table session_nodes", agent, got)
		}
		if !strings.HasSuffix(oa["table session_nodes"], ", snapshot_revision INTEGER NOT NULL DEFAULT 0)") &&
			!strings.Contains(oa["table session_nodes"], "snapshot_revision INTEGER NOT NULL DEFAULT 0") {
			t.Errorf("%s: session_nodes lacks snapshot_revision: %s", agent, oa["table session_nodes"])
		}
		// Every row of every table but session_nodes, schema_meta and the
		// new one is unchanged.
		for k, v := range ob {
			name, ok := strings.CutPrefix(k, "table ")
			if !ok || strings.HasPrefix(v, "CREATE VIRTUAL") || name == "session_nodes" || name == "schema_meta" {
				continue
			}
			if a, b := tableRows(t, before, name), tableRows(t, after, name); a != b {
				t.Errorf("%s: rows of %s changed", agent, name)
			}
		}
		// session_nodes: each entry is the old one without the snapshot
		// fields, which are now rows of session_entry_snapshots.
		rows, err := before.Query("SELECT session_key, entry_json, entry_valid FROM session_nodes")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var key, entry string
			var valid int
			rows.Scan(&key, &entry, &valid)
			n++
			var got string
			var rev, gotValid int
			if err := after.QueryRow("SELECT entry_json, snapshot_revision, entry_valid FROM session_nodes WHERE session_key = ?", key).Scan(&got, &rev, &gotValid); err != nil {
				t.Fatal(err)
			}
			hot, snaps, err := Split([]byte(entry))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(hot) || gotValid != 1 || rev != len(snaps) {
				t.Errorf("%s %s: entry/valid/revision %d/%d wrong", agent, key, gotValid, rev)
			}
			for _, f := range SnapshotFields {
				var v string
				err := after.QueryRow("SELECT value_json FROM session_entry_snapshots WHERE session_key = ? AND field = ?", key, f).Scan(&v)
				if w, ok := snaps[f]; ok != (err == nil) || (ok && v != string(w)) {
					t.Errorf("%s %s: snapshot %s = %q (%v), want %q", agent, key, f, v, err, w)
				}
			}
			if strings.Contains(got, `"skillsSnapshot"`) || !strings.Contains(entry, `"skillsSnapshot"`) {
				t.Errorf("%s %s: the 9.6 entry should carry skillsSnapshot and the 9.8 one not", agent, key)
			}
		}
		rows.Close()
		if n == 0 {
			t.Fatalf("%s: no sessions", agent)
		}
	}
}

func TestSplitKeepsOrderAndBytes(t *testing.T) {
	hot, snaps, err := Split([]byte(`{"sessionId":"a","skillsSnapshot":{"p":1e+30},"updatedAt":7,"custom":{"x":[true,null,"é"]},"systemPromptReport":["s"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(hot) != `{"sessionId":"a","updatedAt":7,"custom":{"x":[true,null,"é"]}}` {
		t.Errorf("hot = %s", hot)
	}
	if string(snaps["skillsSnapshot"]) != `{"p":1e+30}` || string(snaps["systemPromptReport"]) != `["s"]` || len(snaps) != 2 {
		t.Errorf("snaps = %q", snaps)
	}
	same := []byte(`{"sessionId":"a","updatedAt":7}`)
	if hot, snaps, _ := Split(same); string(hot) != string(same) || snaps != nil {
		t.Errorf("an entry without snapshot fields changed: %s %v", hot, snaps)
	}
}

func openRO(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func tableRows(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SELECT * FROM %q", table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	sort.Strings(out)
	return strings.Join(cols, ",") + "\n" + strings.Join(out, "\n")
}

// dump is every schema object and every row of every ordinary table of the
// database at path, in a stable order.
func dump(t *testing.T, path string) string {
	t.Helper()
	db := openRO(t, path)
	var b strings.Builder
	var uv int
	db.QueryRow("PRAGMA user_version").Scan(&uv)
	fmt.Fprintf(&b, "user_version %d\n", uv)
	rows, err := db.Query("SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var typ, name, s string
		rows.Scan(&typ, &name, &s)
		fmt.Fprintf(&b, "%s %s %s\n", typ, name, s)
		if typ == "table" && !strings.HasPrefix(s, "CREATE VIRTUAL") && !strings.HasPrefix(name, "sqlite_") {
			tables = append(tables, name)
		}
	}
	rows.Close()
	for _, tb := range tables {
		b.WriteString(tableRows(t, db, tb))
		b.WriteByte('\n')
	}
	return b.String()
}
