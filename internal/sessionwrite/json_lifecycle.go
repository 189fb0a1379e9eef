package sessionwrite

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// The JSON era's lifecycle writes are OpenClaw 2026.1.30's (format §6.7):
// entries removed or replaced under OpenClaw's store lock, every other
// entry kept byte for byte, transcripts renamed <file>.deleted.<ts>,
// never deleted.

// removeEntries deletes from the agent's store, under OpenClaw's lock, the
// entries of keys that keep accepts as read there (a dry run: as read
// now, and nothing is written) and returns them; the keys it refused (or
// missing) are in skipped, in order.
func (w *jsonWrites) removeEntries(ctx context.Context, keys []string, dryRun bool, keep func(key string, m store.Meta) bool) (gone map[string]store.Meta, skipped []string, err error) {
	gone = map[string]store.Meta{}
	apply := func(get func(string) (store.Meta, bool), del func(string)) {
		clear(gone)
		skipped = skipped[:0] // fn may run again
		for _, k := range keys {
			m, ok := get(k)
			if !ok || !keep(k, m) {
				skipped = append(skipped, k)
				continue
			}
			gone[k] = m
			del(k)
		}
	}
	if dryRun {
		st, err := store.LoadMeta(w.storePath())
		if err != nil {
			return nil, nil, err
		}
		apply(func(k string) (store.Meta, bool) {
			e, ok := st.Lookup(k)
			if !ok {
				return store.Meta{}, false
			}
			return e.Meta, true
		}, func(string) {})
		return gone, skipped, nil
	}
	_, err = store.Update(ctx, w.storePath(), w.updateOptions(), func(tx *store.Tx) error {
		apply(tx.Meta, tx.Delete)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return gone, skipped, nil
}

// moveAside renames the transcripts of a deleted entry whose real path is
// in the state dir or the store dir to <file><suffix> (archive.Transcripts
// finds them), unless keep; a dry run renames nothing and reports the
// same. Kept are the transcripts left alone: outside, kept, or whose
// rename failed.
func (w *jsonWrites) moveAside(m store.Meta, suffix string, keep, dryRun bool) (renamed, kept []string, bytes int64) {
	inside, outside := archive.Transcripts(w.s, w.agent, filepath.Dir(w.storePath()), m)
	kept = append(kept, outside...)
	if keep {
		return nil, append(kept, inside...), 0
	}
	for _, c := range inside {
		var n int64
		if fi, err := os.Stat(c); err == nil {
			n = fi.Size()
		}
		if !dryRun {
			if err := os.Rename(c, c+suffix); err != nil {
				kept = append(kept, c)
				continue
			}
		}
		renamed = append(renamed, c+suffix)
		bytes += n
	}
	return renamed, kept, bytes
}

// remove deletes targets (sessions.delete): an entry that changed since it
// was read (another session, or with o.Cutoff updated since) is skipped.
func (w *jsonWrites) remove(ctx context.Context, ts []*state.Target, o Lifecycle) (*Outcome, error) {
	suffix := ".deleted." + archive.Timestamp(w.o.Now())
	byKey := map[string]*state.Target{}
	var ks []string
	for _, t := range ts {
		byKey[t.Key] = t
		ks = append(ks, t.Key)
	}
	gone, skipped, err := w.removeEntries(ctx, ks, o.DryRun, func(k string, m store.Meta) bool {
		return strings.EqualFold(m.SessionID, byKey[k].Entry.SessionID) && (o.Cutoff == 0 || m.Updated() < o.Cutoff)
	})
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	for _, k := range skipped {
		out.Skipped = append(out.Skipped, Skip{Key: k, Reason: "changed since it was read"})
	}
	for _, t := range ts {
		m, ok := gone[t.Key]
		if !ok {
			continue
		}
		it := Item{Key: t.Key, AgentID: t.Agent, SessionID: m.SessionID, UpdatedAt: m.Updated(), Kind: keys.Kind(t.Key, m.ChatType)}
		it.Transcripts, it.Kept, it.Bytes = w.moveAside(m, suffix, o.KeepTranscript, o.DryRun)
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// Delete removes targets' entries in one store update and renames their
// transcripts, as sessions.delete does.
func (w *jsonWrites) Delete(ctx context.Context, ts []*state.Target, o Lifecycle) (*Outcome, error) {
	if err := o.idle(ts...); err != nil {
		return nil, err
	}
	return w.remove(ctx, ts, o)
}

// Archive is what 1.30's sub-agent archiving does, there being no
// archived state in a JSON-era store: sessions.delete.
func (w *jsonWrites) Archive(ctx context.Context, t *state.Target, o Lifecycle) (*Outcome, error) {
	return w.Delete(ctx, []*state.Target{t}, o)
}

// Reset replaces t's entry by sessions.reset's (ResetEntry: a new
// sessionId); the old transcript stays where it is.
func (w *jsonWrites) Reset(ctx context.Context, t *state.Target, o Lifecycle) (*Item, error) {
	if err := o.idle(t); err != nil {
		return nil, err
	}
	newID := uuid.NewString()
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, NewSessionID: newID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	inside, outside := archive.Transcripts(w.s, t.Agent, t.Store.Dir, t.Entry.Meta)
	it.Kept = append(slices.Clone(inside), outside...)
	if o.DryRun {
		it.UpdatedAt = w.o.Now().UnixMilli()
		return &it, nil
	}
	_, err := store.Update(ctx, w.storePath(), w.updateOptions(), func(tx *store.Tx) error {
		e, ok := tx.Entry(t.Key)
		if !ok {
			return apperr.NotFoundf("No session found: %s", t.DisplayKey)
		}
		if id, _ := e.String("sessionId"); !strings.EqualFold(id, t.Entry.SessionID) {
			return apperr.Errorf("session %s changed since it was read (sessionId %s); nothing reset", t.DisplayKey, id).With("sessionKey", t.DisplayKey)
		}
		it.UpdatedAt = tx.Now().UnixMilli()
		tx.Put(t.Key, ResetEntry(e, newID, tx.Now()))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &it, nil
}
