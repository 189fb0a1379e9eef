package e2e_test

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// txlock FILE [PID]: create an OpenClaw transcript write lock FILE
// (<transcript>.jsonl.lock) exactly as acquireSessionWriteLock writes it,
// {"pid":PID,"createdAt":<now, ISO>} pretty-printed, held by PID — by
// default the test process itself (alive for the whole script). Sets
// $TLOCKPID.
func transcriptLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: txlock FILE [PID]")
	}
	pid := os.Getpid()
	if len(args) == 2 {
		var err error
		pid, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", pid, time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(payload), 0o644))
	ts.Setenv("TLOCKPID", strconv.Itoa(pid))
}
