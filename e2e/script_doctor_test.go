package e2e_test

import (
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
