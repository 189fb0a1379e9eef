package sessionwrite

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// GatewayCallTimeout bounds one write operation over a gateway (the
// handshake and the calls it makes); running out is exit 5.
var GatewayCallTimeout = 60 * time.Second

// gatewayWrites is the third implementation: an OpenClaw gateway's own RPC
// (2026.1.30 and 2026.9.x), for a gateway the invocation names and for an
// OpenClaw 2026.8+ agent whose gateway is live on this host. Nothing is
// written by us: the gateway writes its store and transcripts itself.
//
//   - Locate: sessions.list (the row as the entry: what the gateway shows).
//   - History: chat.history (the last 1000 messages at most). A turn over a
//     gateway is the gateway's own (the gateway engine), which needs none.
//   - Append: only a delivery mirror (no entry update), as chat.inject — an
//     assistant message with stopReason "injected"; it needs operator.admin
//     on both versions (a token without it: exit 3, the announce stays in
//     the outbox). A turn is never appended by us: the gateway wrote it.
//   - UpdateEntry: nothing to do (the gateway recorded its turn).
//   - Patch: sessions.patch (label, sendPolicy; 1.30 needs operator.admin,
//     9.x for sendPolicy); the key must be listed first (1.30 would create
//     a missing one).
//   - CreateChild / RemoveChild: gateway.Client.Spawn (the task turn starts
//     with the child) and RemoveSpawned.
//   - Announce (Announcer): chat.inject, else a turn of the requester.
//   - Delete, Reset, Archive: sessions.delete, sessions.reset, and on
//     2026.9.x sessions.patch {archived: true} (gateway_lifecycle.go).
//
// Each operation dials, calls and closes: a runner's steps are minutes
// apart, and a connection kept that long would need its own keepalive.
type gatewayWrites struct {
	route Route // its Gateway is ep
	ep    gateway.Endpoint
	agent string
	g     *Gateways
	o     Options
	// s is the local state the lifecycle writes resolved their sessions
	// on (OpenLifecycle); nil otherwise.
	s *state.State
}

// OpenGateway opens the writes of agent through the gateway at ep, the
// one the invocation names (GatewayRoute): what a gateway host
// (gatewayhost.Gateway) writes with; o.Gateways gives the dial and the log.
func OpenGateway(ep gateway.Endpoint, agent string, o Options) Writes {
	if o.Now == nil {
		o.Now = time.Now
	}
	return openGateway(GatewayRoute(ep), agent, o)
}

// openGateway opens the writes of a route through a gateway (r.Gateway
// set).
func openGateway(r Route, agent string, o Options) *gatewayWrites {
	g := o.Gateways
	if g == nil {
		g = &Gateways{}
	}
	return &gatewayWrites{route: r, ep: *r.Gateway, agent: agent, g: g, o: o}
}

func (w *gatewayWrites) Route() Route { return w.route }
func (w *gatewayWrites) Close() error { return nil }

func (w *gatewayWrites) log(m string) {
	if w.g.Log != nil {
		w.g.Log(m)
	}
}

// with connects, runs fn within GatewayCallTimeout and closes.
func (w *gatewayWrites) with(ctx context.Context, fn func(ctx context.Context, c *gateway.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	c, err := gateway.Connect(ctx, w.ep, w.g.Dial, w.g.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(ctx, c)
}

// row finds key in sessions.list (nil: not listed).
func (w *gatewayWrites) row(ctx context.Context, c *gateway.Client, key string) (*gateway.SessionRow, error) {
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: w.agent, IncludeGlobal: true}, 0)
	if err != nil {
		return nil, err
	}
	for i := range page.Sessions {
		if strings.EqualFold(page.Sessions[i].Key, key) {
			return &page.Sessions[i], nil
		}
	}
	return nil, nil
}

// EntryOfRow is a sessions.list row as a store entry (the fields a row
// carries: sessionId, label, channel and route, model, tokens, …).
func EntryOfRow(r *gateway.SessionRow) *store.Entry {
	m, _ := store.EntryMeta(r.Raw)
	return &store.Entry{Key: r.Key, Raw: r.Raw, Meta: m}
}

func (w *gatewayWrites) Locate(key string) (*Located, error) {
	var l *Located
	err := w.with(context.Background(), func(ctx context.Context, c *gateway.Client) error {
		r, err := w.row(ctx, c, key)
		if err != nil {
			return err
		}
		if r == nil {
			return apperr.NotFoundf("session %s no longer exists on gateway %s", key, w.ep)
		}
		e := EntryOfRow(r)
		l = &Located{Key: r.Key, Entry: e, Where: "gateway " + w.ep.String() + " (session " + e.SessionID + ")"}
		return nil
	})
	return l, err
}

func (w *gatewayWrites) History(ctx context.Context, l *Located, warn func(string)) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: l.Key, Limit: 1000})
		if err != nil {
			return err
		}
		out = h.Messages
		return nil
	})
	return out, err
}

// Append writes a delivery mirror with chat.inject. A turn (update set, or
// more than one message) is refused: over a gateway the gateway writes
// its own turns.
func (w *gatewayWrites) Append(ctx context.Context, l *Located, idem, cwd string, update TurnUpdate, msgs ...json.RawMessage) error {
	if update != nil || len(msgs) != 1 {
		return apperr.Statef("gateway %s writes its own turns: sessions appends no turn through it", w.ep)
	}
	text := textOf(msgs[0])
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		err := c.Call(ctx, "chat.inject", map[string]any{"sessionKey": l.Key, "message": text}, nil)
		if e, ok := gateway.AsRPCError(err); ok && e.MissingScope() != "" {
			return apperr.Forbiddenf("gateway %s refused chat.inject (the delivery mirror into %s): the credentials lack the %s scope", w.ep, l.Key, e.MissingScope()).Wrap(e)
		}
		if err == nil {
			w.log("delivery mirror written with chat.inject into " + l.Key)
		}
		return err
	})
}

