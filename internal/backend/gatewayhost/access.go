package gatewayhost

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// AsInput is the requester of an invocation, resolved on each gateway
// against that host's config.
type AsInput struct {
	As        string // --as or $OPENCLAW_SESSION_KEY ("": the operator)
	From      string // which of the two, for messages
	Agent     string // --agent ("" when not given)
	Sandboxed bool   // --sandboxed / $OPENCLAW_SANDBOXED
}

// ConfigScope is the scope config.get needs: operator.admin on 2026.1.30
// (every method outside its read/write lists), operator.read on 2026.9.x.
func ConfigScope(protocol int) string {
	if protocol >= 4 {
		return "operator.read"
	}
	return "operator.admin"
}

// configSnapshot is the part of config.get's answer --as needs. Both
// versions answer {path, exists, valid, config, …}: 2026.1.30 the config
// as loaded (agents.list, defaults applied, secrets included, and the
// file's raw text), 2026.9.x its resolved runtime config (agents.entries
// keyed by id; config.FromJSON reads both) with secrets redacted. Only the policy fields are decoded from it; the
// answer is never printed or logged.
type configSnapshot struct {
	Path   string          `json:"path"`
	Valid  *bool           `json:"valid"`
	Config json.RawMessage `json:"config"`
}

// Access is what in.As means on the gateway c is connected to
// (where names it): that host's config is read with config.get and the
// requester resolved and checked the way state.Open does with the local
// config — the agent-to-agent policy, the sandbox, and the requester must
// be a session there (or an agent's main session; exit 4 otherwise).
// Credentials without the scope config.get needs: exit 3 naming it.
// nil, nil when there is no requester (the operator the credentials
// stand for).
func Access(ctx context.Context, c *gateway.Client, where string, in AsInput) (*state.Access, error) {
	raw := strings.TrimSpace(in.As)
	if raw == "" {
		return nil, nil
	}
	from := in.From
	if from == "" {
		from = "--as"
	}
	var snap configSnapshot
	if err := c.Call(ctx, "config.get", map[string]any{}, &snap); err != nil {
		if e, ok := gateway.AsRPCError(err); ok && e.MissingScope() != "" {
			scope := e.MissingScope()
			return nil, apperr.Forbiddenf("%s over gateway %s needs that host's config for its agent-to-agent and sandbox policy (config.get), and these credentials lack the %s scope config.get requires (%s on OpenClaw 2026.1.30, %s on 2026.9.x): use credentials with %s, run sessions on that host, or drop %s to act as the operator the credentials stand for",
				from, where, scope, ConfigScope(3), ConfigScope(4), scope, from).With("missingScope", scope).Wrap(err)
		}
		return nil, err
	}
	if snap.Valid != nil && !*snap.Valid {
		return nil, apperr.Statef("%s over gateway %s: that host's config is invalid (config.get says valid: false), so its policy cannot be checked; fix it there (openclaw doctor)", from, where)
	}
	cfg, err := config.FromJSON(snap.Path, snap.Config)
	if err != nil {
		return nil, apperr.Statef("%s over gateway %s: config.get answered a config sessions cannot read (%v)", from, where, err)
	}
	agent := ""
	if strings.TrimSpace(in.Agent) != "" {
		agent = config.NormalizeAgentID(in.Agent)
	}
	acc := state.NewAccess(cfg, raw, agent, in.Sandboxed)
	acc.Remote = cfg
	if err := checkRequester(ctx, c, where, from, cfg, &acc); err != nil {
		return nil, err
	}
	return &acc, nil
}

// checkRequester is state's checkRequester over the gateway: the
// requester's agent is known there (configured, the default, or holding
// sessions) and its key names a session, or is an agent's main session.
func checkRequester(ctx context.Context, c *gateway.Client, where, from string, cfg *config.Config, acc *state.Access) error {
	r := acc.Req
	page, err := c.ListAllSessions(ctx, gateway.ListParams{IncludeGlobal: true, IncludeUnknown: true}, 0)
	if err != nil {
		return err
	}
	known := append([]string{acc.Default}, cfg.AgentIDs()...)
	var rowKeys []string
	for _, s := range page.Sessions {
		row, err := RowOf(s.Raw)
		if err != nil || row.Key == "" {
			continue
		}
		rowKeys = append(rowKeys, row.Key)
		if !slices.Contains(known, row.AgentID) {
			known = append(known, row.AgentID)
		}
	}
	if !slices.Contains(known, r.Agent) {
		return apperr.NotFoundf("%s %s: unknown agent %q on gateway %s (agents: %s)", from, r.Raw, r.Agent, where, strings.Join(known, ", "))
	}
	if r.Key == keys.MainOf(r.Agent) || strings.EqualFold(r.Raw, "main") {
		return nil
	}
	for _, k := range keys.Candidates(r.Raw, r.Agent, acc.Default, config.NormalizeAgentID) {
		if slices.Contains(rowKeys, k) {
			return nil
		}
	}
	return apperr.NotFoundf("%s %s: no such session in agent %s on gateway %s (a requester is an existing session key, or agent:<id>:main)", from, r.Raw, r.Agent, where)
}

// CheckSession is what the requester may do with one session of the
// gateway (op: read or send), the checks state.Resolve makes locally:
// sandbox visibility, then the agent-to-agent policy; a session it may not
// see is answered as one that does not exist (state.Access.CheckTarget).
// ref is the session as the user named it, label the label it was looked
// up by ("" for a reference). 2026.1.30's rows never carry spawnedBy: for
// a requester restricted to the sessions it spawned, sessions.list's own
// spawnedBy filter says whether row is one of them.
func CheckSession(ctx context.Context, c *gateway.Client, acc *state.Access, ref, label string, row state.Row, op policy.Op) error {
	if acc == nil || acc.Req.Operator() {
		return nil
	}
	spawnedBy := row.SpawnedBy
	if acc.Req.Restrict && spawnedBy == "" && acc.CanSeeAgent(row.AgentID, op) == "" {
		spawned, err := spawnedKeys(ctx, c, acc)
		if err != nil {
			return err
		}
		if spawned[row.Key] {
			spawnedBy = acc.Req.Key
		}
	}
	return acc.CheckTarget(ref, label, row.AgentID, spawnedBy)
}

// spawnedKeys are the keys of the sessions the requester spawned, by
// sessions.list's spawnedBy filter (both versions have it).
func spawnedKeys(ctx context.Context, c *gateway.Client, acc *state.Access) (map[string]bool, error) {
	page, err := c.ListAllSessions(ctx, gateway.ListParams{SpawnedBy: acc.Req.Key}, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range page.Sessions {
		if r, err := RowOf(s.Raw); err == nil {
			out[r.Key] = true
		}
	}
	return out, nil
}
