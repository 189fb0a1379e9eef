// Package gatewayhost is the host of one OpenClaw gateway (Gateway): an
// implementation of internal/backend's Host over the gateway's WebSocket
// RPC (2026.1.30 and 2026.9.x), through the client of internal/gateway —
// the sessions it lists, their transcripts (chat.history and its events),
// the writes through its own methods (sessions.patch, sessions.delete,
// sessions.reset, its spawn), the requester checked against that host's
// config (Access) — with no state dir of this machine; and the runs made
// through a gateway, recorded on this machine (RunHome). It imports
// nothing of backend/local; this host's state dir reaches a live gateway
// of its own through SpawnThrough.
package gatewayhost

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// CallTimeout bounds one reader operation over a gateway (the handshake
// and every call it makes); running out is exit 5.
var CallTimeout = 60 * time.Second

// Gateway reads the sessions of one OpenClaw gateway over its RPC.
//
// What the gateway does not give is absent from the rows: transcriptPath
// (the files are on the gateway's host), and on 2026.1.30 spawnedBy
// (its sessions.list rows never carry it). Keys are shown whole
// (agent:main:main, never "main"): the requester's agent is the local
// config's notion, not the gateway's.
type Gateway struct {
	Endpoint gateway.Endpoint
	Agent    string // --agent: only this agent's sessions
	// Dial connects (default: gateway.Dial with our device files).
	Dial func(ctx context.Context, o gateway.Options) (*gateway.Client, error)
	Log  func(string)
	// Debug logs at --log-level debug with key-value pairs (nil: not
	// logged).
	Debug func(msg string, kv ...any)
	// Warn prints a warning (nil: dropped): what show says of a partial
	// window.
	Warn func(string)
	// As resolves the requester (--as) on this gateway once connected,
	// from that host's config (Access); nil, or a nil answer: no
	// requester, the operator the credentials stand for.
	As func(ctx context.Context, c *gateway.Client) (*state.Access, error)
	// Now is the invocation's clock (nil: time.Now): prune's cutoff, what
	// a dry run reports.
	Now func() time.Time

	once   sync.Once
	client *gateway.Client
	err    error

	accOnce sync.Once
	acc     *state.Access
	accErr  error
}

// Requester is the requester resolved on this gateway by an earlier call
// (nil: the operator, or not resolved yet).
func (g *Gateway) Requester() *state.Access { return g.acc }

// Access is the requester on this gateway (nil: the operator), resolved
// once per connection.
func (g *Gateway) Access(ctx context.Context, c *gateway.Client) (*state.Access, error) {
	if g.As == nil {
		return nil, nil
	}
	g.accOnce.Do(func() {
		g.acc, g.accErr = g.As(ctx, c)
		if g.acc != nil && g.acc.Req.Operator() {
			g.acc = nil
		}
	})
	return g.acc, g.accErr
}

// now is the time on the invocation's clock.
func (g *Gateway) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// debug logs msg through Debug, when set.
func (g *Gateway) debug(msg string, kv ...any) {
	if g.Debug != nil {
		g.Debug(msg, kv...)
	}
}

// warn says msg through Warn, when set.
func (g *Gateway) warn(msg string) {
	if g.Warn != nil {
		g.Warn(msg)
	}
}

// Where is the context's name, else the URL.
func (g *Gateway) Where() string { return WhereOf(g.Endpoint) }

// WhereOf names a gateway in messages and rows: its context, else its URL.
func WhereOf(ep gateway.Endpoint) string {
	if ep.Context != "" {
		return ep.Context
	}
	return ep.URL
}

// Close closes the connection, if one was made.
func (g *Gateway) Close() error {
	if g.client != nil {
		return g.client.Close()
	}
	return nil
}

// Client connects once (later calls share the connection).
func (g *Gateway) Client(ctx context.Context) (*gateway.Client, error) {
	g.once.Do(func() {
		g.client, g.err = gateway.Connect(ctx, g.Endpoint, g.Dial, g.Log)
	})
	return g.client, g.err
}

