package runscmd

import (
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/runs"
)

// notOverGateway is why runs cannot be listed over a gateway.
func notOverGateway(ep gateway.Endpoint) error {
	return apperr.Statef("runs: not available over the gateway %s: our run records are kept on the host whose sessions ran them, and no gateway RPC of OpenClaw 2026.1.30 or 2026.9.x lists its sub-agent runs; run `sessions runs` on that host", ep)
}

// gatewayRuns is `runs` with a gateway selected: one gateway is exit 10
// with the reason; a fleet prints an empty listing with every host in
// "errors" (a line each on stderr) and exits 1, like the other fleet
// commands.
func gatewayRuns(f *cmdutil.Factory, eps []gateway.Endpoint, limit cmdutil.Limit, tree bool) error {
	fleet := len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
	if !fleet {
		return notOverGateway(eps[0])
	}
	failed := make([]backend.HostError, 0, len(eps))
	for _, ep := range eps {
		err := notOverGateway(ep)
		where := ep.Context
		if where == "" {
			where = ep.URL
		}
		failed = append(failed, backend.HostError{Context: where, Error: err.Error(), Err: err})
	}
	page := Page{LimitApplied: limit.Applied()}
	if f.JSONMode() {
		var err error
		if tree {
			err = f.PrintJSON(TreeResult{Page: page, Tree: []*Node{}, Errors: &failed})
		} else {
			err = f.PrintJSON(ListResult{Page: page, Runs: []*runs.Record{}, Errors: &failed})
		}
		if err != nil {
			return err
		}
	}
	return cmdutil.ReportHostErrors(f, failed)
}
