package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
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
		return []backend.Reader{&backend.Local{State: f.State, Warn: f.Warn}}, false, nil
	}
	if err := f.refuseAsOverGateway(); err != nil {
		return nil, false, err
	}
	for _, ep := range eps {
		readers = append(readers, &backend.Gateway{Endpoint: ep, Agent: f.Flags.Agent, Log: func(m string) { f.Log.Debug(m) }})
	}
	fleet = len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
	return readers, fleet, nil
}

// refuseAsOverGateway: --as (and $OPENCLAW_SESSION_KEY) are policy checks
// against the config of the host where the sessions live; over a gateway
// that config is not ours to read, so the requester cannot be honoured.
func (f *Factory) refuseAsOverGateway() error {
	as, from := f.Flags.As, "--as"
	if as == "" {
		as, from = strings.TrimSpace(f.Getenv("OPENCLAW_SESSION_KEY")), "$OPENCLAW_SESSION_KEY"
	}
	if as == "" {
		return nil
	}
	return apperr.Usagef("%s cannot be used over a gateway: the agent-to-agent policy it needs lives in the gateway host's config, which sessions does not read remotely (run sessions on that host, or drop %s to read as the operator the gateway token stands for)", from, from)
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
