package main_test

import (
	"fmt"
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// transcriptlock FILE: hold OpenClaw's transcript write lock FILE (the
// transcript's path + ".lock") as a live OpenClaw process would: the payload
// {"pid","createdAt"} of acquireSessionWriteLock, with this test process's
// pid. `rm FILE` releases it.
func transcriptLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: transcriptlock FILE")
	}
	payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", os.Getpid(), time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(payload), 0o644))
}
