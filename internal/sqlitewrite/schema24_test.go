package sqlitewrite

import (
	"crypto/sha256"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/schema24"
)

// fixture98Dir is the 2026.9.6 sample migrated to OpenClaw 2026.9.8's agent
// schema 24 (see its PROVENANCE.md).
const fixture98Dir = "../../testdata/state-2026.9.8"

func copyState98(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(fixture98Dir, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func treeHash(t testing.TB, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fkDB opens path with foreign keys on, as the writer's connections are.
func fkDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=rw&_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// A store of another agent schema is refused at Open (exit 10, every file
// byte-identical), and the refusal says what helps: for a newer store the
// running gateway (and, past 24, a newer sessions), never openclaw doctor
// --fix, which only migrates older stores.
func TestOtherSchemaRefusedWithAdvice(t *testing.T) {
	for _, c := range []struct {
		version       int // 0: the 9.8 fixture as it is (24)
		want, notWant []string
	}{
		{0, []string{"agent schema 24;", "writes only agent schema 23", "OpenClaw 2026.9.8 to 2026.10.x", "running OpenClaw gateway", "--gateway"}, []string{"doctor"}},
		{25, []string{"agent schema 25;", "newer than any this version of sessions knows", "running OpenClaw gateway", "newer sessions"}, []string{"doctor"}},
		{22, []string{"agent schema 22;", "older OpenClaw", "openclaw doctor --fix"}, []string{"gateway"}},
	} {
		var state string
		if c.version == 22 {
			state = copyState(t)
		} else {
			state = copyState98(t)
		}
		p := Path(state, "main")
		if c.version != 0 {
			if err := schema24.SetUserVersion(p, c.version); err != nil {
				t.Fatal(err)
			}
		}
		before := treeHash(t, state)
		w, err := Open(state, "main", Options{})
		if err == nil {
			w.Close()
			t.Fatalf("schema %d: Open succeeded", c.version)
		}
		wantCode(t, err, apperr.CodeState)
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("schema %d: %q lacks %q", c.version, err, s)
			}
		}
		for _, s := range c.notWant {
			if strings.Contains(err.Error(), s) {
				t.Errorf("schema %d: %q says %q", c.version, err, s)
			}
		}
		after := treeHash(t, state)
		if len(after) != len(before) {
			t.Errorf("schema %d: files appeared or vanished", c.version)
		}
		for f, h := range before {
			if after[f] != h {
				t.Errorf("schema %d: %s changed", c.version, f)
			}
		}
	}
}

// TestSchema24WriteEffects is the proof behind refusing direct writes on
// agent schema 24. It runs, on the 2026.9.8 store, the statements each
// write of ours makes to session_nodes (the only table 24 changed; every
// other table, index and trigger is 23's, see internal/testutil/schema24)
// and checks what schema 24's new triggers and foreign key make of them
// against what OpenClaw 2026.9.8 does:
//
//   - writeEntry (patch, archive, touch after an appended turn): the entry
//     without its moved members is written back; session_entry_snapshots
//     and snapshot_revision stay as they were. The same as 2026.9.8 if its
//     writer leaves the snapshot rows alone when they did not change
//     (splitSessionEntrySnapshots then returns none, snapshotsChanged
//     false) — its entry writer was not at hand to confirm that;
//   - CreateChild's insert (a child entry with no moved member):
//     snapshot_revision 0, no snapshot row — the same;
//   - DeleteEntry without a window left (DELETE): the foreign key cascades
//     the snapshot rows away, and their delete trigger's update finds no row
//     — the same;
//   - DeleteEntry keeping windows (the placeholder, entry_json {}): our
//     update leaves the session's snapshot rows in place, while 2026.9.8's
//     clearSqliteSessionEntryPreservingWindows first deletes them
//     (writeSessionEntrySnapshots(key, [])), bumping snapshot_revision once
//     per row. OpenClaw 2026.9.8 would read our placeholder back as an
//     entry {skillsSnapshot, systemPromptReport}: NOT the same.
//
// One write differs, so direct writes stay refused on schema 24 (Open
// checks user_version and the definitions of every object a write reaches;
// TestOtherSchemaRefusedWithAdvice). Writes on 24 go through the gateway.
func TestSchema24WriteEffects(t *testing.T) {
	state := copyState98(t)
	db := fkDB(t, Path(state, "main"))
	snaps := func(key string) int64 {
		return queryInt(t, db, "SELECT count(*) FROM session_entry_snapshots WHERE session_key = ?", key)
	}
	rev := func(key string) int64 {
		return queryInt(t, db, "SELECT snapshot_revision FROM session_nodes WHERE session_key = ?", key)
	}

	// writeEntry's statements, with the entry as 24 stores it (no moved member).
	key := "agent:main:main"
	if snaps(key) != 2 || rev(key) != 2 {
		t.Fatalf("fixture: %d snapshot rows, revision %d", snaps(key), rev(key))
	}
	hot := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", key)
	patched := strings.Replace(hot, `"updatedAt":`, `"label":"x","updatedAt":`, 1)
	mustExec(t, db, `UPDATE session_nodes SET entry_json = ?, label = 'x' WHERE session_key = ?`, patched, key)
	mustExec(t, db, `UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?`, key)
	if snaps(key) != 2 || rev(key) != 2 || queryInt(t, db, "SELECT entry_valid FROM session_nodes WHERE session_key = ?", key) != 1 {
		t.Errorf("entry update: snapshots %d, revision %d: the snapshots should be untouched", snaps(key), rev(key))
	}

	// CreateChild's insert.
	child := "agent:main:subagent:proof"
	mustExec(t, db, `INSERT INTO session_nodes(session_key, current_session_id, entry_json, entry_valid, updated_at)
		VALUES (?, 'child-sid', '{"sessionId":"child-sid","updatedAt":1}', 1, 1)`, child)
	mustExec(t, db, `UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?`, child)
	if snaps(child) != 0 || rev(child) != 0 {
		t.Errorf("child insert: snapshots %d, revision %d, want 0 and 0", snaps(child), rev(child))
	}

	// DeleteEntry's row delete.
	gone := "agent:main:hook:github:push-42"
	mustExec(t, db, `DELETE FROM session_nodes WHERE session_key = ?`, gone)
	if snaps(gone) != 0 || queryInt(t, db, "SELECT count(*) FROM session_nodes WHERE session_key = ?", gone) != 0 {
		t.Errorf("row delete left %d snapshot rows", snaps(gone))
	}

	// DeleteEntry's placeholder, as delete.go writes it.
	ph := "agent:main:cron:peer-job-1"
	mustExec(t, db, `UPDATE session_nodes SET entry_json = '{}', entry_valid = -1, label = NULL, display_name = NULL WHERE session_key = ?`, ph)
	mustExec(t, db, `UPDATE session_nodes SET entry_valid = -1 WHERE session_key = ?`, ph)
	ours := [2]int64{snaps(ph), rev(ph)}
	// What 2026.9.8 does on the same row, on a fresh copy.
	db2 := fkDB(t, Path(copyState98(t), "main"))
	mustExec(t, db2, `DELETE FROM session_entry_snapshots WHERE session_key = ?`, ph)
	mustExec(t, db2, `UPDATE session_nodes SET entry_json = '{}', entry_valid = -1, label = NULL, display_name = NULL WHERE session_key = ?`, ph)
	mustExec(t, db2, `UPDATE session_nodes SET entry_valid = -1 WHERE session_key = ?`, ph)
	theirs := [2]int64{
		queryInt(t, db2, "SELECT count(*) FROM session_entry_snapshots WHERE session_key = ?", ph),
		queryInt(t, db2, "SELECT snapshot_revision FROM session_nodes WHERE session_key = ?", ph),
	}
	if theirs != [2]int64{0, 4} {
		t.Fatalf("2026.9.8's placeholder: %v snapshot rows/revision, want [0 4]", theirs)
	}
	if ours == theirs {
		t.Fatalf("our placeholder now matches 2026.9.8's (%v): re-examine whether schema 24 can be written directly", ours)
	}
	if ours != [2]int64{2, 2} {
		t.Errorf("our placeholder: %v snapshot rows/revision, want [2 2] (left behind)", ours)
	}
}
