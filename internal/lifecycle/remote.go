package lifecycle

import (
	"context"
	"os"
	"sync"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/state"
)

// Gateway is what the lifecycle needs of a gateway connection
// (*gateway.Client has it).
type Gateway interface {
	Protocol() int
	DeleteSession(ctx context.Context, key string, p gateway.DeleteParams) (*gateway.DeleteResult, error)
	ResetSession(ctx context.Context, key, expectedSessionID string) (*gateway.ResetResult, error)
	PatchSession(ctx context.Context, key string, fields map[string]any) (*gateway.PatchResult, error)
}

// Remote is the gateway the lifecycle goes through instead of the files:
// set in Options, every operation (delete, reset, archive, prune's
// deletions) is the gateway's own RPC — sessions.delete, sessions.reset,
// and archive as sessions.patch {archived: true} on 2026.9.x
// (sessions.delete on 1.30, which has no archived state, as the JSON-era
// archive does). A dry run connects (to learn the version) but calls no
// writing RPC. The sessions are still resolved on the local state dir.
type Remote struct {
	URL  string // redacted, for messages
	Dial func(ctx context.Context) (Gateway, error)

	once sync.Once
	gw   Gateway
	err  error
}

// Close closes the connection, if one was made.
func (r *Remote) Close() {
	if c, ok := r.gw.(interface{ Close() error }); ok && c != nil {
		_ = c.Close()
	}
}

func (r *Remote) client(ctx context.Context) (Gateway, error) {
	r.once.Do(func() { r.gw, r.err = r.Dial(ctx) })
	return r.gw, r.err
}

// remoteDelete deletes targets through sessions.delete, one call each (the
// gateway refuses the main session, waits for or aborts a run, and moves
// the transcript aside itself). A session the gateway did not delete (gone
// meanwhile) is skipped.
func remoteDelete(ctx context.Context, s *state.State, targets []*state.Target, o Options, res *Result) error {
	gw, err := o.Remote.client(ctx)
	if err != nil {
		return err
	}
	for _, t := range targets {
		it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, UpdatedAt: t.Entry.Updated(), Kind: keys.Kind(t.Key, t.Entry.ChatType)}
		if !o.DryRun {
			dr, err := gw.DeleteSession(ctx, t.Key, gateway.DeleteParams{KeepTranscript: o.KeepTranscript, ExpectedSessionID: t.Entry.SessionID})
			if err != nil {
				return err
			}
			if !dr.Deleted {
				res.Skipped = append(res.Skipped, Skip{Key: t.Key, Reason: "the gateway deleted nothing (gone meanwhile)"})
				continue
			}
			for _, a := range dr.Archived {
				it.Transcripts = append(it.Transcripts, a)
				if fi, err := os.Stat(a); err == nil {
					it.Bytes += fi.Size()
				}
			}
		}
		res.Sessions = append(res.Sessions, it)
		res.Bytes += it.Bytes
	}
	res.Count = len(res.Sessions)
	return nil
}

// remoteReset resets t through sessions.reset: 1.30 gives a new sessionId;
// 2026.9.x keeps it (a new lifecycleRevision and a reset boundary in the
// transcript), so a dry run there reports the same id.
func remoteReset(ctx context.Context, t *state.Target, o Options) (*Result, error) {
	gw, err := o.Remote.client(ctx)
	if err != nil {
		return nil, err
	}
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	if o.DryRun {
		it.NewSessionID = uuid.NewString()
		if gw.Protocol() >= 4 {
			it.NewSessionID = t.Entry.SessionID
		}
		it.UpdatedAt = o.now().UnixMilli()
	} else {
		rr, err := gw.ResetSession(ctx, t.Key, t.Entry.SessionID)
		if err != nil {
			return nil, err
		}
		it.NewSessionID = gjson.GetBytes(rr.Entry, "sessionId").String()
		it.UpdatedAt = gjson.GetBytes(rr.Entry, "updatedAt").Int()
		if it.NewSessionID == "" {
			return nil, apperr.Errorf("gateway %s: sessions.reset answered without a sessionId", o.Remote.URL)
		}
	}
	return &Result{Action: "reset", DryRun: o.DryRun, Count: 1, Sessions: []Item{it}}, nil
}

// remoteArchive archives t: sessions.patch {archived: true} on 2026.9.x,
// sessions.delete on 1.30.
func remoteArchive(ctx context.Context, s *state.State, t *state.Target, o Options) (*Result, error) {
	gw, err := o.Remote.client(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Action: "archive", DryRun: o.DryRun, Sessions: []Item{}}
	if gw.Protocol() < 4 {
		if err := remoteDelete(ctx, s, []*state.Target{t}, o, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	if o.DryRun {
		now := o.now().UnixMilli()
		it.ArchivedAt, it.UpdatedAt = now, max(t.Entry.Updated(), now)
		raw, _, err := s.EntryRaw(t.Agent, t.Entry) // state keeps fields only
		if err != nil {
			return nil, err
		}
		if at := gjson.GetBytes(raw, "archivedAt"); at.Exists() {
			it.ArchivedAt = at.Int()
		}
	} else {
		fields := map[string]any{"archived": true}
		if t.Entry.SessionID != "" {
			fields["expectedSessionId"] = t.Entry.SessionID
		}
		pr, err := gw.PatchSession(ctx, t.Key, fields)
		if err != nil {
			return nil, err
		}
		it.ArchivedAt = gjson.GetBytes(pr.Entry, "archivedAt").Int()
		it.UpdatedAt = gjson.GetBytes(pr.Entry, "updatedAt").Int()
	}
	res.Sessions = append(res.Sessions, it)
	res.Count = 1
	return res, nil
}
