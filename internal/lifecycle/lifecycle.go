// Package lifecycle deletes, resets, prunes and archives sessions of a JSON-era store
// as OpenClaw 2026.1.30's gateway does (sessions.delete, sessions.reset;
// format §6.7): under OpenClaw's store lock, every other entry kept byte for
// byte, transcripts renamed <file>.deleted.<ts> (never deleted), the main
// session never deleted. A dry run computes exactly the same result and
// writes nothing.
package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/openclaw/sessions/internal/era"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"

	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// Item is one session acted on.
type Item struct {
	Key       string `json:"key"`
	AgentID   string `json:"agentId"`
	SessionID string `json:"sessionId,omitempty"`
	// NewSessionID is reset's new session.
	NewSessionID string `json:"newSessionId,omitempty"`
	UpdatedAt    int64  `json:"updatedAt,omitempty"`
	// ArchivedAt is archive's archivedAt (2026.8+ stores).
	ArchivedAt int64  `json:"archivedAt,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Transcripts are the files renamed (or, dry run, to be renamed): the
	// new names, <file>.deleted.<ts>.
	Transcripts []string `json:"transcripts,omitempty"`
	// Bytes is the size of those transcripts.
	Bytes int64 `json:"bytes"`
	// Kept lists transcripts left alone: --keep-transcript, or outside the
	// state dir.
	Kept []string `json:"kept,omitempty"`
}

// Skip is a session prune selected but left alone.
type Skip struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Result is the JSON document of delete, reset and prune, the same with
// --dry-run and without.
type Result struct {
	Action   string `json:"action"` // delete | reset | prune
	DryRun   bool   `json:"dryRun"`
	Count    int    `json:"count"`
	Bytes    int64  `json:"bytes"` // transcripts moved aside
	Sessions []Item `json:"sessions"`
	Skipped  []Skip `json:"skipped,omitempty"`
}

// Options tune an operation.
type Options struct {
	DryRun         bool
	KeepTranscript bool
	// Force waits (up to Wait) for a live run on the session to end instead
	// of refusing at once.
	Force       bool
	Wait        time.Duration
	LockTimeout time.Duration
	Now         func() time.Time
	// Remote, when set, makes every write the gateway's RPC (remote.go);
	// the files are not written.
	Remote *Remote
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// MsgMain is OpenClaw's refusal (sessions.delete).
func MsgMain(key string) string { return "Cannot delete the main session (" + key + ")." }

// MsgActive is OpenClaw's refusal of a session with a run going.
func MsgActive(key string) string {
	return "Session " + key + " is still active; try again in a moment."
}

// IsMain reports whether key is an agent's main session (or, with
// session.scope "global", the global one).
func IsMain(s *state.State, agent, key string) bool {
	return key == keys.MainOf(agent) || (s.GlobalScope() && key == keys.Global)
}

// Busy says why a session has a live run, "" when it has none: OpenClaw's
// transcript lock held by a live pid (not stale), or one of our runs whose
// runner is alive.
func Busy(s *state.State, t *state.Target) string {
	if t.Entry.SessionID != "" {
		inside, _ := archive.Transcripts(s, t.Agent, t.Store.Dir, t.Entry.Meta)
		for _, p := range inside {
			if h, err := lock.InspectTranscript(p); err == nil && h != nil && h.Kind == "" && h.Alive && !h.Stale {
				return "OpenClaw's transcript lock is held by live pid " + itoa(h.PID)
			}
		}
	}
	rs := runs.Open(s.Dir.Path)
	recs, _ := rs.List()
	for _, r := range recs {
		if !runs.Terminal(r.Status) && r.Target.Key == t.Key && rs.RunnerAlive(r.RunID) {
			return "run " + r.RunID + " is going"
		}
	}
	return ""
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// waitIdle refuses a busy session, or with Force waits for it.
func waitIdle(ctx context.Context, s *state.State, t *state.Target, o Options) error {
	why := Busy(s, t)
	if why == "" {
		return nil
	}
	if !o.Force {
		return apperr.Errorf("%s", MsgActive(t.Key)).With("sessionKey", t.DisplayKey).With("reason", why)
	}
	wait := o.Wait
	if wait <= 0 {
		wait = 15 * time.Second // OpenClaw's waitForEmbeddedPiRunEnd
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if Busy(s, t) == "" {
			return nil
		}
	}
	return apperr.Timeoutf("%s", MsgActive(t.Key)).With("sessionKey", t.DisplayKey).With("reason", why)
}

func size(p string) int64 {
	if fi, err := os.Stat(p); err == nil {
		return fi.Size()
	}
	return 0
}

// Delete removes the sessions of targets (one store update per store) and
// renames their transcripts, as sessions.delete does: the main session is
// refused, a busy session refused unless Force waited for it. All refusals
// happen before anything is written.
func Delete(ctx context.Context, s *state.State, targets []*state.Target, o Options) (*Result, error) {
	res := &Result{Action: "delete", DryRun: o.DryRun, Sessions: []Item{}}
	for _, t := range targets {
		if IsMain(s, t.Agent, t.Key) || t.Key == keys.Global {
			return nil, apperr.Errorf("%s", MsgMain(t.Key)).With("sessionKey", t.DisplayKey)
		}
		if o.Remote != nil {
			continue
		}
		if err := checkWritable(s, t.Agent); err != nil {
			return nil, err
		}
	}
	if o.Remote != nil {
		if err := remoteDelete(ctx, s, targets, o, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	for _, t := range targets {
		if err := waitIdle(ctx, s, t, o); err != nil {
			return nil, err
		}
	}
	if err := remove(ctx, s, targets, o, res, 0); err != nil {
		return nil, err
	}
	return res, nil
}

// checkWritable is state.CheckWritable for the JSON era; a 2026.8+ SQLite
// store is written through internal/sqlitewrite, whose Open checks its own
// preconditions.
func checkWritable(s *state.State, agent string) error {
	if s.Era(agent) == era.SQLite {
		return nil
	}
	return s.CheckWritable(agent)
}

// remove deletes targets' entries, grouped by store, then renames.
// cutoff, when not 0, must still be above an entry's updatedAt as re-read
// under the lock (prune: still old enough).
func remove(ctx context.Context, s *state.State, targets []*state.Target, o Options, res *Result, cutoff int64) error {
	var jsonEra []*state.Target
	for _, t := range targets {
		if s.Era(t.Agent) != era.SQLite {
			jsonEra = append(jsonEra, t)
		}
	}
	if err := removeSQLite(s, targets, o, res, cutoff); err != nil {
		return err
	}
	var still func(store.Meta) bool
	if cutoff != 0 {
		still = func(m store.Meta) bool { return m.Updated() < cutoff }
	}
	return removeJSON(ctx, s, jsonEra, o, res, still)
}

// removeSQLite deletes the targets of 2026.8+ SQLite stores, one writer per
// agent database, one BEGIN IMMEDIATE step per session, as 2026.9.6's
// sessions.delete with deleteTranscript false (sqlitewrite.DeleteEntry):
// the transcript stays in the database, so nothing is renamed. A session
// changed since it was read is skipped. A dry run checks that no OpenClaw
// process holds the state dir and opens nothing for writing.
func removeSQLite(s *state.State, targets []*state.Target, o Options, res *Result, cutoff int64) error {
	byAgent := map[string][]*state.Target{}
	var order []string
	for _, t := range targets {
		if s.Era(t.Agent) != era.SQLite {
			continue
		}
		if _, ok := byAgent[t.Agent]; !ok {
			order = append(order, t.Agent)
		}
		byAgent[t.Agent] = append(byAgent[t.Agent], t)
	}
	for _, a := range order {
		ts := byAgent[a]
		var w *sqlitewrite.Writer
		if o.DryRun {
			if err := checkNotHeld(s, a, o); err != nil {
				return err
			}
		} else {
			var err error
			w, err = sqlitewrite.Open(s.Dir.Path, a, sqlitewrite.Options{LockTimeout: o.LockTimeout, Now: o.Now})
			if err != nil {
				return err
			}
		}
		for _, t := range ts {
			it := Item{Key: t.Key, AgentID: a, SessionID: t.Entry.SessionID, UpdatedAt: t.Entry.Updated(), Kind: keys.Kind(t.Key, t.Entry.ChatType)}
			if w != nil {
				dr, err := w.DeleteEntry(t.Key, t.Entry.SessionID, cutoff)
				if errors.Is(err, sqlitewrite.ErrChanged) {
					res.Skipped = append(res.Skipped, Skip{Key: t.Key, Reason: "changed since it was read"})
					continue
				}
				if err != nil {
					w.Close()
					return err
				}
				it.SessionID, it.UpdatedAt = dr.SessionID, dr.UpdatedAt
			}
			res.Sessions = append(res.Sessions, it)
		}
		if w != nil {
			if err := w.Close(); err != nil {
				return err
			}
		}
	}
	res.Count = len(res.Sessions)
	return nil
}

// checkNotHeld refuses, as sqlitewrite.Open does, a state dir a live
// OpenClaw process holds; it opens nothing.
func checkNotHeld(s *state.State, agent string, o Options) error {
	db, err := filepath.Abs(s.SQLitePath(agent))
	if err != nil {
		return err
	}
	hs, err := sqlitewrite.Holders(s.Dir.Path, db, o.now())
	if err != nil {
		return err
	}
	if b := sqlitewrite.Blocking(hs); len(b) > 0 { // an embedded agent turn does not block (sqlitewrite.Holder.Shared)
		return sqlitewrite.HeldError(s.Dir.Path, b)
	}
	return nil
}

// removeJSON deletes JSON-era targets' entries, grouped by store, then
// renames. still, when set, must hold for an entry as re-read under the
// lock (prune: still old enough).
func removeJSON(ctx context.Context, s *state.State, targets []*state.Target, o Options, res *Result, still func(store.Meta) bool) error {
	now := o.now()
	suffix := ".deleted." + archive.Timestamp(now)
	byStore := map[string][]*state.Target{}
	var order []string
	for _, t := range targets {
		p, _ := s.StorePath(t.Agent)
		if _, ok := byStore[p]; !ok {
			order = append(order, p)
		}
		byStore[p] = append(byStore[p], t)
	}
	for _, p := range order {
		ts := byStore[p]
		gone := map[string]store.Meta{}
		apply := func(get func(string) (store.Meta, bool), del func(string)) {
			for _, t := range ts {
				m, ok := get(t.Key)
				if !ok || !strings.EqualFold(m.SessionID, t.Entry.SessionID) || (still != nil && !still(m)) {
					res.Skipped = append(res.Skipped, Skip{Key: t.Key, Reason: "changed since it was read"})
					continue
				}
				gone[t.Key] = m
				del(t.Key)
			}
		}
		if o.DryRun {
			st, err := store.LoadMeta(p)
			if err != nil {
				return err
			}
			apply(func(k string) (store.Meta, bool) {
				e, ok := st.Lookup(k)
				if !ok {
					return store.Meta{}, false
				}
				return e.Meta, true
			}, func(string) {})
		} else {
			skipped := len(res.Skipped)
			_, err := store.Update(ctx, p, store.UpdateOptions{LockTimeout: o.LockTimeout, SQLitePath: s.SQLitePath(ts[0].Agent), Now: o.Now}, func(tx *store.Tx) error {
				clear(gone)
				res.Skipped = res.Skipped[:skipped] // fn may run again
				apply(tx.Meta, tx.Delete)
				return nil
			})
			if err != nil {
				return err
			}
		}
		for _, t := range ts {
			m, ok := gone[t.Key]
			if !ok {
				continue
			}
			it := Item{Key: t.Key, AgentID: t.Agent, SessionID: m.SessionID, UpdatedAt: m.Updated(), Kind: keys.Kind(t.Key, m.ChatType)}
			inside, outside := archive.Transcripts(s, t.Agent, filepath.Dir(p), m)
			it.Kept = append(it.Kept, outside...)
			if o.KeepTranscript {
				it.Kept = append(it.Kept, inside...)
			} else {
				for _, c := range inside {
					n := size(c)
					if !o.DryRun {
						if err := os.Rename(c, c+suffix); err != nil {
							it.Kept = append(it.Kept, c)
							continue
						}
					}
					it.Transcripts = append(it.Transcripts, c+suffix)
					it.Bytes += n
				}
			}
			res.Sessions = append(res.Sessions, it)
			res.Bytes += it.Bytes
		}
	}
	res.Count = len(res.Sessions)
	return nil
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

// Reset gives t a new sessionId as sessions.reset does; the old transcript
// stays where it is.
func Reset(ctx context.Context, s *state.State, t *state.Target, o Options) (*Result, error) {
	if o.Remote != nil {
		return remoteReset(ctx, t, o)
	}
	if s.Era(t.Agent) == era.SQLite {
		// 2026.9.6's reset keeps the sessionId, sets a new
		// lifecycleRevision, rebuilds the entry and appends a reset
		// boundary to the transcript with its search index: not written
		// directly (yet).
		return nil, apperr.Statef("agent %s keeps its sessions in the OpenClaw 2026.8+ SQLite store %s: sessions reset goes through OpenClaw's gateway there (start it, or give --gateway); the direct writer does not reset", t.Agent, s.SQLitePath(t.Agent)).With("sessionKey", t.DisplayKey)
	}
	if err := s.CheckWritable(t.Agent); err != nil {
		return nil, err
	}
	if err := waitIdle(ctx, s, t, o); err != nil {
		return nil, err
	}
	res := &Result{Action: "reset", DryRun: o.DryRun, Sessions: []Item{}}
	newID := uuid.NewString()
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, NewSessionID: newID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	inside, outside := archive.Transcripts(s, t.Agent, t.Store.Dir, t.Entry.Meta)
	it.Kept = append(slices.Clone(inside), outside...)
	p, _ := s.StorePath(t.Agent)
	if o.DryRun {
		it.UpdatedAt = o.now().UnixMilli()
	} else {
		_, err := store.Update(ctx, p, store.UpdateOptions{LockTimeout: o.LockTimeout, SQLitePath: s.SQLitePath(t.Agent), Now: o.Now}, func(tx *store.Tx) error {
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
	}
	res.Sessions = append(res.Sessions, it)
	res.Count = 1
	return res, nil
}

// Candidate is an entry prune considers.
type Candidate struct {
	Agent     string
	Key       string
	Kind      string
	UpdatedAt int64
	Main      bool
}

// Select is prune's choice, a pure function: the candidates last updated
// before cutoff (ms) whose kind is in kinds (all when empty), never a main
// session.
func Select(cands []Candidate, cutoff int64, kinds []string) (chosen []Candidate, mains []Candidate) {
	for _, c := range cands {
		if c.UpdatedAt >= cutoff {
			continue
		}
		if len(kinds) > 0 && !slices.Contains(kinds, c.Kind) {
			continue
		}
		if c.Main {
			mains = append(mains, c)
			continue
		}
		chosen = append(chosen, c)
	}
	return chosen, mains
}

// Prune deletes the sessions of agents last updated more than olderThan
// ago (of kinds), never a main session and never a busy one (skipped, with
// the reason).
func Prune(ctx context.Context, s *state.State, agents []string, olderThan time.Duration, kinds []string, o Options) (*Result, error) {
	res := &Result{Action: "prune", DryRun: o.DryRun, Sessions: []Item{}}
	now := o.now()
	var cands []Candidate
	targets := map[string]*state.Target{}
	for _, a := range agents {
		if o.Remote == nil {
			if err := checkWritable(s, a); err != nil {
				return nil, err
			}
		}
		st, entries, err := s.Entries(a)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if keys.IsReserved(e.Key) && !(s.GlobalScope() && e.Key == keys.Global) {
				continue
			}
			c := Candidate{Agent: a, Key: e.Key, Kind: keys.Kind(e.Key, e.ChatType), UpdatedAt: e.Updated(), Main: IsMain(s, a, e.Key)}
			cands = append(cands, c)
			targets[a+"\x00"+e.Key] = &state.Target{Agent: a, Store: st, Entry: e, Key: e.Key, DisplayKey: s.DisplayKey(e.Key)}
		}
	}
	chosen, mains := Select(cands, now.Add(-olderThan).UnixMilli(), kinds)
	for _, m := range mains {
		res.Skipped = append(res.Skipped, Skip{Key: m.Key, Reason: "main session"})
	}
	var todo []*state.Target
	for _, c := range chosen {
		t := targets[c.Agent+"\x00"+c.Key]
		if why := Busy(s, t); why != "" {
			res.Skipped = append(res.Skipped, Skip{Key: c.Key, Reason: why})
			continue
		}
		todo = append(todo, t)
	}
	if o.Remote != nil {
		if err := remoteDelete(ctx, s, todo, o, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	if err := remove(ctx, s, todo, o, res, now.Add(-olderThan).UnixMilli()); err != nil {
		return nil, err
	}
	return res, nil
}

// MsgArchiveMain is OpenClaw 2026.9.6's refusal (sessions.archive).
const MsgArchiveMain = "Cannot archive an agent's main session."

// Archive archives t. On a 2026.8+ SQLite store (no OpenClaw process
// holding the state dir) it is 2026.9.6's archive — the entry kept with
// archivedAt = now and archiveReason "manual", its pin dropped — written
// by the direct writer (internal/sqlitewrite) in one BEGIN IMMEDIATE step;
// a dry run checks that no OpenClaw process holds the state dir and opens
// nothing for writing (the schema is checked only by the real run). A
// JSON-era store has no archived state: there archiving is what 1.30's
// sub-agent sweeper does, sessions.delete with the transcript renamed
// .deleted.<ts>. Every agent's main session is refused, as 2026.9.6 does.
func Archive(ctx context.Context, s *state.State, t *state.Target, o Options) (*Result, error) {
	if IsMain(s, t.Agent, t.Key) || t.Key == keys.Global {
		return nil, apperr.Errorf("%s", MsgArchiveMain).With("sessionKey", t.DisplayKey)
	}
	if o.Remote != nil {
		return remoteArchive(ctx, s, t, o)
	}
	if s.Era(t.Agent) != era.SQLite {
		if err := s.CheckWritable(t.Agent); err != nil {
			return nil, err
		}
		if err := waitIdle(ctx, s, t, o); err != nil {
			return nil, err
		}
		res := &Result{Action: "archive", DryRun: o.DryRun, Sessions: []Item{}}
		if err := remove(ctx, s, []*state.Target{t}, o, res, 0); err != nil {
			return nil, err
		}
		return res, nil
	}
	if err := waitIdle(ctx, s, t, o); err != nil {
		return nil, err
	}
	it := Item{Key: t.Key, AgentID: t.Agent, SessionID: t.Entry.SessionID, Kind: keys.Kind(t.Key, t.Entry.ChatType)}
	if o.DryRun {
		// Opening the writer is not free (closing it checkpoints the
		// database): a dry run checks for a live OpenClaw holder and
		// answers from the read it made.
		if err := checkNotHeld(s, t.Agent, o); err != nil {
			return nil, err
		}
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
		w, err := sqlitewrite.Open(s.Dir.Path, t.Agent, sqlitewrite.Options{LockTimeout: o.LockTimeout, Now: o.Now})
		if err != nil {
			return nil, err
		}
		defer w.Close()
		yes := true
		pr, err := w.PatchEntry(t.Key, sqlitewrite.Patch{Archived: &yes})
		if err != nil {
			return nil, err
		}
		it.ArchivedAt, it.UpdatedAt = gjson.GetBytes(pr.Entry, "archivedAt").Int(), pr.UpdatedAt
	}
	return &Result{Action: "archive", DryRun: o.DryRun, Count: 1, Sessions: []Item{it}}, nil
}
