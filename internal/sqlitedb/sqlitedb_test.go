package sqlitedb

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

func TestDSN(t *testing.T) {
	for _, c := range []struct {
		o    DSNOptions
		want string
	}{
		{DSNOptions{Mode: ReadOnly, BusyTimeout: 10 * time.Second, Pragmas: []string{"trusted_schema(0)"}},
			"file:///s/a.sqlite?_busy_timeout=10000&_pragma=trusted_schema%280%29&_query_only=1&mode=ro"},
		{DSNOptions{Mode: Immutable, BusyTimeout: 2 * time.Second},
			"file:///s/a.sqlite?_busy_timeout=2000&_query_only=1&immutable=1"},
		{DSNOptions{Mode: ReadWrite, BusyTimeout: 5 * time.Second, Pragmas: []string{"synchronous(NORMAL)", "wal_autocheckpoint(0)"}},
			"file:///s/a.sqlite?_pragma=busy_timeout%285000%29&_pragma=foreign_keys%281%29&_pragma=synchronous%28NORMAL%29&_pragma=wal_autocheckpoint%280%29&_txlock=immediate&mode=rw"},
	} {
		if got := DSN("/s/a.sqlite", c.o); got != c.want {
			t.Errorf("mode %d:\n got %s\nwant %s", c.o.Mode, got, c.want)
		}
	}
}

// A store that is not a database, and one held by a writer, map to exit 10
// and exit 11, worded for the side that met them.
func TestMapError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite", DSN(p, DSNOptions{Mode: ReadWrite, BusyTimeout: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("select 1")
	if err == nil {
		t.Fatal("mode=rw opened a missing file")
	}
	for _, c := range []struct {
		a    Access
		code int
		msg  string
	}{{Read, apperr.CodeState, "cannot read OpenClaw SQLite store"}, {Write, apperr.CodeState, "cannot write OpenClaw SQLite store"}} {
		e := MapError(err, p, c.a, time.Second, "open")
		if apperr.CodeOf(e) != c.code || !strings.Contains(e.Error(), c.msg) || !strings.Contains(e.Error(), p) {
			t.Errorf("access %d: %v (exit %d)", c.a, e, apperr.CodeOf(e))
		}
	}
	if MapError(nil, p, Read, 0, "x") != nil {
		t.Error("nil mapped to an error")
	}
	typed := apperr.Lockf("held")
	if MapError(typed, p, Write, 0, "x") != error(typed) {
		t.Error("a typed error was rewrapped")
	}
}
