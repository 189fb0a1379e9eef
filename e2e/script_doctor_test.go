package e2e_test

import (
	"os"
	"strconv"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// mkfifo PATH: create a named pipe (a lock path that must never be opened).
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(testutil.Mkfifo(ts.MkAbs(args[0])))
}

// truncate PATH SIZE: create or cut PATH to SIZE bytes (a sparse file: an
// oversized SQLite -wal doctor only stats).
func truncateCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: truncate PATH SIZE")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	p := ts.MkAbs(args[0])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
	ts.Check(err)
	ts.Check(f.Truncate(n))
	ts.Check(f.Close())
}
