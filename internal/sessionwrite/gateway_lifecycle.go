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
// no writing RPC. The sessions were resolved on the local state dir.

// lifecycleRPC is what the lifecycle writes need of a gateway connection
// (*gateway.Client has it).
type lifecycleRPC interface {
	Protocol() int
	DeleteSession(ctx context.Context, key string, p gateway.DeleteParams) (*gateway.DeleteResult, error)
	ResetSession(ctx context.Context, key, expectedSessionID string) (*gateway.ResetResult, error)
	PatchSession(ctx context.Context, key string, fields map[string]any) (*gateway.PatchResult, error)
}

// connected connects (the handshake bounded by GatewayCallTimeout), runs
// fn, whose every call is bounded by GatewayCallTimeout on its own (a
// prune may make many), and closes.
func (w *gatewayWrites) connected(ctx context.Context, fn func(c lifecycleRPC) error) error {
	dctx, cancel := context.WithTimeout(ctx, GatewayCallTimeout)
	defer cancel()
	c, err := gateway.Connect(dctx, w.ep, w.g.Dial, w.g.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(boundedRPC{c})
}

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
	err := w.connected(ctx, func(c lifecycleRPC) (err error) {
		out, err = gatewayDelete(ctx, c, ts, o)
		return err
	})
	return out, err
}

func (w *gatewayWrites) Reset(ctx context.Context, t *state.Target, o Lifecycle) (*Item, error) {
	var out *Item
	err := w.connected(ctx, func(c lifecycleRPC) (err error) {
		out, err = gatewayReset(ctx, c, w.ep.String(), t, o, w.o.Now())
		return err
	})
	return out, err
}

func (w *gatewayWrites) Archive(ctx context.Context, t *state.Target, o Lifecycle) (*Outcome, error) {
	var out *Outcome
	err := w.connected(ctx, func(c lifecycleRPC) (err error) {
		out, err = gatewayArchive(ctx, c, w.s, t, o, w.o.Now)
		return err
	})
	return out, err
}

// gatewayDelete deletes targets through sessions.delete, one call each. A
// session the gateway did not delete (gone meanwhile) is skipped.
func gatewayDelete(ctx context.Context, c lifecycleRPC, ts []*state.Target, o Lifecycle) (*Outcome, error) {
	out := &Outcome{}
	for _, t := range ts {
		it := item(t)
		if !o.DryRun {
			dr, err := c.DeleteSession(ctx, t.Key, gateway.DeleteParams{KeepTranscript: o.KeepTranscript, ExpectedSessionID: t.Entry.SessionID})
			if err != nil {
				return nil, err
			}
			if !dr.Deleted {
				out.Skipped = append(out.Skipped, Skip{Key: t.Key, Reason: "the gateway deleted nothing (gone meanwhile)"})
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

// gatewayReset resets t through sessions.reset: 1.30 gives a new
// sessionId; 2026.9.x keeps it (a new lifecycleRevision and a reset
// boundary in the transcript), so a dry run there reports the same id.
// where names the gateway in messages.
func gatewayReset(ctx context.Context, c lifecycleRPC, where string, t *state.Target, o Lifecycle, now time.Time) (*Item, error) {
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	if o.DryRun {
		it.NewSessionID = uuid.NewString()
		if c.Protocol() >= 4 {
			it.NewSessionID = t.Entry.SessionID
		}
		it.UpdatedAt = now.UnixMilli()
		return &it, nil
	}
	rr, err := c.ResetSession(ctx, t.Key, t.Entry.SessionID)
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

// gatewayArchive archives t: sessions.patch {archived: true} on 2026.9.x
// (a dry run answers from the entry as read on s), sessions.delete on
// 1.30.
func gatewayArchive(ctx context.Context, c lifecycleRPC, s *state.State, t *state.Target, o Lifecycle, now func() time.Time) (*Outcome, error) {
	if c.Protocol() < 4 {
		return gatewayDelete(ctx, c, []*state.Target{t}, o)
	}
	if o.DryRun {
		it, err := archivedDryRun(s, t, now())
		if err != nil {
			return nil, err
		}
		return &Outcome{Items: []Item{it}}, nil
	}
	fields := map[string]any{"archived": true}
	if t.Entry.SessionID != "" {
		fields["expectedSessionId"] = t.Entry.SessionID
	}
	pr, err := c.PatchSession(ctx, t.Key, fields)
	if err != nil {
		return nil, err
	}
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	it.ArchivedAt = gjson.GetBytes(pr.Entry, "archivedAt").Int()
	it.UpdatedAt = gjson.GetBytes(pr.Entry, "updatedAt").Int()
	return &Outcome{Items: []Item{it}}, nil
}
