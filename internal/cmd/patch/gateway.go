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
	"github.com/openclaw/sessions/internal/state"
)

// GatewayTimeout bounds a patch over a gateway (handshake, lookup, patch);
// running out is exit 5.
var GatewayTimeout = 60 * time.Second

// patchRemote handles an invocation that names a gateway (--gateway,
// --context, $OPENCLAW_GATEWAY_URL, the current context): the session is
// found with sessions.list and patched with the gateway's own
// sessions.patch. false: no gateway named — patch the local state.
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
	if err := o.refuseOverGateway(true); err != nil {
		return true, err
	}
	ep := eps[0]
	f.Log.Debug("patch over the gateway", "gateway", ep.String(), "auth", ep.AuthSource)
	return true, o.patchVia(ep, "")
}

// patchViaGateway is the route of a 2026.8+ (SQLite) agent whose gateway
// is live on this host: the gateway owns the database while it runs, so the
// patch goes through its sessions.patch with the config's credentials
// instead of a write to the database. false: no live gateway (the local
// path decides).
func patchViaGateway(o *Options, s *state.State, t *state.Target) (bool, error) {
	if s.Era(t.Agent) != "sqlite" {
		return false, nil
	}
	ep, live, err := o.f.LocalGateway(s)
	if err != nil {
		o.f.Log.Debug("patch: no live gateway for the SQLite store, patching locally", "reason", err.Error())
		return false, nil
	}
	if err := o.refuseOverGateway(false); err != nil {
		return true, err
	}
	o.f.Log.Debug("patch: agent "+t.Agent+" is on the 2026.8+ SQLite store and its gateway is live: patching through the gateway, not the database",
		"gateway", ep.URL, "found", live.Describe(), "auth", ep.AuthSource)
	return true, o.patchVia(ep, t.Key)
}

// refuseOverGateway: what a gateway patch cannot honour. (--as is checked
// against the local config by ResolveRef on the automatic route, and
// against the named gateway's own config in patchVia.)
func (o *Options) refuseOverGateway(bool) error {
	if o.WaitIdle > 0 {
		return apperr.Usagef("--wait-idle applies to a patch of the local state dir; through the gateway, OpenClaw itself orders the patch with its runs")
	}
	return nil
}

// patchVia connects, finds the session (key "" : resolve o's reference
// over the gateway), patches it and prints the result like a local patch.
func (o *Options) patchVia(ep gateway.Endpoint, key string) error {
	f := o.f
	ctx, cancel := context.WithTimeout(context.Background(), GatewayTimeout)
	defer cancel()
	opts, err := ep.Options().WithDefaultDeviceFiles()
	if err != nil {
		return err
	}
	opts.Log = func(m string) { f.Log.Debug(m) }
	c, err := gateway.Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	display := key
	if key == "" {
		// A named gateway: --as means what it means locally, checked
		// against that host's config (a patch is a write: the checks of
		// a send).
		acc, err := f.AsOverGateway(ctx, c, backend.WhereOf(ep))
		if err != nil {
			return err
		}
		row, err := o.remoteKey(ctx, c, acc)
		if err != nil {
			return err
		}
		r, err := backend.RowOf(row.Raw)
		if err != nil {
			return err
		}
		named := o.Ref
		if o.TargetLabel != "" {
			named = o.TargetLabel
		}
		if err := backend.CheckSession(ctx, c, acc, named, r, policy.OpSend); err != nil {
			return err
		}
		key, display = row.Key, row.Key
	}
	r, err := c.PatchSession(ctx, key, o.fields())
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(Result{OK: true, Key: r.Key, Path: r.Path, Entry: r.Entry})
	}
	fmt.Fprintf(f.IO.Out, "patched %s: %s\n", display, o.describe())
	return nil
}

// fields are sessions.patch's params for o (null clears).
func (o *Options) fields() map[string]any {
	m := map[string]any{}
	if o.SetLabel {
		m["label"] = o.Label
	}
	if o.ClearLabel {
		m["label"] = nil
	}
	switch o.SendPolicy {
	case "allow", "deny":
		m["sendPolicy"] = o.SendPolicy
	case "inherit":
		m["sendPolicy"] = nil
	}
	return m
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
