// Package runs keeps the records of send and spawn runs under
// <state>/sessions-cli/runs/: one JSON file per run, written atomically,
// plus an flock the runner holds for its whole life, so anyone can tell a
// live runner from a dead one at once (CONTRACT §5).
package runs

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

// Statuses of a run (CONTRACT §4).
const (
	StatusAccepted = "accepted" // recorded, runner starting
	StatusRunning  = "running"
	StatusOK       = "ok"
	StatusError    = "error"
	StatusTimeout  = "timeout"
)

// Kinds of run.
const (
	KindSend  = "send"
	KindSpawn = "spawn"
)

// MsgRunnerExited is the error of a run whose runner died without ending it.
const MsgRunnerExited = "runner exited"

// Session names a session taking part in a run.
type Session struct {
	Key        string `json:"key"`                  // as stored
	DisplayKey string `json:"displayKey,omitempty"` // as shown to the requester
	AgentID    string `json:"agentId"`
	SessionID  string `json:"sessionId,omitempty"`
	Channel    string `json:"channel,omitempty"`
}

// Usage is the token usage of a step.
type Usage struct {
	Input  int     `json:"input"`
	Output int     `json:"output"`
	Total  int     `json:"total"`
	Cost   float64 `json:"cost,omitempty"`
}

// Step is one agent turn of a run.
type Step struct {
	Name      string `json:"name"` // turn | reply | announce | task
	Session   string `json:"session"`
	Turn      int    `json:"turn,omitempty"` // ping-pong turn number
	Status    string `json:"status"`         // running | ok | error | timeout | skipped
	Reply     string `json:"reply,omitempty"`
	Error     string `json:"error,omitempty"`
	StartedAt int64  `json:"startedAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	Usage     *Usage `json:"usage,omitempty"`
	Model     string `json:"model,omitempty"`
}

// Delivery is the outcome of delivering an announce.
type Delivery struct {
	Status    string `json:"status"` // pending | skipped | recorded | delivered | failed
	Mode      string `json:"mode"`   // announce
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	Message   string `json:"message,omitempty"`
	Error     string `json:"error,omitempty"`
	At        int64  `json:"at,omitempty"`
}

// Record is one run.
type Record struct {
	RunID     string   `json:"runId"`
	Kind      string   `json:"kind"`
	Status    string   `json:"status"`
	CreatedAt int64    `json:"createdAt"`
	StartedAt int64    `json:"startedAt,omitempty"`
	EndedAt   int64    `json:"endedAt,omitempty"`
	Target    Session  `json:"target"`
	Requester *Session `json:"requester,omitempty"`
	Message   string   `json:"message"`
	// TimeoutSeconds is what the caller waited for step 1 (0 = fire and forget).
	TimeoutSeconds int    `json:"timeoutSeconds"`
	Engine         string `json:"engine"`
	Deliver        string `json:"deliver,omitempty"`
	// ReplyDone is set once the first step (the target's turn) has ended:
	// what `send` and `wait` wait for.
	ReplyDone bool      `json:"replyDone"`
	Reply     string    `json:"reply,omitempty"`
	Error     string    `json:"error,omitempty"`
	Steps     []Step    `json:"steps"`
	Delivery  *Delivery `json:"delivery,omitempty"`
	RunnerPID int       `json:"runnerPid,omitempty"`

	// Spawn runs.
	Spawn *Spawn `json:"spawn,omitempty"`

	// Settings are the run settings read from the gateway host's config
	// (config.get) for a run through a named gateway with --as; the runner
	// takes them over its own state's config. nil: that config's (or
	// OpenClaw's defaults).
	Settings *Settings `json:"settings,omitempty"`

	// Gateway is the gateway selector a gateway-engine run's runner
	// resolves its gateway with (the invocation's, its token file's path
	// made absolute; the current context by name): serialised here once,
	// not turned back into flags. nil: the runner's own (this host's live
	// gateway for a gateway-engine turn).
	Gateway *gatewaysel.Selector `json:"gateway,omitempty"`

	// Source is set when runs are listed, never stored: SourceSessions for
	// a run of ours, SourceOpenClaw for one of OpenClaw's own sub-agent
	// registry (OpenClawRuns).
	Source string `json:"source,omitempty"`
	// Context is set when runs are listed over several gateways (a
	// fleet), never stored: the context (or URL) whose runs it is.
	Context string `json:"context,omitempty"`
}

// Spawn holds what only a spawn run has. The run's Target is the child
// session, its Requester the session that spawned it (for the host
// operator: the requester agent's main session, with an empty DisplayKey).
type Spawn struct {
	Task              string `json:"task"`
	Label             string `json:"label,omitempty"`
	Model             string `json:"model,omitempty"` // "provider/model" when one was resolved
	Thinking          string `json:"thinking,omitempty"`
	RunTimeoutSeconds int    `json:"runTimeoutSeconds,omitempty"`
	Cleanup           string `json:"cleanup"`           // keep | delete
	Outcome           string `json:"outcome,omitempty"` // ok | error | timeout
	OutcomeError      string `json:"outcomeError,omitempty"`
	// Notes is what the announce step added (not ANNOUNCE_SKIP, not a
	// repetition of the child's reply).
	Notes string `json:"notes,omitempty"`
	// Announce is the normalised announce (Status/Result/Notes/Stats) as
	// delivered and written into the requester's transcript; "" when the
	// announce step answered ANNOUNCE_SKIP.
	Announce string `json:"announce,omitempty"`
	// RequesterTranscript is the transcript the announce was written into;
	// RequesterError why it was not.
	RequesterTranscript string `json:"requesterTranscript,omitempty"`
	RequesterError      string `json:"requesterError,omitempty"`
	ArchiveAtMs         int64  `json:"archiveAtMs,omitempty"`
	// ArchivedAt is when the child entry was removed and its transcript
	// renamed (cleanup delete or the archive sweep); Archived lists the
	// renamed files.
	ArchivedAt int64  `json:"archivedAt,omitempty"`
	ArchivedBy string `json:"archivedBy,omitempty"` // cleanup | sweep
	// RowArchived: an OpenClaw 2026.8+ (SQLite) child was archived in its
	// database (archivedAt set) instead of deleted.
	RowArchived bool     `json:"rowArchived,omitempty"`
	Archived    []string `json:"archived,omitempty"`
	// Through a gateway: how the child was made and its task started
	// (gateway.Client.Spawn: "agent", 1.30's sessions_spawn recipe, or
	// "sessions.create", 9.x), the gateway's run id of the task when it is
	// not ours (sessions.create), the model patch's warning, and how the
	// announce went into the requester ("chat.inject", or "agent": a turn).
	GatewayRoute string `json:"gatewayRoute,omitempty"`
	GatewayRunID string `json:"gatewayRunId,omitempty"`
	Warning      string `json:"warning,omitempty"`
	AnnouncedVia string `json:"announcedVia,omitempty"`
}

// Settings are what the runner otherwise reads from its state's config.
type Settings struct {
	// From names where they were read ("config.get on <gateway>").
	From string `json:"from,omitempty"`
	// PingPongTurns: session.agentToAgent.maxPingPongTurns (clamped 0..5).
	PingPongTurns *int `json:"pingPongTurns,omitempty"`
	// TurnTimeoutSeconds: agents.defaults.timeoutSeconds.
	TurnTimeoutSeconds *float64 `json:"turnTimeoutSeconds,omitempty"`
}

// Terminal reports whether a status is final.
func Terminal(status string) bool {
	return status == StatusOK || status == StatusError || status == StatusTimeout
}

// Dir is the runs directory of a state dir.
func Dir(stateDir string) string { return filepath.Join(stateDir, "sessions-cli", "runs") }

// Store is a runs directory.
type Store struct{ dir string }

// Open returns the runs store of a state dir (created on first write).
func Open(stateDir string) *Store { return &Store{dir: Dir(stateDir)} }

// Path is the record file of a run.
func (s *Store) Path(runID string) string { return filepath.Join(s.dir, runID+".json") }

// LockPath is the flock the runner of a run holds.
func (s *Store) LockPath(runID string) string { return filepath.Join(s.dir, runID+".lock") }

// LogPath is where the runner's stderr goes.
func (s *Store) LogPath(runID string) string { return filepath.Join(s.dir, runID+".log") }

// Dir is the directory.
func (s *Store) Dir() string { return s.dir }

// NewID returns a fresh run id (a v4 UUID, like OpenClaw's idempotency keys).
func NewID() string { return uuid.NewString() }

func validID(id string) error {
	if _, err := uuid.Parse(id); err != nil || strings.ContainsAny(id, `/\`) {
		return apperr.Usagef("invalid run id %q", id)
	}
	return nil
}

// Save writes a record atomically (temp file in the same dir, fsync,
// rename), mode 0600.
func (s *Store) Save(r *Record) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return apperr.Errorf("cannot create %s: %v", s.dir, err)
	}
	data, err := jsonx.MarshalIndent(r)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(s.Path(r.RunID), append(data, '\n'), 0o600); err != nil {
		return apperr.Errorf("cannot write run %s: %v", r.RunID, err)
	}
	return nil
}

// Load reads a record; an unknown run is exit 4.
func (s *Store) Load(runID string) (*Record, error) {
	if err := validID(runID); err != nil {
		return nil, err
	}
	data, err := fsutil.ReadFileRegular(s.Path(runID))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, apperr.NotFoundf("No run found: %s", runID)
		}
		return nil, apperr.Statef("cannot read run %s: %v", runID, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, apperr.Statef("run record %s is corrupt: %v", s.Path(runID), err)
	}
	return &r, nil
}

// List returns every run, newest first. Unreadable records are skipped.
func (s *Store) List() ([]*Record, error) {
	ents, err := fsutil.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, apperr.Statef("cannot read %s: %v", s.dir, err)
	}
	var out []*Record
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		r, err := s.Load(strings.TrimSuffix(name, ".json"))
		if err != nil {
			continue
		}
		out = append(out, r)
	}
	sortNewestFirst(out)
	return out, nil
}

// sortNewestFirst sorts records by creation, newest first (stable).
func sortNewestFirst(rs []*Record) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreatedAt > rs[j].CreatedAt })
}

// Merge merges two newest-first lists into one, newest first; on equal
// creation times a's records come first.
func Merge(a, b []*Record) []*Record {
	out := make([]*Record, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	sortNewestFirst(out)
	return out
}

// RunnerAlive reports whether some process holds the run's flock.
// RunnerHolder is the pid holding the runner's flock of runID, when the
// system says (0 otherwise).
func (s *Store) RunnerHolder(runID string) int { return lock.FlockHolder(s.LockPath(runID)) }

func (s *Store) RunnerAlive(runID string) bool {
	locked, err := lock.IsLocked(s.LockPath(runID))
	return err == nil && locked
}

// startGrace is how long an accepted run may wait for its runner to take
// its lock before a waiter calls it dead.
const startGrace = 10 * time.Second

// Reap ends a run whose runner is gone: running (or accepted for longer
// than the start grace) with a free runner lock → error "runner exited".
// It returns the (possibly updated) record.
func (s *Store) Reap(r *Record, now time.Time) (*Record, error) {
	if Terminal(r.Status) {
		return r, nil
	}
	if r.Status == StatusAccepted && now.Sub(time.UnixMilli(r.CreatedAt)) < startGrace {
		return r, nil
	}
	if s.RunnerAlive(r.RunID) {
		return r, nil
	}
	// The runner writes its final state before releasing its lock; re-read
	// to close the window between our read and its exit.
	fresh, err := s.Load(r.RunID)
	if err != nil {
		return nil, err
	}
	if Terminal(fresh.Status) {
		return fresh, nil
	}
	fresh.Status = StatusError
	fresh.Error = MsgRunnerExited
	if !fresh.ReplyDone {
		fresh.ReplyDone = true
	}
	fresh.EndedAt = now.UnixMilli()
	for i := range fresh.Steps {
		if fresh.Steps[i].Status == "running" {
			fresh.Steps[i].Status = StatusError
			fresh.Steps[i].Error = MsgRunnerExited
			fresh.Steps[i].EndedAt = fresh.EndedAt
		}
	}
	if fresh.Delivery != nil && fresh.Delivery.Status == "pending" {
		fresh.Delivery.Status = "failed"
		fresh.Delivery.Error = MsgRunnerExited
	}
	if err := s.Save(fresh); err != nil {
		return nil, err
	}
	return fresh, nil
}

// Wait blocks until done(record) is true, the run is reaped, or ctx ends
// (returning the last record seen and ctx.Err()). It watches the runs
// directory with fsnotify and polls as a fallback.
func (s *Store) Wait(ctx context.Context, runID string, done func(*Record) bool) (*Record, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, apperr.Errorf("cannot create %s: %v", s.dir, err)
	}
	var events <-chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(s.dir) == nil {
			events = w.Events
		}
	}
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	target := s.Path(runID)
	var last *Record
	check := func() (bool, error) {
		r, err := s.Load(runID)
		if err != nil {
			return false, err
		}
		if r, err = s.Reap(r, time.Now()); err != nil {
			return false, err
		}
		last = r
		return done(r) || Terminal(r.Status), nil
	}
	for {
		ok, err := check()
		if err != nil {
			return last, err
		}
		if ok {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case ev := <-events:
			if ev.Name != target && !strings.HasSuffix(ev.Name, ".lock") {
				continue
			}
		case <-poll.C:
		}
	}
}

// Summary is a one-line description of a record for people.
func Summary(r *Record) string {
	switch {
	case r.Error != "":
		return r.Error
	case r.Spawn != nil && r.Spawn.Outcome != "":
		return r.Spawn.Outcome
	case r.Reply != "":
		return firstLine(r.Reply)
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
