package local

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// Patch finds the session in this host's state dir with the checks of a
// send and writes it where sessionwrite.Choose routes its agent: the
// agent's sessions.json under OpenClaw's lock, its 2026.8+ SQLite store,
// or this host's live gateway of a 2026.8+ agent. On sessions.json an
// OpenClaw turn running on the session is warned about (its end-of-turn
// write may undo the change), or waited for with q.WaitIdle.
func (l *Local) Patch(ctx context.Context, q backend.PatchAsk) (*backend.Patched, error) {
	t, err := l.writeSession(backend.WriteQuery{Ref: q.Ref, Label: q.Label, WaitIdle: q.WaitIdle > 0})
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
	return backend.PatchThrough(ctx, w, q, t.WriteTarget, warnings, l.debug)
}
