package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/target"
)

// ParseLabel checks a label as the OpenClaw of era e does: trimmed, not
// empty, at most 64 UTF-16 code units (2026.1.30), 512 on a 2026.8+
// (SQLite) agent; era "" is the loosest rule, the check made before the
// target's era is known. A usage error "invalid label: …".
func ParseLabel(e era.Era, raw string) (string, error) { return sessionwrite.ParseLabel(e, raw) }

// PatchGatewayTimeout bounds a patch over a named gateway (handshake,
// lookup, patch); running out is exit 5.
var PatchGatewayTimeout = 60 * time.Second

// DefaultPatchSettle bounds the wait, after an OpenClaw run released a
// session's transcript lock, for its end-of-turn write of the store.
const DefaultPatchSettle = 2 * time.Second

// PatchRequest is a change of a session's send policy or label, as
// OpenClaw's sessions.patch makes it.
type PatchRequest struct {
	Ref         string // a key, sessionId or unique prefix; or TargetLabel
	TargetLabel string // the session with this label (Config.Agent picks the agent)
	SendPolicy  string // "", allow, deny, inherit (removes the override)
	SetLabel    bool   // set Label (checked with ParseLabel)
	Label       string
	ClearLabel  bool
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (the local state
	// dir only).
	WaitIdle time.Duration
	// Settle is how long to wait, after such a run released the lock, for
	// its end-of-turn store write (0: DefaultPatchSettle).
	Settle time.Duration
	// OnWaitIdle is told when the patch starts waiting for such a run
	// (WaitIdle), with what it waits for.
	OnWaitIdle func(msg string)
}

// Validate refuses a request that asks for nothing or for something
// invalid (usage errors, exit 2) before any store is read, and trims the
// label. The label is held to the loosest rule here (2026.9.6's 512); the
// target's era decides once it is known (2026.1.30: 64).
func (q *PatchRequest) Validate() error {
	switch q.SendPolicy {
	case "", "allow", "deny", "inherit":
	default:
		return apperr.Usagef("invalid --send-policy %q (allow, deny or inherit)", q.SendPolicy)
	}
	if q.SetLabel && q.ClearLabel {
		return apperr.Usagef("--label and --clear-label cannot be used together")
	}
	if q.SetLabel {
		l, err := ParseLabel("", q.Label)
		if err != nil {
			return apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
		q.Label = l
	}
	if q.SendPolicy == "" && !q.SetLabel && !q.ClearLabel {
		return apperr.Usagef("nothing to change: give --send-policy, --label or --clear-label")
	}
	return nil
}

// PatchResult is the JSON document of `sessions patch`.
type PatchResult struct {
	OK       bool            `json:"ok"`
	Key      string          `json:"key"`
	Path     string          `json:"path"`
	Entry    json.RawMessage `json:"entry"`
	Warnings []string        `json:"warnings,omitempty"`
	// DisplayKey is the session's key as the requester names it.
	DisplayKey string `json:"-"`
}

// Patch changes a session's fields as OpenClaw's sessions.patch does,
// safely beside a live OpenClaw: a patch makes the checks of a send
// (visibility, agent-to-agent). Where it is written is the chooser's:
// through the gateway the invocation names (found with sessions.list,
// changed with its sessions.patch), through the live gateway of a 2026.8+
// agent, else the agent's sessions.json (under OpenClaw's lock) or SQLite
// store. On sessions.json an OpenClaw turn running on the session is
// warned about (its end-of-turn write may undo the change), or waited for
// with q.WaitIdle.
func (o *Ops) Patch(ctx context.Context, q PatchRequest) (*PatchResult, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	wt, err := o.writes(nil, oneHostPatch)
	if err != nil {
		return nil, err
	}
	if wt.Host == nil {
		return o.patchLocal(ctx, q)
	}
	if err := q.refuseOverGateway(); err != nil {
		return nil, err
	}
	route, err := sessionwrite.Choose(nil, "", wt.Options)
	if err != nil {
		return nil, err
	}
	wo := wt.Options
	o.debug("patch over the gateway", "gateway", wt.Host.String(), "auth", route.Endpoint.AuthSource)
	ctx, cancel := context.WithTimeout(ctx, PatchGatewayTimeout)
	defer cancel()
	r, err := o.patchTargetOver(ctx, *wt.Host, q)
	if err != nil {
		return nil, err
	}
	w, err := sessionwrite.OpenRoute(nil, r.AgentID, route, wo)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return o.patchWrite(ctx, w, q, r.Key, r.Key, "", nil)
}

// patchLocal patches a session of this host's state dir.
func (o *Ops) patchLocal(ctx context.Context, q PatchRequest) (*PatchResult, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	// A patch is a write: the checks of a send (visibility, agent-to-agent).
	t, err := s.ResolveRef(state.Ref{Arg: q.Ref, Label: q.TargetLabel, Agent: o.cfg.Agent}, policy.OpSend)
	if err != nil {
		return nil, err
	}
	// where the write goes (sessionwrite.Choose): a 2026.8+ (SQLite) agent
	// whose gateway is live on this host through that gateway (it owns the
	// database while it runs), else the agent's files or database
	wt, err := o.writes(s, oneHostPatch)
	if err != nil {
		return nil, err
	}
	route, err := wt.Route(s, t.Agent, "patch")
	if err != nil {
		return nil, err
	}
	wo := wt.Options
	if route.Era == era.Gateway {
		if err := q.refuseOverGateway(); err != nil {
			return nil, err
		}
	}
	w, err := sessionwrite.OpenRoute(s, t.Agent, route, wo)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if q.SetLabel {
		if q.Label, err = sessionwrite.ParseLabel(w.Era(), q.Label); err != nil {
			return nil, apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
	}
	var warnings []string
	if w.Era() == era.JSON {
		// the SQLite era refuses a session with an active run itself
		storePath, _ := s.StorePath(t.Agent)
		if warnings, err = o.checkIdle(ctx, q, s, t, storePath); err != nil {
			return nil, err
		}
	}
	sessionID := ""
	if t.ViaID {
		// the key may have moved on to a new session (/new) since we
		// resolved the id
		sessionID = t.Entry.SessionID
	}
	return o.patchWrite(ctx, w, q, t.Key, t.DisplayKey, sessionID, warnings)
}

// patchWrite patches key through w (every route: the JSON files, the
// SQLite store, a gateway's sessions.patch).
func (o *Ops) patchWrite(ctx context.Context, w sessionwrite.Writes, q PatchRequest, key, display, sessionID string, warnings []string) (*PatchResult, error) {
	p := sessionwrite.Patch{NotFound: apperr.NotFoundf("No session found: %s", strings.TrimSpace(q.Ref)), SessionID: sessionID}
	if q.SetLabel {
		p.Label = &q.Label
	}
	if q.ClearLabel {
		empty := ""
		p.Label = &empty
	}
	switch q.SendPolicy {
	case "allow", "deny":
		p.SendPolicy = &q.SendPolicy
	case "inherit":
		empty := ""
		p.SendPolicy = &empty
	}
	res, err := w.Patch(ctx, key, p)
	if err != nil {
		return nil, err
	}
	o.debug(res.Said, res.Debug...)
	// the entry as written, normalised by the writer (a gateway: as it answers)
	return &PatchResult{OK: true, Key: key, Path: res.Path, Entry: res.Entry, Warnings: warnings, DisplayKey: display}, nil
}

// refuseOverGateway: what a gateway patch cannot honour. (--as is checked
// against the local config by ResolveRef on the automatic route, and
// against the named gateway's own config in patchTargetOver.)
func (q PatchRequest) refuseOverGateway() error {
	if q.WaitIdle > 0 {
		return apperr.Usagef("--wait-idle applies to a patch of the local state dir; through the gateway, OpenClaw itself orders the patch with its runs")
	}
	return nil
}

// patchTargetOver connects to the named gateway ep, checks --as against
// that host's config (the checks of a send) and finds q's session there.
func (o *Ops) patchTargetOver(ctx context.Context, h target.Host, q PatchRequest) (state.Row, error) {
	b := o.gatewayReader(h)
	defer b.Close()
	c, err := b.Client(ctx)
	if err != nil {
		return state.Row{}, err
	}
	acc, err := b.Access(ctx, c)
	if err != nil {
		return state.Row{}, err
	}
	row, err := o.remoteKey(ctx, c, acc, q)
	if err != nil {
		return state.Row{}, err
	}
	r, err := backend.RowOf(row.Raw)
	if err != nil {
		return state.Row{}, err
	}
	named := q.Ref
	if q.TargetLabel != "" {
		named = q.TargetLabel
	}
	if err := backend.CheckSession(ctx, c, acc, named, r, policy.OpSend); err != nil {
		return state.Row{}, err
	}
	return r, nil
}

var hexPrefix = regexp.MustCompile(`^[0-9a-fA-F-]{8,}$`)

// remoteKey resolves the session reference over the gateway, as locally:
// a key (a bare "main"-style rest is the --agent's, else main's), a
// sessionId, a unique sessionId prefix (8+ hex digits), or --target-label
// [--agent]. 1.30's sessions.patch would create a key it does not have:
// the session must be listed first.
func (o *Ops) remoteKey(ctx context.Context, c *gateway.Client, acc *state.Access, q PatchRequest) (gateway.SessionRow, error) {
	agent := strings.ToLower(strings.TrimSpace(o.cfg.Agent))
	if q.TargetLabel != "" {
		return remoteKeyByLabel(ctx, c, acc, agent, q.TargetLabel)
	}
	ref := strings.TrimSpace(q.Ref)
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

// remoteKeyByLabel is the session with label over the gateway (of agent,
// when given).
func remoteKeyByLabel(ctx context.Context, c *gateway.Client, acc *state.Access, agent, label string) (gateway.SessionRow, error) {
	if acc != nil && agent != "" {
		if err := acc.CheckLabelAgent(config.NormalizeAgentID(agent), policy.OpSend); err != nil {
			return gateway.SessionRow{}, err
		}
	}
	page, err := c.ListSessions(ctx, gateway.ListParams{Label: label, AgentID: agent})
	if err != nil {
		return gateway.SessionRow{}, err
	}
	var hits []gateway.SessionRow // the gateway filters; checked again here
	var keys []string
	for _, r := range page.Sessions {
		if r.Label == label {
			hits, keys = append(hits, r), append(keys, r.Key)
		}
	}
	switch len(hits) {
	case 0:
		return gateway.SessionRow{}, apperr.NotFoundf("No session found with label: %s", label)
	case 1:
		return hits[0], nil
	}
	return gateway.SessionRow{}, apperr.Usagef("label %q names %d sessions on the gateway (%s); give --agent or the key", label, len(keys), strings.Join(keys, ", "))
}

func describeContexts(ctxs []string, n int) string {
	for _, c := range ctxs {
		if strings.EqualFold(strings.TrimSpace(c), "all") {
			return "--context all"
		}
	}
	return fmt.Sprintf("%d contexts", n)
}
