package gatewayhost

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lazyre"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// writeSession finds the session over the gateway (sessions.list) as a
// local patch finds it, with state.ResolveRef's wording: a key (a bare
// rest is the requester's agent's: --as's, else --agent's, else main's),
// a sessionId, a unique sessionId prefix (8+ hex digits), or the label
// (of --agent, when given); then the checks of a send against that host's
// config (--as). 1.30's sessions.patch would create a key it does not
// have: the session must be listed first. WaitIdle is refused before any
// connection.
func (g *Gateway) writeSession(ctx context.Context, q backend.WriteQuery) (*backend.WriteTarget, error) {
	if q.WaitIdle {
		return nil, backend.ErrWaitIdleOverGateway()
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	agent := strings.ToLower(strings.TrimSpace(g.Agent))
	c, acc, err := g.requester(ctx, agent, q.Label, policy.OpSend)
	if err != nil {
		return nil, err
	}
	var row gateway.SessionRow
	if q.Label != "" {
		row, err = writeRowByLabel(ctx, c, acc, agent, q.Label)
	} else {
		row, err = writeRow(ctx, c, acc, agent, q.Ref)
	}
	if err != nil {
		return nil, err
	}
	r, err := RowOf(row.Raw)
	if err != nil {
		return nil, err
	}
	if err := CheckSession(ctx, c, acc, q.Ref, q.Label, r, policy.OpSend); err != nil {
		return nil, err
	}
	return &backend.WriteTarget{Key: r.Key, DisplayKey: r.Key, Agent: r.AgentID}, nil
}

// hexPrefix is what a write takes for a sessionId prefix over a gateway.
var hexPrefix = lazyre.New(`^[0-9a-fA-F-]{8,}$`)

// writeRow is the row ref names over the gateway (of agent, when given;
// no global row): the first row whose key is ref or the requester's
// agent's ref, or whose sessionId is ref, else the one row whose sessionId
// ref prefixes.
func writeRow(ctx context.Context, c *gateway.Client, acc *state.Access, agent, ref string) (gateway.SessionRow, error) {
	ref = strings.TrimSpace(ref)
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
		case hexPrefix.MatchString(ref) && strings.HasPrefix(strings.ToLower(r.SessionID), lower) && reaches(acc, r.Key):
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

// reaches reports whether a requester (acc; nil or the operator: always)
// may see the sessions of the agent key names, so a session it may not see
// is never a candidate it is told of.
func reaches(acc *state.Access, key string) bool {
	if acc == nil || acc.Req.Operator() {
		return true
	}
	return acc.CanSeeAgent(keys.AgentOf(key, acc.Default, config.NormalizeAgentID), policy.OpHistory) == ""
}

// writeRowByLabel is the row with label over the gateway (of agent, when
// given): the gateway filters, and the label is checked again here; for a
// requester, only among the sessions it may see.
func writeRowByLabel(ctx context.Context, c *gateway.Client, acc *state.Access, agent, label string) (gateway.SessionRow, error) {
	page, err := c.ListSessions(ctx, gateway.ListParams{Label: label, AgentID: agent})
	if err != nil {
		return gateway.SessionRow{}, err
	}
	var hits []gateway.SessionRow
	var keys []string
	for _, r := range page.Sessions {
		if r.Label == label && reaches(acc, r.Key) {
			hits, keys = append(hits, r), append(keys, r.Key)
		}
	}
	switch len(hits) {
	case 0:
		if acc != nil && !acc.Req.Operator() {
			return gateway.SessionRow{}, acc.NotFoundLabel(label)
		}
		return gateway.SessionRow{}, apperr.NotFoundf("No session found with label: %s", label)
	case 1:
		return hits[0], nil
	}
	return gateway.SessionRow{}, apperr.Usagef("label %q names %d sessions on the gateway (%s); give --agent or the key", label, len(keys), strings.Join(keys, ", "))
}