// gwRow is the part of a sessions.list row (both versions) a state.Row
// takes.
type gwRow struct {
	Key             string                 `json:"key"`
	ChatType        string                 `json:"chatType"`
	Channel         string                 `json:"channel"`
	AgentID         string                 `json:"agentId"`
	Label           string                 `json:"label"`
	DisplayName     string                 `json:"displayName"`
	UpdatedAt       *float64               `json:"updatedAt"`
	SessionID       string                 `json:"sessionId"`
	Model           string                 `json:"model"`
	ContextTokens   *float64               `json:"contextTokens"`
	TotalTokens     *float64               `json:"totalTokens"`
	ThinkingLevel   string                 `json:"thinkingLevel"`
	VerboseLevel    string                 `json:"verboseLevel"`
	SystemSent      *bool                  `json:"systemSent"`
	AbortedLastRun  *bool                  `json:"abortedLastRun"`
	SendPolicy      string                 `json:"sendPolicy"`
	SpawnedBy       string                 `json:"spawnedBy"`
	LastChannel     string                 `json:"lastChannel"`
	LastTo          string                 `json:"lastTo"`
	DeliveryContext *store.DeliveryContext `json:"deliveryContext"`
}

// RowOf builds the row `sessions list` shows from a sessions.list row, the
// way state.Row does from a store entry (kind and channel by CONTRACT §3).
func RowOf(raw json.RawMessage) (state.Row, error) {
	var g gwRow
	if err := json.Unmarshal(raw, &g); err != nil {
		return state.Row{}, err
	}
	kind := keys.Kind(g.Key, g.ChatType)
	agent := g.AgentID
	if agent == "" {
		agent = keys.AgentOf(g.Key, "main", func(s string) string { return s })
	}
	r := state.Row{
		Key: g.Key, Kind: kind, AgentID: agent, Label: g.Label, DisplayName: g.DisplayName,
		UpdatedAt: g.UpdatedAt, SessionID: g.SessionID, Model: g.Model,
		ContextTokens: g.ContextTokens, TotalTokens: g.TotalTokens,
		ThinkingLevel: g.ThinkingLevel, VerboseLevel: g.VerboseLevel,
		SystemSent: g.SystemSent, AbortedLastRun: g.AbortedLastRun,
		SendPolicy: g.SendPolicy, SpawnedBy: g.SpawnedBy, StoreKey: g.Key,
	}
	var dc store.DeliveryContext
	if g.DeliveryContext != nil {
		dc = *g.DeliveryContext
	}
	r.LastChannel = cmp.Or(dc.Channel, g.LastChannel)
	r.LastTo = cmp.Or(dc.To, g.LastTo)
	if dc.Channel != "" || dc.To != "" || dc.AccountID != "" {
		d := dc
		r.DeliveryContext = &d
	}
	r.Channel = keys.Channel(kind, g.Key, g.Channel, g.LastChannel, dc.Channel)
	return r, nil
}

// List is sessions.list (every agent the gateway serves, paginated on
// 2026.9), then --kinds and the limit here; with no --kinds on 2026.9 the
// gateway's own totalCount is the total.
func (g *Gateway) List(ctx context.Context, q backend.ListQuery) (*backend.ListResult, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	acc, err := g.Access(ctx, c)
	if err != nil {
		return nil, err
	}
	p := gateway.ListParams{ActiveMinutes: q.Active, AgentID: g.Agent}
	if acc != nil {
		// As locally (state.AgentsInScope, Visible): --agent is refused
		// when the requester may not see it, the other agents' rows are
		// left out, and a restricted requester sees only what it spawned
		// (the gateway's spawnedBy filter: 1.30's rows do not say).
		if g.Agent != "" {
			if msg := acc.CanSeeAgent(config.NormalizeAgentID(g.Agent), policy.OpHistory); msg != "" {
				return nil, apperr.Forbiddenf("%s", msg)
			}
		}
		if acc.Req.Restrict {
			p.SpawnedBy = acc.Req.Key
		}
	}
	max := 0
	serverTotal := acc == nil && len(q.Kinds) == 0 && c.Protocol() >= 4 && q.Limit >= 0
	if serverTotal {
		max = q.Limit
	}
	page, err := c.ListAllSessions(ctx, p, max)
	if err != nil {
		return nil, err
	}
	rows := make([]state.Row, 0, len(page.Sessions))
	agents := map[string]bool{}
	for _, s := range page.Sessions {
		r, err := RowOf(s.Raw)
		if err != nil || r.Key == "" || keys.IsReserved(r.Key) {
			continue
		}
		if g.Agent != "" && r.AgentID != g.Agent {
			continue
		}
		if acc != nil && (acc.CanSeeAgent(r.AgentID, policy.OpHistory) != "" || (r.SpawnedBy != "" && !acc.SeesSpawnedBy(r.SpawnedBy))) {
			continue
		}
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, r.Kind) {
			continue
		}
		if q.Active > 0 && backend.Updated(&r) < float64(q.Now.Add(-time.Duration(q.Active)*time.Minute).UnixMilli()) {
			continue // the gateway filters too (activeMinutes); its clock may differ
		}
		agents[r.AgentID] = true
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b state.Row) int { return cmp.Compare(backend.Updated(&b), backend.Updated(&a)) })
	total := len(rows)
	if serverTotal && page.TotalCount != nil && *page.TotalCount >= total {
		total = *page.TotalCount
	}
	rows = backend.Limited(rows, q.Limit)
	if q.Messages > 0 {
		if err := g.lastMessages(ctx, c, rows, q.Messages); err != nil {
			return nil, err
		}
	}
	return &backend.ListResult{Rows: rows, Total: total, MultiAgent: len(agents) > 1}, nil
}

