// Package lifecycle deletes, resets, prunes and archives sessions as
// OpenClaw's gateway does (sessions.delete, sessions.reset, 2026.9.6's
// archive): the policy — the main session never deleted nor archived, a
// session with a live run refused (or waited for), prune's choice of old
// sessions — around the write seam (sessionwrite.Writes: Delete, Reset,
// Archive), which writes each agent's sessions where they live (the JSON
// files, the 2026.8+ SQLite store, or a gateway's RPC). A dry run computes
// exactly the same result and writes nothing.
package lifecycle

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lifecycledoc"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Item is one session acted on.
type Item = lifecycledoc.Item

// Skip is a session selected but left alone, and why.
type Skip = lifecycledoc.Skip

// Result is the JSON document of delete, reset, archive and prune, the
// same with --dry-run and without.
type Result = lifecycledoc.Result

// add sums a write's outcome into r.
func add(r *Result, out *sessionwrite.Outcome) {
	for _, it := range out.Items {
		r.Sessions = append(r.Sessions, it)
		r.Bytes += it.Bytes
	}
	r.Skipped = append(r.Skipped, out.Skipped...)
	r.Count = len(r.Sessions)
}

// ResultOf is the document of action (delete, archive, prune) that did
// out.
func ResultOf(action string, dryRun bool, out *sessionwrite.Outcome) *Result {
	r := &Result{Action: action, DryRun: dryRun, Sessions: []Item{}}
	add(r, out)
	return r
}

