package e2e_test

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/lock"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitfile FILE REGEXP: wait (up to 10 s) until FILE exists and its content
// matches REGEXP (multi-line mode) — to synchronise with a background
// command that writes FILE, such as `history --follow > out`.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		if err == nil && re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: no match for %q after 10s; content:\n%s", args[0], args[1], data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// appendfile [-n] SRC DST: append the content of SRC to DST in one write;
// -n drops SRC's final newline (txtar files always end with one), to write
// half a line.
func appendFile(ts *testscript.TestScript, neg bool, args []string) {
	trim := len(args) > 0 && args[0] == "-n"
	if trim {
		args = args[1:]
	}
	if len(args) != 2 || neg {
		ts.Fatalf("usage: appendfile [-n] SRC DST")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if trim {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ts.Check(err)
	_, err = f.Write(data)
	ts.Check(err)
	ts.Check(f.Close())
}

// flockhold FILE: hold an flock on FILE (created if missing) in the test
// process until the script ends, like a live sessions runner holds its
// run's lock; sets $FLOCKPID to the holder's pid.
func flockHold(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: flockhold FILE")
	}
	fl := lock.NewFlock(ts.MkAbs(args[0]))
	ok, err := fl.TryLock()
	ts.Check(err)
	if !ok {
		ts.Fatalf("flockhold: %s is already locked", args[0])
	}
	ts.Defer(func() { _ = fl.Unlock() })
	ts.Setenv("FLOCKPID", strconv.Itoa(os.Getpid()))
}
