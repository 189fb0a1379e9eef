package sqlitewrite

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// fixtureDir is the state dir the real OpenClaw 2026.9.6 generated.
const fixtureDir = "../../testdata/state-2026.9.6"

// copyState copies the fixture state dir (without -wal/-shm, which a
// checked-in fixture does not have) into a temp dir.
func copyState(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	err := filepath.WalkDir(fixtureDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if filepath.Ext(p) == ".sqlite-wal" || filepath.Ext(p) == ".sqlite-shm" {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// rawDB opens an agent database for the test's own checks and setup (not
// through the package under test).
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=rw&_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func queryInt(t testing.TB, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

func queryString(t testing.TB, db *sql.DB, q string, args ...any) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRow(q, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s.String
}

// checkClean asserts integrity_check ok, no foreign-key violation, and
// every session row readable by OpenClaw's rules.
func checkClean(t testing.TB, db *sql.DB) {
	t.Helper()
	if s := queryString(t, db, "PRAGMA integrity_check"); s != "ok" {
		t.Fatalf("integrity_check: %s", s)
	}
	rows, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Fatal("foreign_key_check reports a violation")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM session_nodes WHERE entry_valid <> 1
		OR json_extract(entry_json, '$.sessionId') IS NOT current_session_id
		OR json_extract(entry_json, '$.updatedAt') IS NOT updated_at`); n != 0 {
		t.Fatalf("%d session rows are not valid", n)
	}
}

func fileHash(t testing.TB, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func wantCode(t testing.TB, err error, code int) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want exit %d", code)
	}
	if got := apperr.CodeOf(err); got != code {
		t.Fatalf("exit %d (%v), want %d", got, err, code)
	}
}

func openWriter(t testing.TB, state, agent string) *Writer {
	t.Helper()
	w, err := Open(state, agent, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}
