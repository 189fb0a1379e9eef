package patch

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// GatewayTimeout bounds a patch over a gateway (handshake, lookup, patch);
// running out is exit 5.
var GatewayTimeout = 60 * time.Second

// patchRemote handles an invocation that names a gateway (--gateway,
// --context, $OPENCLAW_GATEWAY_URL, the current context): the session is
// found with sessions.list (--as checked against that host's config, a
// patch making the checks of a send) and patched through the write seam's
// gateway route (sessionwrite.Choose: its Patch is the gateway's own
// sessions.patch). false: no gateway named — patch the local state.
func patchRemote(o *Options) (bool, error) {
	f := o.f
	eps, err := f.GatewayEndpoints()
	if err != nil {
		return true, err
	}
	switch {
	case len(eps) == 0:
		return false, nil
	case len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") }):
		return true, apperr.Usagef("patch changes one session on one host: give one --context (or --gateway URL), not %s", describeContexts(f.Flags.Contexts, len(eps)))
	}
	if err := o.refuseOverGateway(); err != nil {
		return true, err
	}
	ep := eps[0]
	f.Log.Debug("patch over the gateway", "gateway", ep.String(), "auth", ep.AuthSource)
	wo, err := f.WriteOptions(nil)
	if err != nil {
		return true, err
	}
	route, err := sessionwrite.Choose(nil, "", wo)
	if err != nil {
		return true, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), GatewayTimeout)
	defer cancel()
	r, err := o.remoteTarget(ctx, ep)
	if err != nil {
		return true, err
	}
	w, err := sessionwrite.OpenRoute(nil, r.AgentID, route, wo)
	if err != nil {
		return true, err
	}
	defer w.Close()
	return true, o.write(ctx, w, r.Key, r.Key, "", nil)
}

// remoteTarget connects, checks --as (a named gateway: against that
// host's config, the checks of a send) and finds o's session there.
func (o *Options) remoteTarget(ctx context.Context, ep gateway.Endpoint) (state.Row, error) {
	f := o.f
	c, err := gateway.Connect(ctx, ep, nil, func(m string) { f.Log.Debug(m) })
	if err != nil {
		return state.Row{}, err
	}
	defer c.Close()
	acc, err := f.AsOverGateway(ctx, c, backend.WhereOf(ep))
	if err != nil {
		return state.Row{}, err
	}
	row, err := o.remoteKey(ctx, c, acc)
	if err != nil {
		return state.Row{}, err
	}
	r, err := backend.RowOf(row.Raw)
	if err != nil {
		return state.Row{}, err
	}
	named := o.Ref
	if o.TargetLabel != "" {
		named = o.TargetLabel
	}
	if err := backend.CheckSession(ctx, c, acc, named, r, policy.OpSend); err != nil {
		return state.Row{}, err
	}
	return r, nil
}

// refuseOverGateway: what a gateway patch cannot honour. (--as is checked
// against the local config by ResolveRef on the automatic route, and
// against the named gateway's own config in remoteTarget.)
func (o *Options) refuseOverGateway() error {
	if o.WaitIdle > 0 {
		return apperr.Usagef("--wait-idle applies to a patch of the local state dir; through the gateway, OpenClaw itself orders the patch with its runs")
	}
	return nil
}

func (o *Options) describe() string {
	var parts []string
	if o.SendPolicy != "" {
		parts = append(parts, "sendPolicy="+o.SendPolicy)
	}
	if o.SetLabel {
		parts = append(parts, fmt.Sprintf("label=%q", o.Label))
	}
	if o.ClearLabel {
		parts = append(parts, "label cleared")
	}
	return strings.Join(parts, ", ")
}

var hexPrefix = regexp.MustCompile(`^[0-9a-fA-F-]{8,}$`)

// remoteKey resolves the session reference over the gateway, as locally:
// a key (a bare "main"-style rest is the --agent's, else main's), a
// sessionId, a unique sessionId prefix (8+ hex digits), or --target-label
// [--agent]. 1.30's sessions.patch would create a key it does not have:
// the session must be listed first.
func (o *Options) remoteKey(ctx context.Context, c *gateway.Client, acc *state.Access) (gateway.SessionRow, error) {
	agent := strings.ToLower(strings.TrimSpace(o.f.Flags.Agent))
	if o.TargetLabel != "" {
		if acc != nil && agent != "" {
			if err := acc.CheckLabelAgent(config.NormalizeAgentID(agent), policy.OpSend); err != nil {
				return gateway.SessionRow{}, err
			}
		}
		page, err := c.ListSessions(ctx, gateway.ListParams{Label: o.TargetLabel, AgentID: agent})
		if err != nil {
			return gateway.SessionRow{}, err
		}
		var hits []gateway.SessionRow // the gateway filters; checked again here
		var keys []string
		for _, r := range page.Sessions {
			if r.Label == o.TargetLabel {
				hits, keys = append(hits, r), append(keys, r.Key)
			}
		}
		switch len(hits) {
		case 0:
			return gateway.SessionRow{}, apperr.NotFoundf("No session found with label: %s", o.TargetLabel)
		case 1:
			return hits[0], nil
		}
		return gateway.SessionRow{}, apperr.Usagef("label %q names %d sessions on the gateway (%s); give --agent or the key", o.TargetLabel, len(keys), strings.Join(keys, ", "))
	}
	ref := strings.TrimSpace(o.Ref)
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: agent}, 0)
	if err != nil {
		return gateway.SessionRow{}, err
	}
	lower := strings.ToLower(ref)
	alias := ""
	if !strings.HasPrefix(lower, "agent:") {
		a := agent
		if acc != nil { // a bare key is the requester's agent's, as locally
			a = acc.Req.Agent
		}
		if a == "" {
			a = "main"
		}
		alias = "agent:" + a + ":" + lower
	}
	var byPrefix []gateway.SessionRow
	for _, r := range page.Sessions {
		k := strings.ToLower(r.Key)
		switch {
		case k == lower || (alias != "" && k == alias):
			return r, nil
		case r.SessionID != "" && strings.EqualFold(r.SessionID, ref):
			return r, nil
		case hexPrefix.MatchString(ref) && strings.HasPrefix(strings.ToLower(r.SessionID), lower):
			byPrefix = append(byPrefix, r)
		}
	}
	switch len(byPrefix) {
	case 1:
		return byPrefix[0], nil
	case 0:
		if acc != nil {
			return gateway.SessionRow{}, acc.NotFound(ref)
		}
		return gateway.SessionRow{}, apperr.NotFoundf("No session found: %s", ref)
	}
	keys := make([]string, len(byPrefix))
	for i, r := range byPrefix {
		keys[i] = r.Key
	}
	return gateway.SessionRow{}, apperr.Usagef("session id prefix %s is ambiguous on the gateway: %s", ref, strings.Join(keys, ", "))
}

func describeContexts(ctxs []string, n int) string {
	for _, c := range ctxs {
		if strings.EqualFold(strings.TrimSpace(c), "all") {
			return "--context all"
		}
	}
	return fmt.Sprintf("%d contexts", n)
}
