package sessionwrite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/era"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// appendLockTimeout is how long a write waits for OpenClaw's transcript
// lock: a live OpenClaw run holds it for a whole turn, and the runner is in
// the background, so it waits longer than the interactive 10 s.
const appendLockTimeout = 3 * time.Minute

// jsonWrites is the JSON era: sessions.json under OpenClaw's lock
// (store.Update/Insert) and JSONL transcripts (transcript.Append).
type jsonWrites struct {
	s     *state.State
	agent string
	o     Options
}

func (w *jsonWrites) Route() Route { return Route{Era: era.JSON} }
func (w *jsonWrites) Close() error { return nil }

func (w *jsonWrites) storePath() string {
	p, _ := w.s.StorePath(w.agent)
	return p
}

func (w *jsonWrites) updateOptions() store.UpdateOptions {
	return store.UpdateOptions{LockTimeout: w.o.LockTimeout, SQLitePath: w.s.SQLitePath(w.agent), Now: w.o.Now}
}

func (w *jsonWrites) Locate(key string) (*Located, error) {
	st, err := store.Load(w.storePath())
	if err != nil {
		return nil, err
	}
	e, ok := st.Lookup(key)
	if !ok {
		return nil, apperr.NotFoundf("session %s no longer exists", key)
	}
	tp, err := store.NewResolver(w.s.Dir.Path).Transcript(st, e, w.s.SessionsDir(w.agent))
	if err != nil {
		return nil, err
	}
	return &Located{Key: key, Entry: e, Path: tp.Path, Where: tp.Path}, nil
}

// History reads the leaf path under OpenClaw's transcript lock: a turn
// OpenClaw is appending right now is complete in the context, not half-read
// or missed.
func (w *jsonWrites) History(ctx context.Context, l *Located, warn func(string)) ([]json.RawMessage, error) {
	if _, err := os.Stat(l.Path); err != nil {
		return nil, nil
	}
	h, err := lock.AcquireTranscript(ctx, l.Path, lock.Options{Timeout: appendLockTimeout})
	if err != nil {
		return nil, fmt.Errorf("reading the context of %s: %w", l.Key, err)
	}
	history, err := transcript.LeafPath(l.Path, warn)
	if rerr := h.Release(); rerr != nil && warn != nil {
		warn("transcript lock " + l.Path + ": " + rerr.Error())
	}
	return history, err
}

func (w *jsonWrites) Append(ctx context.Context, l *Located, idem, cwd string, update TurnUpdate, msgs ...json.RawMessage) error {
	if _, err := transcript.Append(ctx, l.Path, transcript.AppendOptions{SessionID: l.Entry.SessionID, Cwd: cwd, LockTimeout: appendLockTimeout}, msgs...); err != nil {
		return err
	}
	if update == nil {
		return nil
	}
	if err := w.UpdateEntry(ctx, l.Key, update); err != nil {
		return &EntryError{Err: err}
	}
	return nil
}

func (w *jsonWrites) UpdateEntry(ctx context.Context, key string, update TurnUpdate) error {
	_, err := store.Update(ctx, w.storePath(), w.updateOptions(), func(tx *store.Tx) error {
		e, ok := tx.Entry(key)
		if !ok {
			return nil // deleted meanwhile: nothing to record
		}
		now := tx.Now().UnixMilli()
		if old, ok := e.Number("updatedAt"); !ok || int64(old) < now {
			_ = e.Set("updatedAt", now)
		}
		update(e)
		tx.Put(key, e)
		return nil
	})
	return err
}

