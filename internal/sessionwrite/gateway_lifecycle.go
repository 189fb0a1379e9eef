package sessionwrite

import (
	"context"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/state"
)

// Through a gateway the lifecycle writes are its own RPC — sessions.delete,
// sessions.reset, and archive as sessions.patch {archived: true} on
// 2026.9.x (sessions.delete on 1.30, which has no archived state, as the
// JSON era's archive does). The gateway refuses the main session, waits
// for or aborts a run and moves transcripts aside itself; the files are
// not written by us. A dry run connects (to learn the version) but calls
// no writing RPC. The sessions are named by what was read of them
// (GatewaySession): on this host's state dir (the live gateway of a
// 2026.8+ agent) or over the gateway itself (gatewayhost.Gateway, which needs
// no state dir at all).

// LifecycleRPC is what the lifecycle writes need of a gateway connection
// (*gateway.Client has it; Bounded bounds each call).
type LifecycleRPC interface {
	Protocol() int
	DeleteSession(ctx context.Context, key string, p gateway.DeleteParams) (*gateway.DeleteResult, error)
	ResetSession(ctx context.Context, key, expectedSessionID string) (*gateway.ResetResult, error)
	PatchSession(ctx context.Context, key string, fields map[string]any) (*gateway.PatchResult, error)
}

// GatewaySession is a session a lifecycle write through a gateway acts
// on, as it was read a moment ago: from this host's state dir (SessionOf)
// or from the gateway's sessions.list.
type GatewaySession struct {
	Key, Agent, SessionID, Kind string
	UpdatedAt                   int64
	// ArchivedAt is the archivedAt it already has (0: none): what a dry
	// run of archive reports.
	ArchivedAt int64
}

// SessionOf is t as a lifecycle write through a gateway names it; with
// archived, the archivedAt its entry already has (read from s).
func SessionOf(s *state.State, t *state.Target, archived bool) (GatewaySession, error) {
	gs := GatewaySession{Key: t.Key, Agent: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType), UpdatedAt: t.Entry.Updated()}
	if archived {
		raw, _, err := s.EntryRaw(t.Agent, t.Entry) // state keeps fields only
		if err != nil {
			return gs, err
		}
		gs.ArchivedAt = gjson.GetBytes(raw, "archivedAt").Int()
	}
	return gs, nil
}

func sessionsOf(ts []*state.Target) []GatewaySession {
	out := make([]GatewaySession, len(ts))
	for i, t := range ts {
		out[i], _ = SessionOf(nil, t, false)
	}
	return out
}

// item is what a lifecycle write reports of gs before it writes.
func (gs GatewaySession) item() Item {
	return Item{Key: gs.Key, AgentID: gs.Agent, SessionID: gs.SessionID, UpdatedAt: gs.UpdatedAt, Kind: gs.Kind}
}

