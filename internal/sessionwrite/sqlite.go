package sessionwrite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// sqliteWrites is the OpenClaw 2026.8+ era: the agent's
// openclaw-agent.sqlite, written by sqlitewrite as 2026.9.6 writes it, read
// back through sqlitestore. No sessions.json, no JSONL file is created.
type sqliteWrites struct {
	s     *state.State
	agent string
	o     Options
	w     *sqlitewrite.Writer
}

func openSQLite(s *state.State, agent string, o Options) (*sqliteWrites, error) {
	w, err := sqlitewrite.Open(s.Dir.Path, agent, sqlitewrite.Options{LockTimeout: o.LockTimeout, Now: o.Now})
	if err != nil {
		return nil, err
	}
	return &sqliteWrites{s: s, agent: agent, o: o, w: w}, nil
}

func (w *sqliteWrites) Route() Route { return Route{Era: era.SQLite} }
func (w *sqliteWrites) Close() error {
	if w.w == nil { // opened by OpenLifecycle: each write closed its own writer
		return nil
	}
	return w.w.Close()
}

// read opens the store for one fresh read (the writer's own connection
// writes; sqlitestore reads as list/history do).
func (w *sqliteWrites) read() (*sqlitestore.DB, *store.Store, error) {
	db, err := sqlitestore.Open(w.w.Path(), sqlitestore.Options{Warn: w.s.Warnf})
	if err != nil {
		return nil, nil, err
	}
	st, err := db.Store()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, st, nil
}

func (w *sqliteWrites) Locate(key string) (*Located, error) {
	db, st, err := w.read()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	e, ok := st.Lookup(key)
	if !ok {
		return nil, apperr.NotFoundf("session %s no longer exists", key)
	}
	// refused now rather than after the model's turn
	if err := w.w.CheckIdle(key); err != nil {
		return nil, err
	}
	return &Located{Key: key, Entry: e, Where: w.w.Path() + " (session " + e.SessionID + ")"}, nil
}

// History is the model's context for the next turn as OpenClaw 2026.9.6
// builds it: the active leaf's path through the transcript tree (branches
// left by an edit or a regeneration out), windowed at its last compaction
// or reset (sqlitewrite.ContextMessages).
func (w *sqliteWrites) History(ctx context.Context, l *Located, warn func(string)) ([]json.RawMessage, error) {
	db, err := sqlitestore.Open(w.w.Path(), sqlitestore.Options{Warn: warn})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var events [][]byte
	skipped := 0
	err = db.Events(l.Entry.SessionID, transcript.Options{}.MaxLine(), func() { events, skipped = nil, 0 }, func(_ int64, data []byte, st transcript.Status) {
		if data == nil {
			skipped++
			return
		}
		events = append(events, append([]byte(nil), data...))
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if skipped > 0 && warn != nil {
		warn(fmt.Sprintf("%s: %d unreadable transcript events left out of the model's context", l.Where, skipped))
	}
	return sqlitewrite.ContextMessages(events), nil
}

func (w *sqliteWrites) Append(ctx context.Context, l *Located, idem, cwd string, update TurnUpdate, msgs ...json.RawMessage) error {
	t := sqlitewrite.Turn{SessionKey: l.Key, SessionID: l.Entry.SessionID, Messages: msgs, IdempotencyKey: idem, Cwd: cwd}
	if update != nil {
		t.Interaction = true
		t.Touch = update
	}
	_, err := w.w.AppendTurn(t)
	return err
}

func (w *sqliteWrites) UpdateEntry(ctx context.Context, key string, update TurnUpdate) error {
	_, err := w.w.TouchEntry(key, update)
	if apperr.CodeOf(err) == apperr.CodeNotFound {
		return nil // deleted meanwhile: nothing to record
	}
	return err
}

func (w *sqliteWrites) Patch(ctx context.Context, key string, p Patch) (*PatchResult, error) {
	if p.SessionID != "" {
		e, err := w.w.Entry(key)
		if err != nil {
			if apperr.CodeOf(err) == apperr.CodeNotFound && p.NotFound != nil {
				return nil, p.NotFound
			}
			return nil, err
		}
		if id, _ := e.String("sessionId"); id != p.SessionID && p.NotFound != nil {
			return nil, p.NotFound
		}
	}
	res, err := w.w.PatchEntry(key, sqlitewrite.Patch{Label: p.Label, SendPolicy: p.SendPolicy})
	if err != nil {
		if apperr.CodeOf(err) == apperr.CodeNotFound && p.NotFound != nil {
			return nil, p.NotFound
		}
		return nil, err
	}
	return &PatchResult{Entry: res.Entry, Path: w.w.Path(), Said: "store updated", Debug: []any{"path", w.w.Path(), "key", key, "era", era.SQLite, "held", w.w.LastLockHold()}}, nil
}

// lineage are the entry fields sessions_spawn sets itself.
var lineage = map[string]bool{"sessionId": true, "updatedAt": true, "spawnedBy": true, "label": true}

func (w *sqliteWrites) CreateChild(ctx context.Context, c Child) (*ChildResult, error) {
	out := &ChildResult{}
	db, st, err := w.read()
	if err != nil {
		return nil, err
	}
	for _, k := range c.RequesterKeys {
		if e, ok := st.Lookup(k); ok {
			out.Requester = e
			break
		}
	}
	db.Close()
	full, err := c.Build(st, out.Requester)
	if err != nil {
		return nil, err
	}
	fields := jsonx.NewObject()
	for _, k := range full.Keys() {
		if !lineage[k] {
			fields.SetRaw(k, full.Raw(k))
		}
	}
	res, err := w.w.CreateChild(sqlitewrite.Child{Key: c.Key, SessionID: c.SessionID, ParentKey: c.ParentKey,
		RequesterAgent: c.RequesterAgent, Label: c.Label, Fields: fields})
	if err != nil {
		return nil, err
	}
	out.Path, out.Entry = w.w.Path(), res.Entry
	return out, nil
}

// RemoveChild archives the child as sessions.patch {archived: true} does
// (archivedAt = now, archiveReason manual, the pin dropped); its
// transcript stays in the database. OpenClaw 2026.9.6 deletes a session
// row only through its own gateway. A missing session is no error
// (Existed false).
func (w *sqliteWrites) RemoveChild(ctx context.Context, key string) (*Removed, error) {
	x, done, err := w.writer()
	if err != nil {
		return nil, err
	}
	defer done()
	at := w.o.Now().UnixMilli()
	yes := true
	if _, err := x.PatchEntry(key, sqlitewrite.Patch{Archived: &yes}); err != nil {
		if apperr.CodeOf(err) == apperr.CodeNotFound {
			return &Removed{At: at}, nil
		}
		return nil, err
	}
	return &Removed{Existed: true, Archived: true, At: at}, nil
}