// textOf joins a message's text blocks.
func textOf(m json.RawMessage) string {
	var parts []string
	for _, b := range gjson.GetBytes(m, "content").Array() {
		if b.Get("type").String() == "text" {
			parts = append(parts, b.Get("text").String())
		}
	}
	return strings.Join(parts, "\n")
}

// UpdateEntry: the gateway recorded the turn in its store itself.
func (w *gatewayWrites) UpdateEntry(ctx context.Context, key string, update TurnUpdate) error {
	return nil
}

// Patch is sessions.patch; "" clears (null). The key is listed first: 1.30
// would create a missing key, and a key resolved through its session id
// must still be that session (9.x also checks expectedSessionId itself).
func (w *gatewayWrites) Patch(ctx context.Context, key string, p Patch) (*PatchResult, error) {
	notFound := p.NotFound
	if notFound == nil {
		notFound = apperr.NotFoundf("No session found: %s", key)
	}
	fields := map[string]any{}
	if p.Label != nil {
		fields["label"] = nullIfEmpty(*p.Label)
	}
	if p.SendPolicy != nil {
		fields["sendPolicy"] = nullIfEmpty(*p.SendPolicy)
	}
	var out *PatchResult
	err := w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		r, err := w.row(ctx, c, key)
		if err != nil {
			return err
		}
		if r == nil || (p.SessionID != "" && !strings.EqualFold(r.SessionID, p.SessionID)) {
			return notFound
		}
		if p.SessionID != "" && c.Protocol() >= 4 {
			fields["expectedSessionId"] = r.SessionID
		}
		res, err := c.PatchSession(ctx, r.Key, fields)
		if err != nil {
			return err
		}
		out = &PatchResult{Entry: res.Entry, Path: res.Path, Said: "patched through the gateway's sessions.patch", Debug: []any{"key", key, "gateway", w.ep.String()}}
		return nil
	})
	return out, err
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateChild creates the child by starting its task turn, the most
// faithful way the gateway's version allows (gateway.Client.Spawn): 1.30's
// own sessions_spawn recipe (an `agent` turn on the child key with
// spawnedBy, label, lane "subagent" and the sub-agent system prompt; the
// model patched first, which needs operator.admin); 9.x's sessions.create
// with parentSessionKey, spawnDepth and 9.6's task envelope (no spawnedBy:
// only OpenClaw's in-process tool gets it).
func (w *gatewayWrites) CreateChild(ctx context.Context, ch Child) (*ChildResult, error) {
	var out *ChildResult
	err := w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		agent := gateway.AgentOfKey(ch.Key)
		if agent == "" {
			agent = w.agent
		}
		st, err := c.Spawn(ctx, gateway.SpawnParams{
			RequesterKey: ch.ParentKey, AgentID: agent, Task: ch.Task, Label: ch.Label,
			Model: ch.Model, Thinking: ch.Thinking, RunTimeoutSeconds: ch.RunTimeoutSeconds,
			SystemPrompt: ch.SystemPrompt, IdempotencyKey: ch.IdempotencyKey,
		})
		if err != nil {
			return err
		}
		out = &ChildResult{Path: "gateway " + w.ep.String(), Key: st.ChildSessionKey, SessionID: st.SessionID,
			RunID: st.RunID, RunRoute: st.Route, ModelApplied: st.ModelApplied, Warning: st.Warning}
		w.log("spawned " + st.ChildSessionKey + " through the gateway (" + st.Route + ", run " + st.RunID + ")")
		return nil
	})
	return out, err
}

// RemoveChild deletes the child through the gateway (RemoveSpawned: 1.30
// sessions.delete, operator.admin; 9.x archive then delete, operator.write),
// its transcript archived by the gateway.
func (w *gatewayWrites) RemoveChild(ctx context.Context, key string) (*Removed, error) {
	var out *Removed
	err := w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		r, err := c.RemoveSpawned(ctx, key, "")
		if err != nil {
			if apperr.CodeOf(err) == apperr.CodeNotFound {
				out = &Removed{At: w.o.Now().UnixMilli()}
				return nil
			}
			return err
		}
		out = &Removed{Existed: true, Renamed: r.Paths, Archived: r.Archived && !r.Deleted, At: w.o.Now().UnixMilli()}
		return nil
	})
	return out, err
}

// Announce puts an announce into the session: chat.inject (operator.admin
// on both versions), else a turn of that session with the announce as its
// message (OpenClaw's own announce flow), idem its idempotency key.
func (w *gatewayWrites) Announce(ctx context.Context, l *Located, text, idem string) (string, error) {
	how := ""
	err := w.with(ctx, func(ctx context.Context, c *gateway.Client) error {
		a, err := c.Announce(ctx, gateway.AnnounceParams{SessionKey: l.Key, Message: text, IdempotencyKey: idem})
		if err != nil {
			return err
		}
		how = a.Route
		if a.RunID != "" {
			how += " (run " + a.RunID + ")"
		}
		return nil
	})
	return how, err
}
