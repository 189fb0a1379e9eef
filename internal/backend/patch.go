package backend

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// PatchAsk is a change of a session's send policy or label (Host.Patch),
// as OpenClaw's sessions.patch makes it.
type PatchAsk struct {
	Ref   string // a key, a sessionId or a unique sessionId prefix
	Label string // or the session with this label (the host's Agent picks the agent)
	// NewLabel is the label to set (nil: unchanged; "": removed), already
	// held to the loosest rule (sessionwrite.ParseLabel with no era); the
	// writer's era decides once it is known.
	NewLabel *string
	// SendPolicy is allow or deny ("": the override removed; nil:
	// unchanged).
	SendPolicy *string
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (this host's
	// JSON-era files only: a gateway refuses it, exit 2).
	WaitIdle time.Duration
	// Settle bounds the wait, after such a run released the lock, for
	// its end-of-turn store write.
	Settle time.Duration
	// OnWait is told when the wait starts, with what it waits for.
	OnWait func(msg string)
}

// Patched is what a patch wrote: the entry as the writer normalised it
// (a gateway: as it answers), where, and the warnings of a run going.
type Patched struct {
	Key, DisplayKey string
	Path            string
	Entry           json.RawMessage
	Warnings        []string
}

// Patch finds the session in this host's state dir with the checks of a
// send and writes it where sessionwrite.Choose routes its agent: the
// agent's sessions.json under OpenClaw's lock, its 2026.8+ SQLite store,
// or this host's live gateway of a 2026.8+ agent. On sessions.json an
// OpenClaw turn running on the session is warned about (its end-of-turn
// write may undo the change), or waited for with q.WaitIdle.
func (l *Local) Patch(ctx context.Context, q PatchAsk) (*Patched, error) {
	t, err := l.writeSession(writeQuery{Ref: q.Ref, Label: q.Label, WaitIdle: q.WaitIdle > 0})
	if err != nil {
		return nil, err
	}
	route, wo, err := l.route(t.State, t.Agent, "patch")
	if err != nil {
		return nil, err
	}
	if err := t.through(route); err != nil {
		return nil, err
	}
	w, err := sessionwrite.OpenRoute(t.State, t.Agent, route, wo)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if q.NewLabel != nil && *q.NewLabel != "" {
		nl, err := route.ParseLabel(*q.NewLabel)
		if err != nil {
			return nil, apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
		q.NewLabel = &nl
	}
	warnings, err := t.idle(ctx, route, idleQuery{Wait: q.WaitIdle, Settle: q.Settle, OnWait: q.OnWait})
	if err != nil {
		return nil, err
	}
	return patchThrough(ctx, w, q, t, warnings, l.debug)
}

// Patch finds the session over the gateway with the checks of a send and
// patches it through its sessions.patch. The label is sent as given,
// already held to the loosest rule: the gateway's own version refuses what
// it does not take (1.30's 64 code units, 9.x's 512). WaitIdle is refused
// before any connection: the gateway orders the patch with its runs.
func (g *Gateway) Patch(ctx context.Context, q PatchAsk) (*Patched, error) {
	t, err := g.writeSession(ctx, writeQuery{Ref: q.Ref, Label: q.Label, WaitIdle: q.WaitIdle > 0})
	if err != nil {
		return nil, err
	}
	g.debug("patch: the gateway this invocation names ("+g.Endpoint.String()+")", "gateway", g.Endpoint.URL, "auth", g.Endpoint.AuthSource)
	w := sessionwrite.OpenGateway(g.Endpoint, t.Agent, sessionwrite.Options{Now: g.Now, Gateways: &sessionwrite.Gateways{Dial: g.Dial, Log: g.Log}})
	defer w.Close()
	return patchThrough(ctx, w, q, t, nil, g.debug)
}

// patchThrough patches t through w (every writer: the JSON files, the
// SQLite store, a gateway's sessions.patch).
func patchThrough(ctx context.Context, w sessionwrite.Writes, q PatchAsk, t *writeSession, warnings []string, debug func(string, ...any)) (*Patched, error) {
	p := sessionwrite.Patch{NotFound: apperr.NotFoundf("No session found: %s", strings.TrimSpace(q.Ref)), SessionID: t.SessionID,
		Label: q.NewLabel, SendPolicy: q.SendPolicy}
	res, err := w.Patch(ctx, t.Key, p)
	if err != nil {
		return nil, err
	}
	debug(res.Said, res.Debug...)
	return &Patched{Key: t.Key, DisplayKey: t.DisplayKey, Path: res.Path, Entry: res.Entry, Warnings: warnings}, nil
}
