package e2e_test

import (
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// mkfifo PATH: create a named pipe (a lock path that must never be opened).
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}
