package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// lockGateway writes the lock a live OpenClaw gateway of dir holds (this
// process's pid stands for it).
func lockGateway(t *testing.T, dir, role string) {
	t.Helper()
	ld := sqlitewrite.LockDir(dir)
	if err := os.MkdirAll(ld, 0o700); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"pid":%d,"createdAt":"2026-11-23T00:00:00.000Z","configPath":"/x/openclaw.json","role":%q}`, os.Getpid(), role)
	if err := os.WriteFile(filepath.Join(ld, "gateway.state.lock"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCapabilitiesLocal(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		fixture string
		lock    string // the role of an OpenClaw process holding the state dir ("": none)
		want    Capabilities
	}{
		{"state-2026.1.30", "", Capabilities{Era: era.JSON.String(), Readable: true, Writable: true, LabelMax: 64}},
		{"state-2026.9.6", "", Capabilities{Era: era.SQLite.String(), Readable: true, Writable: true, LabelMax: 512}},
		// its gateway live: written through it, turns run there, its label rule
		{"state-2026.9.6", "gateway", Capabilities{Era: era.SQLite.String(), Readable: true, Writable: true, LabelMax: 64, TurnsInOpenClaw: true}},
		// another OpenClaw process holds the store, no gateway of it is live
		{"state-2026.9.6", "cli", Capabilities{Era: era.SQLite.String(), Readable: true, LabelMax: 512,
			WhyNot: fmt.Sprintf("OpenClaw is running (pid %d) and no gateway of it is live here: write through its gateway (--gateway URL)", os.Getpid())}},
	} {
		dir := copyReadFixture(t, tc.fixture)
		if tc.lock != "" {
			lockGateway(t, dir, tc.lock)
		}
		o, _ := newTestOps(t, dir, nil, nil)
		got, err := o.Capabilities(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		if tc.lock == "gateway" {
			if !strings.HasPrefix(got.WritesThrough, "ws://127.0.0.1:") {
				t.Errorf("%s with a live gateway: writes through %q", tc.fixture, got.WritesThrough)
			}
			got.WritesThrough = ""
		}
		if got != tc.want {
			t.Errorf("%s (lock %q):\n got %+v\nwant %+v", tc.fixture, tc.lock, got, tc.want)
		}
	}
}

// A requester sees only its own agent (agent-to-agent off): the others
// are not readable.
func TestCapabilitiesReadable(t *testing.T) {
	o, _ := newTestOps(t, fixtureDir(t, "state-2026.1.30"), nil, func(c *Config) { c.As = "agent:ops:main" })
	for agent, want := range map[string]bool{"ops": true, "main": false} {
		caps, err := o.Capabilities(context.Background(), agent)
		if err != nil {
			t.Fatal(err)
		}
		if caps.Readable != want {
			t.Errorf("%s: readable %v, want %v", agent, caps.Readable, want)
		}
	}
}

// Through a named gateway every agent is written there and its turns run
// there, whatever the store behind it.
func TestCapabilitiesOverGateway(t *testing.T) {
	o, _, s := startGateway(t, 4, gatewaytest.Data{Sessions: []json.RawMessage{}})
	caps, err := o.Capabilities(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	want := Capabilities{Era: "gateway", Readable: true, Writable: true, WritesThrough: s.URL(), LabelMax: 64, TurnsInOpenClaw: true}
	if caps != want {
		t.Errorf("\n got %+v\nwant %+v", caps, want)
	}
}
