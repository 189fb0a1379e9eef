package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// gatewaylock STATE [ROLE]: write OpenClaw 2026.9.6's gateway.state.lock in
// STATE's lock dir (<state>/tmp/openclaw-<uid>/) naming a live pid (the test
// process), as a running gateway leaves it (ROLE: as another owner leaves
// it, e.g. agent-embedded for `openclaw agent --local`, taken now, or at
// CREATED).
func gatewayLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 3 || neg {
		ts.Fatalf("usage: gatewaylock STATE [ROLE [CREATED]]")
	}
	dir := sqlitewrite.LockDir(ts.MkAbs(args[0]))
	ts.Check(os.MkdirAll(dir, 0o700))
	role, created := "gateway", "2026-11-23T00:00:00.000Z"
	if len(args) >= 2 {
		// another owner of the state dir (agent-embedded: `openclaw agent
		// --local`), taken now
		role, created = args[1], time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if len(args) == 3 {
		created = args[2]
	}
	body := fmt.Sprintf(`{"pid":%d,"createdAt":%q,"configPath":"/x/openclaw.json","role":%q}`, os.Getpid(), created, role)
	ts.Check(os.WriteFile(filepath.Join(dir, "gateway.state.lock"), []byte(body), 0o600))
	fmt.Fprintf(ts.Stdout(), "%d\n", os.Getpid())
}