// lastMessages fills each row's last n messages (tool results removed,
// prepared like history's default output) with concurrent chat.history
// calls on the one connection.
func (g *Gateway) lastMessages(ctx context.Context, c *gateway.Client, rows []state.Row, n int) error {
	errs := make([]error, len(rows))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: rows[i].Key, Limit: min(1000, max(50, 10*n))})
			if err != nil {
				errs[i] = err
				return
			}
			msgs := dropToolResults(h.Messages)
			if len(msgs) > n {
				msgs = msgs[len(msgs)-n:]
			}
			rows[i].Messages = backend.Prepare(msgs)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func dropToolResults(in []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(in))
	for _, m := range in {
		var r struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(m, &r) == nil && (r.Role == "toolResult" || r.Role == "tool") {
			continue
		}
		out = append(out, m)
	}
	return out
}

// AgentInfo is one agent as a gateway's agents.list and sessions.list
// describe it.
type AgentInfo struct {
	ID       string
	Name     string
	Default  bool
	Sessions int
	// Hidden: the requester (--as) may not see this agent's sessions
	// (Sessions is then not counted).
	Hidden bool
}

// Agents lists the gateway's agents (agents.list: the configured ones and
// the default) with how many sessions each has (sessions.list).
func (g *Gateway) Agents(ctx context.Context) ([]AgentInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	var al struct {
		DefaultID string `json:"defaultId"`
		Agents    []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"agents"`
	}
	if err := c.Call(ctx, "agents.list", map[string]any{}, &al); err != nil {
		return nil, err
	}
	acc, err := g.Access(ctx, c)
	if err != nil {
		return nil, err
	}
	page, err := c.ListAllSessions(ctx, gateway.ListParams{}, 0)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, s := range page.Sessions {
		if r, err := RowOf(s.Raw); err == nil && !keys.IsReserved(r.Key) {
			counts[r.AgentID]++
		}
	}
	out := make([]AgentInfo, 0, len(al.Agents))
	seen := map[string]bool{}
	for _, a := range al.Agents {
		if a.ID == "" || seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		out = append(out, AgentInfo{ID: a.ID, Name: a.Name, Default: a.ID == al.DefaultID, Sessions: counts[a.ID]})
	}
	// Agents with sessions but no longer configured, as the local listing
	// shows the directories under agents/.
	var extra []string
	for id := range counts {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	for _, id := range extra {
		out = append(out, AgentInfo{ID: id, Sessions: counts[id]})
	}
	if acc != nil {
		for i := range out {
			if acc.CanSeeAgent(out[i].ID, policy.OpHistory) != "" {
				out[i].Hidden, out[i].Sessions = true, 0
			}
		}
	}
	return out, nil
}

// Gateway implements the whole operations of a host; none of the
// optional reads of one that holds the files.
var (
	_ backend.Host        = (*Gateway)(nil)
	_ backend.Transcripts = (*Gateway)(nil)
	_ backend.Watcher     = (*Gateway)(nil)
)
