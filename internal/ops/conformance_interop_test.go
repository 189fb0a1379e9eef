//go:build interop

package ops_test

import (
	"testing"

	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestConformanceInterop runs every conformance check on the real OpenClaw
// 2026.1.30 and 2026.9.6 gateways of the peer (mock LLM), one gateway per
// version shared by the checks: each check writes only sessions of its own.
// Run: OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop -run TestConformanceInterop ./internal/ops/
func TestConformanceInterop(t *testing.T) {
	p := peertest.Peer(t)
	bin := sessionsBinary(t) // before the gateways start: the tree as it is now
	for _, v := range []struct{ name, version string }{{"gateway-1.30", "2026.1.30"}, {"gateway-9.6", "2026.9.6"}} {
		t.Run(v.name, func(t *testing.T) {
			g := peertest.StartGateway(t, p, v.version)
			c := g.Seeded(t, "agent:main:main", "agent:main:conformance")
			tmp := t.TempDir()
			env := isolate(t, tmp, nil)
			t.Setenv("SESSIONS_RUNNER_EXE", bin)
			mk := func() *ops.Ops {
				return newOps(tmp, env, ops.Config{Gateway: gatewaysel.Selector{URL: g.URL, TokenFile: c.TokenFile}})
			}
			fx := &fixture{mk: mk, main: "agent:main:main", remote: true, runs: gatewayRuns(t, mk)}
			for _, ck := range checks {
				t.Run(ck.name, func(t *testing.T) { ck.fn(t, fx) })
			}
		})
	}
}
