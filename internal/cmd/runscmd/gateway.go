package runscmd

import (
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/runs"
)

// ourRuns are the records of a runs store, newest first, a dead runner's
// run ended as it is seen.
func ourRuns(rs *runs.Store, now time.Time) ([]*runs.Record, error) {
	out, err := rs.List()
	if err != nil {
		return nil, err
	}
	for i, r := range out {
		if out[i], err = rs.Reap(r, now); err != nil {
			return nil, err
		}
		out[i].Source = runs.SourceSessions
	}
	return out, nil
}

// gatewayRuns are our runs through the selected gateways: the records kept
// on this machine in each gateway's home (runs.GatewayHome), the runs
// `send`, `spawn` and `wait` made with the same gateway selection. OpenClaw's
// own sub-agent registry is not reachable over the gateway (no RPC of
// 2026.1.30 or 2026.9.x lists it): --source openclaw or all is exit 10.
// With several contexts (a fleet) every row says its context, and a host
// whose records cannot be read is in failed (nil: not a fleet). --as does
// not filter them, as locally: the records are this machine's.
func gatewayRuns(f *cmdutil.Factory, eps []gateway.Endpoint, source string, tree bool, now time.Time) ([]*runs.Record, *[]backend.HostError, error) {
	if source == sourceOpenClaw || (source == sourceAll && !tree) {
		return nil, nil, apperr.Statef("runs --source %s: OpenClaw's own sub-agent runs are not available over the gateway %s: no RPC of OpenClaw 2026.1.30 or 2026.9.x lists them; run `sessions runs --source %s` on that host", source, eps[0], source)
	}
	fleet := len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
	var out []*runs.Record
	failed := []backend.HostError{}
	for _, ep := range eps {
		home, err := runs.GatewayHome(f.Getenv, ep.URL, false)
		var recs []*runs.Record
		if err == nil {
			f.Log.Debug("runs through the gateway "+ep.String()+" are kept in "+home, "gateway", ep.String())
			recs, err = ourRuns(runs.Open(home), now)
		}
		if err != nil {
			if !fleet {
				return nil, nil, err
			}
			failed = append(failed, backend.HostError{Context: where(ep), Error: err.Error(), Err: err})
			continue
		}
		for _, r := range recs {
			if fleet {
				r.Context = where(ep)
			}
		}
		out = runs.Merge(out, recs)
	}
	if !fleet {
		return out, nil, nil
	}
	return out, &failed, nil
}

func where(ep gateway.Endpoint) string {
	if ep.Context != "" {
		return ep.Context
	}
	return ep.URL
}