// connected connects (the handshake bounded by GatewayCallTimeout), runs
// fn, whose every call is bounded by GatewayCallTimeout on its own (a
// prune may make many), and closes.
func (w *gatewayWrites) connected(ctx context.Context, fn func(c LifecycleRPC) error) error {
	dctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	c, err := gateway.Connect(dctx, w.ep, w.g.Dial, w.g.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(Bounded(c))
}

// Bounded is c with each lifecycle call bounded by GatewayCallTimeout.
func Bounded(c *gateway.Client) LifecycleRPC { return boundedRPC{c} }

// boundedRPC bounds each call by GatewayCallTimeout.
type boundedRPC struct{ c *gateway.Client }

func (b boundedRPC) Protocol() int { return b.c.Protocol() }

func (b boundedRPC) DeleteSession(ctx context.Context, key string, p gateway.DeleteParams) (*gateway.DeleteResult, error) {
	ctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	return b.c.DeleteSession(ctx, key, p)
}

func (b boundedRPC) ResetSession(ctx context.Context, key, expectedSessionID string) (*gateway.ResetResult, error) {
	ctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	return b.c.ResetSession(ctx, key, expectedSessionID)
}

func (b boundedRPC) PatchSession(ctx context.Context, key string, fields map[string]any) (*gateway.PatchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	return b.c.PatchSession(ctx, key, fields)
}

func (w *gatewayWrites) Delete(ctx context.Context, ts []*state.Target, o Lifecycle) (*Outcome, error) {
	var out *Outcome
	err := w.connected(ctx, func(c LifecycleRPC) (err error) {
		out, err = DeleteThrough(ctx, c, sessionsOf(ts), o)
		return err
	})
	return out, err
}

func (w *gatewayWrites) Reset(ctx context.Context, t *state.Target, o Lifecycle) (*Item, error) {
	var out *Item
	err := w.connected(ctx, func(c LifecycleRPC) (err error) {
		gs, _ := SessionOf(nil, t, false)
		out, err = ResetThrough(ctx, c, w.ep.String(), gs, o, w.o.Now())
		return err
	})
	return out, err
}

func (w *gatewayWrites) Archive(ctx context.Context, t *state.Target, o Lifecycle) (*Outcome, error) {
	gs, err := SessionOf(w.s, t, o.DryRun)
	if err != nil {
		return nil, err
	}
	var out *Outcome
	err = w.connected(ctx, func(c LifecycleRPC) (err error) {
		out, err = ArchiveThrough(ctx, c, gs, o, w.o.Now())
		return err
	})
	return out, err
}

// DeleteThrough deletes ss through sessions.delete, one call each. A
// session the gateway did not delete (gone meanwhile) is skipped.
func DeleteThrough(ctx context.Context, c LifecycleRPC, ss []GatewaySession, o Lifecycle) (*Outcome, error) {
	out := &Outcome{}
	for _, gs := range ss {
		it := gs.item()
		if !o.DryRun {
			dr, err := c.DeleteSession(ctx, gs.Key, gateway.DeleteParams{KeepTranscript: o.KeepTranscript, ExpectedSessionID: gs.SessionID})
			if err != nil {
				return nil, err
			}
			if !dr.Deleted {
				out.Skipped = append(out.Skipped, Skip{Key: gs.Key, Reason: "the gateway deleted nothing (gone meanwhile)"})
				continue
			}
			for _, a := range dr.Archived {
				it.Transcripts = append(it.Transcripts, a)
				if fi, err := os.Stat(a); err == nil {
					it.Bytes += fi.Size()
				}
			}
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// ResetThrough resets gs through sessions.reset: 1.30 gives a new
// sessionId; 2026.9.x keeps it (a new lifecycleRevision and a reset
// boundary in the transcript), so a dry run there reports the same id.
// where names the gateway in messages.
func ResetThrough(ctx context.Context, c LifecycleRPC, where string, gs GatewaySession, o Lifecycle, now time.Time) (*Item, error) {
	it := Item{Key: gs.Key, AgentID: gs.Agent, SessionID: gs.SessionID, Kind: gs.Kind}
	if o.DryRun {
		it.NewSessionID = uuid.NewString()
		if c.Protocol() >= 4 {
			it.NewSessionID = gs.SessionID
		}
		it.UpdatedAt = now.UnixMilli()
		return &it, nil
	}
	rr, err := c.ResetSession(ctx, gs.Key, gs.SessionID)
	if err != nil {
		return nil, err
	}
	it.NewSessionID = gjson.GetBytes(rr.Entry, "sessionId").String()
	it.UpdatedAt = gjson.GetBytes(rr.Entry, "updatedAt").Int()
	if it.NewSessionID == "" {
		return nil, apperr.Errorf("gateway %s: sessions.reset answered without a sessionId", where)
	}
	return &it, nil
}

// ArchiveThrough archives gs: sessions.patch {archived: true} on 2026.9.x
// (a dry run answers archivedAt now, or the one gs already has, and
// updatedAt max(old, now)), sessions.delete on 1.30.
func ArchiveThrough(ctx context.Context, c LifecycleRPC, gs GatewaySession, o Lifecycle, now time.Time) (*Outcome, error) {
	if c.Protocol() < 4 {
		return DeleteThrough(ctx, c, []GatewaySession{gs}, o)
	}
	it := Item{Key: gs.Key, AgentID: gs.Agent, SessionID: gs.SessionID, Kind: gs.Kind}
	if o.DryRun {
		ms := now.UnixMilli()
		it.ArchivedAt, it.UpdatedAt = ms, max(gs.UpdatedAt, ms)
		if gs.ArchivedAt != 0 {
			it.ArchivedAt = gs.ArchivedAt
		}
		return &Outcome{Items: []Item{it}}, nil
	}
	fields := map[string]any{"archived": true}
	if gs.SessionID != "" {
		fields["expectedSessionId"] = gs.SessionID
	}
	pr, err := c.PatchSession(ctx, gs.Key, fields)
	if err != nil {
		return nil, err
	}
	it.ArchivedAt = gjson.GetBytes(pr.Entry, "archivedAt").Int()
	it.UpdatedAt = gjson.GetBytes(pr.Entry, "updatedAt").Int()
	return &Outcome{Items: []Item{it}}, nil
}
