package cmdutil

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// Readers returns where this invocation's read commands read from: the
// local state dir, or the gateway(s) the endpoints resolve to. Fleet is
// true with --context all or several contexts: rows then say their context
// and a failing host is reported beside the others' rows. Close them.
func (f *Factory) Readers() (readers []backend.Reader, fleet bool, err error) {
	eps, err := f.GatewayEndpoints()
	if err != nil {
		return nil, false, err
	}
	if len(eps) == 0 {
		return []backend.Reader{&backend.Local{State: f.State, Warn: f.Warn, Agent: f.Flags.Agent,
			Debug: func(msg string, kv ...any) { f.Log.Debug(msg, kv...) }}}, false, nil
	}
	for _, ep := range eps {
		g := &backend.Gateway{Endpoint: ep, Agent: f.Flags.Agent, Log: func(m string) { f.Log.Debug(m) }}
		g.As = func(ctx context.Context, c *gateway.Client) (*state.Access, error) {
			return f.AsOverGateway(ctx, c, g.Where())
		}
		readers = append(readers, g)
	}
	fleet = len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
	return readers, fleet, nil
}

// AsOverGateway is what --as (or $OPENCLAW_SESSION_KEY, with --sandboxed
// and --agent) means on the gateway c is connected to (where names it in
// messages): the requester and that host's agent-to-agent and sandbox
// policy, read from its config with config.get and checked exactly as the
// local config is checked locally (backend.GatewayAccess). nil, nil
// without a requester: the operator the credentials stand for. Exit 3
// when the credentials lack the scope config.get needs (operator.admin on
// 2026.1.30, operator.read on 2026.9.x), exit 4 when the requester is no
// session there. Every command that works through a gateway calls it,
// once per connection (fleet: per host).
func (f *Factory) AsOverGateway(ctx context.Context, c *gateway.Client, where string) (*state.Access, error) {
	as, from := f.Flags.As, "--as"
	if as == "" {
		as, from = strings.TrimSpace(f.Getenv("OPENCLAW_SESSION_KEY")), "$OPENCLAW_SESSION_KEY"
	}
	if strings.TrimSpace(as) == "" {
		return nil, nil
	}
	acc, err := backend.GatewayAccess(ctx, c, where, backend.AsInput{As: as, From: from, Agent: f.Flags.Agent, Sandboxed: f.sandboxed()})
	if err == nil {
		f.Log.Debug("requester over the gateway, checked against its config (config.get)", "gateway", where, "as", acc.Req.Key, "agent", acc.Req.Agent, "sandboxed", acc.Req.Sandboxed, "restricted", acc.Req.Restrict)
	}
	return acc, err
}

// CloseReaders closes every reader.
func CloseReaders(rs []backend.Reader) {
	for _, r := range rs {
		_ = r.Close()
	}
}

// ReportHostErrors prints one line on stderr per failed host of a fleet
// command and returns the exit (1) once the command's output — the other
// hosts' rows and the JSON "errors" array — is printed.
func ReportHostErrors(f *Factory, failed []backend.HostError) error {
	for _, h := range failed {
		fmt.Fprintf(f.IO.ErrOut, "sessions: context %s: %s\n", h.Context, h.Error)
	}
	if len(failed) > 0 {
		return apperr.Reported(apperr.CodeError)
	}
	return nil
}