// Patch is sessions.patch of 1.30 (format §6.7): label unique within the
// store, sendPolicy (removed for ""), updatedAt = max(old, now).
func (w *jsonWrites) Patch(ctx context.Context, key string, p Patch) (*PatchResult, error) {
	notFound := p.NotFound
	if notFound == nil {
		notFound = apperr.NotFoundf("No session found: %s", key)
	}
	res, err := store.Update(ctx, w.storePath(), w.updateOptions(), func(tx *store.Tx) error {
		e, ok := tx.Entry(key)
		if !ok {
			return notFound
		}
		if p.SessionID != "" {
			if id, _ := e.String("sessionId"); !strings.EqualFold(id, p.SessionID) {
				return notFound
			}
		}
		if p.Label != nil {
			if *p.Label == "" {
				e.Delete("label")
			} else {
				if other := LabelOwner(tx, *p.Label, key); other != "" {
					return apperr.Errorf("label already in use: %s (%s)", *p.Label, other)
				}
				_ = e.Set("label", *p.Label)
			}
		}
		if p.SendPolicy != nil {
			if *p.SendPolicy == "" {
				e.Delete("sendPolicy")
			} else {
				_ = e.Set("sendPolicy", *p.SendPolicy)
			}
		}
		// updatedAt = max(old, now): a later timestamp is kept as it is.
		nowMs := tx.Now().UnixMilli()
		if old, ok := e.Number("updatedAt"); !ok || old < float64(nowMs) {
			_ = e.Set("updatedAt", nowMs)
		}
		tx.Put(key, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tm := res.Timings
	return &PatchResult{Entry: res.Entries[key], Path: res.Path, Said: "store updated", Debug: []any{"path", res.Path, "key", key, "era", era.JSON, "bytes", res.Bytes,
		"lockWait", tm.LockWait, "held", tm.Held, "read", tm.Read, "render", tm.Render, "write", tm.Write, "total", tm.Total}}, nil
}

// LabelOwner returns the key (other than self) whose entry has exactly
// label, or "". Entries whose bytes cannot contain the label are skipped
// without parsing.
func LabelOwner(tx *store.Tx, label, self string) string {
	var needle []byte
	if plainJSONString(label) {
		needle, _ = jsonx.Marshal(label)
	}
	owner := ""
	tx.ForEach(func(k string, raw json.RawMessage) bool {
		if k == self || len(raw) == 0 || raw[0] != '{' {
			return true
		}
		if needle != nil && !bytes.Contains(raw, needle) {
			return true
		}
		if v := tx.Field(k, "label"); v.Type == gjson.String && v.Str == label {
			owner = k
			return false
		}
		return true
	})
	return owner
}

// plainJSONString reports whether s encodes the same way in Go and in
// JSON.stringify with no escapes at all, so that its quoted form can be
// searched for in the raw bytes of an entry.
func plainJSONString(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' || r == 0x2028 || r == 0x2029 || r == 0x7f {
			return false
		}
	}
	return true
}

func (w *jsonWrites) CreateChild(ctx context.Context, c Child) (*ChildResult, error) {
	out := &ChildResult{}
	res, err := store.Insert(ctx, w.storePath(), store.UpdateOptions{LockTimeout: w.o.LockTimeout, Create: true, SQLitePath: w.s.SQLitePath(w.agent), Now: w.o.Now}, c.Key, func(st *store.Store) (*jsonx.Object, error) {
		if len(c.RequesterKeys) > 0 {
			out.Requester = nil
			for _, k := range c.RequesterKeys {
				if e, ok := st.Lookup(k); ok {
					out.Requester = e
					break
				}
			}
		}
		return c.Build(st, out.Requester)
	})
	if err != nil {
		return nil, err
	}
	out.Path = res.Path
	out.Entry = res.Entries[c.Key]
	return out, nil
}

// RemoveChild deletes the child's entry and renames its transcripts, as
// sessions.delete {deleteTranscript: true} does (the JSON era's archive).
// A missing store or entry is no error: Existed false, nothing renamed.
func (w *jsonWrites) RemoveChild(ctx context.Context, key string) (*Removed, error) {
	now := w.o.Now()
	gone, _, err := w.removeEntries(ctx, []string{key}, false, func(string, store.Meta) bool { return true })
	if err != nil {
		if errors.Is(err, store.ErrStoreMissing) {
			return &Removed{At: now.UnixMilli()}, nil
		}
		return nil, err
	}
	m, ok := gone[key]
	if !ok {
		return &Removed{At: now.UnixMilli()}, nil
	}
	renamed, _, _ := w.moveAside(m, ".deleted."+archive.Timestamp(now), false, false)
	return &Removed{Existed: true, Renamed: renamed, At: now.UnixMilli()}, nil
}
