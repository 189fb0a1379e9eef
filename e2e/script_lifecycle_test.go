package e2e_test

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// sqlQuery prints every row of SQL on DB (opened immutable: it never
// creates a -wal/-shm nor takes a lock), one line a row, columns
// "|"-joined, NULL empty.
func sqlQuery(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: sqlquery DB SQL")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?immutable=1")
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query(args[1])
	ts.Check(err)
	defer rows.Close()
	cols, err := rows.Columns()
	ts.Check(err)
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		ts.Check(rows.Scan(ptrs...))
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = v.String
		}
		fmt.Fprintln(ts.Stdout(), strings.Join(out, "|"))
	}
	ts.Check(rows.Err())
}
