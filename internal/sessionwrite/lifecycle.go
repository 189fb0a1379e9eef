package sessionwrite

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lifecycledoc"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// Item is one session a lifecycle write acted on (lifecycledoc's).
type Item = lifecycledoc.Item

// Skip is a session a lifecycle write left alone, and why.
type Skip = lifecycledoc.Skip

// Outcome is what a Delete or an Archive did.
type Outcome struct {
	Items   []Item
	Skipped []Skip
}

// Lifecycle tunes Delete, Reset and Archive.
type Lifecycle struct {
	// DryRun computes the same outcome and writes nothing: no writing
	// RPC, no writer opened (the SQLite era checks that no OpenClaw
	// process holds the state dir).
	DryRun bool
	// KeepTranscript (Delete) leaves the transcripts where they are.
	KeepTranscript bool
	// Cutoff (Delete), when not 0: a session is deleted only while its
	// updatedAt, read again under the lock, is still below it (prune:
	// still old enough); else it is skipped. A gateway does not check it.
	Cutoff int64
	// Idle, when set, is called for a session before it is written here
	// (not through a gateway, which waits for or aborts its runs itself):
	// it refuses a session with a live run, or waits for the run to end.
	Idle func(t *state.Target) error
}

func (o Lifecycle) idle(ts ...*state.Target) error {
	if o.Idle == nil {
		return nil
	}
	for _, t := range ts {
		if err := o.Idle(t); err != nil {
			return err
		}
	}
	return nil
}

// OpenLifecycle opens the writes of a route for the lifecycle writes
// (Delete, Reset, Archive), which get the sessions as resolved on the
// local state dir s: a gateway's RPC; the SQLite store, its writer opened
// by each write that needs it (a dry run opens none); or the JSON files, an
// agent whose sessions.json cannot be written refused here (exit 10,
// state.CheckWritable).
func OpenLifecycle(s *state.State, agent string, r Route, o Options) (Writes, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case r.ThroughGateway():
		w := openGateway(r, agent, o)
		w.s = s
		return w, nil
	case r.Era == era.SQLite:
		return &sqliteWrites{s: s, agent: agent, o: o}, nil
	}
	if err := s.CheckWritable(agent); err != nil {
		return nil, err
	}
	return &jsonWrites{s: s, agent: agent, o: o}, nil
}

// item is a target as read, before a write.
func item(t *state.Target) Item {
	return Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, UpdatedAt: t.Entry.Updated(), Kind: keys.Kind(t.Key, t.Entry.ChatType)}
}

// archivedDryRun is what archiving t would record (a dry run on a
// 2026.8+ store, directly or through a 2026.9.x gateway): archivedAt now,
// or the one it already has, and updatedAt max(old, now).
func archivedDryRun(s *state.State, t *state.Target, now time.Time) (Item, error) {
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	ms := now.UnixMilli()
	it.ArchivedAt, it.UpdatedAt = ms, max(t.Entry.Updated(), ms)
	raw, _, err := s.EntryRaw(t.Agent, t.Entry) // state keeps fields only
	if err != nil {
		return it, err
	}
	if at := gjson.GetBytes(raw, "archivedAt"); at.Exists() {
		it.ArchivedAt = at.Int()
	}
	return it, nil
}

// resetKeeps are the fields sessions.reset carries over (format §6.7), in
// the order it writes them, around the fresh ones.
var resetKeeps = []string{"thinkingLevel", "verboseLevel", "reasoningLevel", "responseUsage", "model", "contextTokens", "sendPolicy", "label", "origin", "lastChannel", "lastTo", "skillsSnapshot"}

// ResetEntry builds the entry sessions.reset writes from the old one: a new
// sessionId, updatedAt now, systemSent and abortedLastRun false, the kept
// fields, token counters zeroed. Every other field (sessionFile,
// deliveryContext, spawnedBy, …) is dropped, as 1.30 drops it.
func ResetEntry(old *jsonx.Object, sessionID string, now time.Time) *jsonx.Object {
	e := jsonx.NewObject()
	_ = e.Set("sessionId", sessionID)
	_ = e.Set("updatedAt", now.UnixMilli())
	_ = e.Set("systemSent", false)
	_ = e.Set("abortedLastRun", false)
	for _, k := range resetKeeps {
		if old != nil && old.Has(k) {
			e.SetRaw(k, old.Raw(k)) // a null stays null, as entry?.k reads it
		}
	}
	_ = e.Set("inputTokens", 0)
	_ = e.Set("outputTokens", 0)
	_ = e.Set("totalTokens", 0)
	return e
}

// LocalRemover is the archive sweep's remover (archive.Remover): the child
// leaves the store of its agent's era in the state dir s (RemoveChild),
// never through a gateway — the sweep works on this host's state, a busy
// or held store defers the child to a later sweep.
func LocalRemover(s *state.State) archive.Remover {
	return func(ctx context.Context, agent, key string, now time.Time, lockTimeout time.Duration) (*Removed, error) {
		o := Options{LockTimeout: lockTimeout, Now: func() time.Time { return now }}
		r, err := Choose(s, agent, o) // no gateways: the agent's era
		if err != nil {
			return nil, err
		}
		w, err := OpenRoute(s, agent, r, o)
		if err != nil {
			return nil, err
		}
		defer w.Close()
		return w.RemoveChild(ctx, key)
	}
}
