package main_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/sqlitewrite"
)

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