// Options tune an operation.
type Options struct {
	DryRun         bool
	KeepTranscript bool
	// Force waits (up to Wait) for a live run on the session to end instead
	// of refusing at once.
	Force bool
	Wait  time.Duration
	Now   func() time.Time
	// Open opens the writes of agent (sessionwrite.OpenLifecycle, on the
	// route chosen for it); the operation closes them.
	Open func(agent string) (sessionwrite.Writes, error)
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// writes opens the writes of agents, once each, in order.
type writes struct {
	open  func(agent string) (sessionwrite.Writes, error)
	by    map[string]sessionwrite.Writes
	order []string
}

func (ws *writes) of(agent string) (sessionwrite.Writes, error) {
	if w, ok := ws.by[agent]; ok {
		return w, nil
	}
	w, err := ws.open(agent)
	if err != nil {
		return nil, err
	}
	if ws.by == nil {
		ws.by = map[string]sessionwrite.Writes{}
	}
	ws.by[agent] = w
	ws.order = append(ws.order, agent)
	return w, nil
}

func (ws *writes) close() {
	for _, w := range ws.by {
		_ = w.Close()
	}
}

// local: the writes are made here (files or database), not by a gateway,
// which waits for or aborts a session's runs itself.
func local(w sessionwrite.Writes) bool { return !w.Route().ThroughGateway() }

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

// Delete removes the sessions of targets as sessions.delete does: the main
// session is refused, a busy session refused unless Force waited for it.
// All refusals happen before anything is written.
func Delete(ctx context.Context, s *state.State, targets []*state.Target, o Options) (*Result, error) {
	res := &Result{Action: "delete", DryRun: o.DryRun, Sessions: []Item{}}
	for _, t := range targets {
		if IsMain(s, t.Agent, t.Key) || t.Key == keys.Global {
			return nil, apperr.Errorf("%s", MsgMain(t.Key)).With("sessionKey", t.DisplayKey)
		}
	}
	ws := &writes{open: o.Open}
	defer ws.close()
	for _, t := range targets {
		if _, err := ws.of(t.Agent); err != nil {
			return nil, err
		}
	}
	for _, t := range targets {
		if local(ws.by[t.Agent]) {
			if err := waitIdle(ctx, s, t, o); err != nil {
				return nil, err
			}
		}
	}
	for _, b := range batches(ws, targets) {
		out, err := b.w.Delete(ctx, b.ts, sessionwrite.Lifecycle{DryRun: o.DryRun, KeepTranscript: o.KeepTranscript})
		if err != nil {
			return nil, err
		}
		add(res, out)
	}
	return res, nil
}

type batch struct {
	w  sessionwrite.Writes
	ts []*state.Target
}

// batches are the Delete calls for targets: one per agent written here
// (one store update, or one writer, for all its sessions), in the order
// the agents come; through a gateway, which deletes one session a call
// anyway, the sessions in the order given.
func batches(ws *writes, targets []*state.Target) []*batch {
	var out []*batch
	mine := map[sessionwrite.Writes]*batch{}
	for _, t := range targets {
		w := ws.by[t.Agent]
		if !local(w) {
			if n := len(out); n > 0 && out[n-1].w == w {
				out[n-1].ts = append(out[n-1].ts, t)
			} else {
				out = append(out, &batch{w: w, ts: []*state.Target{t}})
			}
			continue
		}
		if b := mine[w]; b != nil {
			b.ts = append(b.ts, t)
			continue
		}
		mine[w] = &batch{w: w, ts: []*state.Target{t}}
		out = append(out, mine[w])
	}
	return out
}

// idle is the sessionwrite.Lifecycle Idle hook of o: a busy session
// refused, or with Force waited for.
func idle(ctx context.Context, s *state.State, o Options) func(*state.Target) error {
	return func(t *state.Target) error { return waitIdle(ctx, s, t, o) }
}

// Reset gives t a new sessionId as sessions.reset does; the old transcript
// stays where it is. A 2026.8+ SQLite store is reset only through its
// gateway.
func Reset(ctx context.Context, s *state.State, t *state.Target, o Options) (*Result, error) {
	w, err := o.Open(t.Agent)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	it, err := w.Reset(ctx, t, sessionwrite.Lifecycle{DryRun: o.DryRun, Idle: idle(ctx, s, o)})
	if err != nil {
		return nil, err
	}
	return &Result{Action: "reset", DryRun: o.DryRun, Count: 1, Sessions: []Item{*it}}, nil
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
	ws := &writes{open: o.Open}
	defer ws.close()
	var cands []Candidate
	targets := map[string]*state.Target{}
	for _, a := range agents {
		if _, err := ws.of(a); err != nil {
			return nil, err
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
	cutoff := o.now().Add(-olderThan).UnixMilli()
	chosen, mains := Select(cands, cutoff, kinds)
	for _, m := range mains {
		res.Skipped = append(res.Skipped, Skip{Key: m.Key, Reason: "main session"})
	}
	todo := map[string][]*state.Target{}
	for _, c := range chosen {
		t := targets[c.Agent+"\x00"+c.Key]
		if why := Busy(s, t); why != "" {
			res.Skipped = append(res.Skipped, Skip{Key: c.Key, Reason: why})
			continue
		}
		todo[c.Agent] = append(todo[c.Agent], t)
	}
	for _, a := range ws.order {
		w := ws.by[a]
		if len(todo[a]) == 0 && local(w) {
			continue // a gateway is still connected to: an unreachable one is reported
		}
		out, err := w.Delete(ctx, todo[a], sessionwrite.Lifecycle{DryRun: o.DryRun, KeepTranscript: o.KeepTranscript, Cutoff: cutoff})
		if err != nil {
			return nil, err
		}
		add(res, out)
	}
	return res, nil
}

// MsgArchiveMain is OpenClaw 2026.9.6's refusal (sessions.archive).
const MsgArchiveMain = "Cannot archive an agent's main session."

// Archive archives t: on a 2026.8+ store 2026.9.6's archive (the entry
// kept with archivedAt = now and archiveReason "manual", its pin dropped);
// a JSON-era store has no archived state: there archiving is what 1.30's
// sub-agent sweeper does, sessions.delete with the transcript renamed
// .deleted.<ts>. Every agent's main session is refused, as 2026.9.6 does.
func Archive(ctx context.Context, s *state.State, t *state.Target, o Options) (*Result, error) {
	if IsMain(s, t.Agent, t.Key) || t.Key == keys.Global {
		return nil, apperr.Errorf("%s", MsgArchiveMain).With("sessionKey", t.DisplayKey)
	}
	w, err := o.Open(t.Agent)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	out, err := w.Archive(ctx, t, sessionwrite.Lifecycle{DryRun: o.DryRun, KeepTranscript: o.KeepTranscript, Idle: idle(ctx, s, o)})
	if err != nil {
		return nil, err
	}
	res := &Result{Action: "archive", DryRun: o.DryRun, Sessions: []Item{}}
	add(res, out)
	return res, nil
}
