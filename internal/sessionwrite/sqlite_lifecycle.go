package sessionwrite

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
)

// writer is the open writer, or for writes opened by OpenLifecycle one
// opened now (sqlitewrite.Open and its preconditions); done closes what
// was opened now.
func (w *sqliteWrites) writer() (x *sqlitewrite.Writer, done func() error, err error) {
	if w.w != nil {
		return w.w, func() error { return nil }, nil
	}
	x, err = sqlitewrite.Open(w.s.Dir.Path, w.agent, sqlitewrite.Options{LockTimeout: w.o.LockTimeout, Now: w.o.Now})
	if err != nil {
		return nil, nil, err
	}
	return x, x.Close, nil
}

// checkNotHeld refuses, as sqlitewrite.Open does, a state dir a live
// OpenClaw process holds; it opens nothing (opening the writer is not
// free: closing it checkpoints the database), so a dry run does this
// instead.
func (w *sqliteWrites) checkNotHeld() error {
	db, err := filepath.Abs(w.s.SQLitePath(w.agent))
	if err != nil {
		return err
	}
	hs, err := sqlitewrite.Holders(w.s.Dir.Path, db, w.o.Now())
	if err != nil {
		return err
	}
	if b := sqlitewrite.Blocking(hs); len(b) > 0 { // an embedded agent turn does not block (sqlitewrite.Holder.Shared)
		return sqlitewrite.HeldError(w.s.Dir.Path, b)
	}
	return nil
}

// Delete is 2026.9.6's sessions.delete with deleteTranscript false
// (sqlitewrite.DeleteEntry), one BEGIN IMMEDIATE step per session: the
// transcript stays in the database, so nothing is renamed. A session
// changed since it was read (or, with o.Cutoff, updated since) is skipped.
func (w *sqliteWrites) Delete(ctx context.Context, ts []*state.Target, o Lifecycle) (*Outcome, error) {
	if err := o.idle(ts...); err != nil {
		return nil, err
	}
	out := &Outcome{}
	if o.DryRun {
		if err := w.checkNotHeld(); err != nil {
			return nil, err
		}
		for _, t := range ts {
			out.Items = append(out.Items, item(t))
		}
		return out, nil
	}
	x, done, err := w.writer()
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		it := item(t)
		dr, err := x.DeleteEntry(t.Key, t.Entry.SessionID, o.Cutoff)
		if errors.Is(err, sqlitewrite.ErrChanged) {
			out.Skipped = append(out.Skipped, Skip{Key: t.Key, Reason: "changed since it was read"})
			continue
		}
		if err != nil {
			_ = done()
			return nil, err
		}
		it.SessionID, it.UpdatedAt = dr.SessionID, dr.UpdatedAt
		out.Items = append(out.Items, it)
	}
	if err := done(); err != nil {
		return nil, err
	}
	return out, nil
}

// Reset is refused: 2026.9.6's reset keeps the sessionId, sets a new
// lifecycleRevision, rebuilds the entry and appends a reset boundary to
// the transcript with its search index — not written directly (yet); its
// gateway does it.
func (w *sqliteWrites) Reset(ctx context.Context, t *state.Target, o Lifecycle) (*Item, error) {
	return nil, apperr.Statef("agent %s keeps its sessions in the OpenClaw 2026.8+ SQLite store %s: sessions reset goes through OpenClaw's gateway there (start it, or give --gateway); the direct writer does not reset", t.Agent, w.s.SQLitePath(t.Agent)).With("sessionKey", t.DisplayKey)
}

// Archive is 2026.9.6's archive: the entry kept with archivedAt = now and
// archiveReason "manual", its pin dropped, in one BEGIN IMMEDIATE step. A
// dry run checks that no OpenClaw process holds the state dir and answers
// from the read it made (the schema is checked only by the real run).
func (w *sqliteWrites) Archive(ctx context.Context, t *state.Target, o Lifecycle) (*Outcome, error) {
	if err := o.idle(t); err != nil {
		return nil, err
	}
	if o.DryRun {
		if err := w.checkNotHeld(); err != nil {
			return nil, err
		}
		it, err := archivedDryRun(w.s, t, w.o.Now())
		if err != nil {
			return nil, err
		}
		return &Outcome{Items: []Item{it}}, nil
	}
	x, done, err := w.writer()
	if err != nil {
		return nil, err
	}
	defer done()
	yes := true
	pr, err := x.PatchEntry(t.Key, sqlitewrite.Patch{Archived: &yes})
	if err != nil {
		return nil, err
	}
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	it.ArchivedAt, it.UpdatedAt = gjson.GetBytes(pr.Entry, "archivedAt").Int(), pr.UpdatedAt
	return &Outcome{Items: []Item{it}}, nil
}

// Holders lists the live OpenClaw processes holding s's state dir for
// agent's SQLite store (sqlitewrite.Holders): while there is one, the
// store is written through its gateway, never directly.
func Holders(s *state.State, agent string, now time.Time) ([]sqlitewrite.Holder, error) {
	return sqlitewrite.Holders(s.Dir.Path, s.SQLitePath(agent), now)
}
