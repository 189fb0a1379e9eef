package sqlitestore

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/testutil"
)

// fixture is the real OpenClaw 2026.9.6 state dir (never modified: tests
// work on copies).
const fixture = "../../testdata/state-2026.9.6"

// copyFixture copies the fixture state dir into a temp dir and returns it.
func copyFixture(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(fixture, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// snapshot hashes every file under dir (names included, so a -wal or -shm
// appearing or vanishing shows).
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertUnchanged(t testing.TB, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	if !maps.Equal(before, after) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("file %s changed or appeared", k)
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("file %s vanished", k)
			}
		}
	}
}

// rw opens a copy read-write, for tests that prepare a database. Closing it
// checkpoints and removes the -wal, as OpenClaw's own close does.
func rw(t testing.TB, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func mustExec(t testing.TB, db interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// rawEvents reads the event_json of every event of a session in seq order
// from a database (test-only, independent of the package's reader).
func rawEvents(t testing.TB, dbPath, sessionID string) (seqs []int64, lines []string) {
	t.Helper()
	u := url.URL{Scheme: "file", Path: dbPath}
	db, err := sql.Open("sqlite", u.String()+"?immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq", sessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	for rows.Next() {
		var s int64
		var l sql.NullString
		var z []byte
		if err := rows.Scan(&s, &l, &z); err != nil {
			t.Fatal(err)
		}
		if !l.Valid {
			b, err := dec.DecodeAll(z, nil)
			if err != nil {
				t.Fatal(err)
			}
			l.String = string(b)
		}
		seqs, lines = append(seqs, s), append(lines, l.String)
	}
	return seqs, lines
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}

// liveWriter is a writer on the database at path that never checkpoints
// (its commits stay in the -wal), closed when the test ends.
func liveWriter(t testing.TB, path string) *sql.DB {
	t.Helper()
	w := rw(t, path)
	t.Cleanup(func() { w.Close() })
	mustExec(t, w, "PRAGMA wal_autocheckpoint = 0")
	return w
}
