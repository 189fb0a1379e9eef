package main_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// sqlquery DB SQL: run a read-only query on the SQLite database DB and print
// its rows to stdout, one line each, columns separated by tabs (NULL as
// "NULL").
func sqlQuery(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: sqlquery DB SQL")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?mode=ro&_busy_timeout=5000")
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query(args[1])
	ts.Check(err)
	defer rows.Close()
	cols, err := rows.Columns()
	ts.Check(err)
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		ts.Check(rows.Scan(ptrs...))
		out := make([]string, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				out[i] = "NULL"
			case []byte:
				out[i] = string(v)
			default:
				out[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(ts.Stdout(), strings.Join(out, "\t"))
	}
	ts.Check(rows.Err())
}

// gatewaylock STATE: write OpenClaw 2026.9.6's gateway.state.lock in
// STATE's lock dir (<state>/tmp/openclaw-<uid>/) naming a live pid (the test
// process), as a running gateway leaves it.
func gatewayLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: gatewaylock STATE")
	}
	dir := sqlitewrite.LockDir(ts.MkAbs(args[0]))
	ts.Check(os.MkdirAll(dir, 0o700))
	body := fmt.Sprintf(`{"pid":%d,"createdAt":"2026-11-23T00:00:00.000Z","configPath":"/x/openclaw.json","role":"gateway"}`, os.Getpid())
	ts.Check(os.WriteFile(filepath.Join(dir, "gateway.state.lock"), []byte(body), 0o600))
	fmt.Fprintf(ts.Stdout(), "%d\n", os.Getpid())
}
