// Package sessionwrite is the one seam through which `sessions` writes a
// session: patch an entry, create a spawned child, append a turn (or a
// delivery mirror) to a transcript, update the entry after a turn, archive a
// child, delete, reset or archive a session (the lifecycle writes), and read
// the context a turn needs. Three implementations, chosen
// in one place (Choose): the JSON era (sessions.json under OpenClaw's store
// lock, JSONL transcripts: packages store and transcript), the OpenClaw
// 2026.8+ SQLite store (package sqlitewrite, with all its preconditions: a
// live OpenClaw holding the state dir is exit 10, a busy database past
// --lock-timeout exit 11), and an OpenClaw gateway's own RPC (a gateway the
// invocation names, or the live local gateway of a 2026.8+ agent).
package sessionwrite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitewrite"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// Located is a session's entry as read a moment ago.
type Located struct {
	Key   string
	Entry *store.Entry
	// Path is the transcript file (JSON era) or "" (SQLite era: the
	// transcript is rows of the database, there is no file).
	Path string
	// Where names the transcript for messages: the file, or the database
	// and session id.
	Where string
}

// Patch is a change of an entry's label / sendPolicy; nil leaves a field.
type Patch struct {
	Label      *string // "" removes the label
	SendPolicy *string // allow | deny; "" removes the override
	// SessionID, when set, must still be the key's session (a key resolved
	// through its session id may have moved on to a new session).
	SessionID string
	// NotFound is the error when the key (or its session) is gone.
	NotFound error
}

// PatchResult is the entry as written and where.
type PatchResult struct {
	Entry json.RawMessage
	Path  string
	// Said is what the write was, as the debug log says it: "store
	// updated" (the JSON files, the SQLite store) or "patched through the
	// gateway's sessions.patch".
	Said string
	// Debug are the key/value pairs said with it: the key; the store, the
	// era and the JSON era's lock wait and timings or the SQLite era's
	// write-lock hold; or the gateway.
	Debug []any
}

// Child is a spawned sub-agent session to create.
type Child struct {
	Key, SessionID string
	ParentKey      string // the requester's canonical key
	RequesterAgent string
	Label          string
	// Build returns the child's entry given the child's store and the
	// requester's entry as read there (nil when it has none, or when
	// RequesterKeys is empty); in the JSON era it runs inside the store lock.
	// The SQLite era keeps the fields other than those sessions_spawn sets
	// itself (sessionId, updatedAt, spawnedBy, label).
	Build func(st *store.Store, requester *store.Entry) (*jsonx.Object, error)
	// RequesterKeys are the candidate keys of the requester's entry in the
	// child's store (JSON era, same store: read inside the lock).
	RequesterKeys []string

	// Through a gateway the child is created by starting its task turn
	// (gateway.Client.Spawn: 1.30's sessions_spawn recipe, 9.x's
	// sessions.create): what that turn needs. The other implementations
	// ignore them (the runner starts the task turn). The child's key is
	// derived from IdempotencyKey there (gateway.SubagentKey).
	Task, SystemPrompt, Model, Thinking string
	RunTimeoutSeconds                   int
	IdempotencyKey                      string
}

// ChildResult says what was created.
type ChildResult struct {
	Path      string          // the store written
	Requester *store.Entry    // the requester's entry as read (nil: none)
	Entry     json.RawMessage // the child's entry as written

	// Through a gateway: the child's key and sessionId as the gateway made
	// them, the run its task turn is (RunRoute "agent": the idempotency
	// key, replayed by the gateway engine; "sessions.create": the
	// gateway's own run id, waited on), and the model patch's outcome.
	Key, SessionID, RunID, RunRoute string
	ModelApplied                    bool
	Warning                         string
}

// Announcer is implemented by writes that announce into a session
// otherwise than by appending a mirror: through a gateway, chat.inject or
// — without operator.admin — a turn of the requester (gateway.Announce).
// It returns how the announce went in.
type Announcer interface {
	Announce(ctx context.Context, l *Located, text, idem string) (string, error)
}

// Removed is what removing (JSON era: deleting) or archiving (SQLite era) a
// child did.
type Removed = archive.Removed

// TurnUpdate is what the runner records in the entry after a turn:
// modelProvider, model, contextTokens, abortedLastRun, token counts.
type TurnUpdate func(e *jsonx.Object)

// Writes is where one agent's session writes go.
type Writes interface {
	// Route is where these writes go: a store here, of its era, or
	// through a gateway.
	Route() Route
	// Locate reads key's current entry afresh (NotFound when gone).
	Locate(key string) (*Located, error)
	// History is the context a turn needs: the messages on the transcript's
	// path to its leaf, read under OpenClaw's transcript lock (JSON era) / in
	// seq order (SQLite era); nil when the session has no transcript yet.
	History(ctx context.Context, l *Located, warn func(string)) ([]json.RawMessage, error)
	// Append appends msgs (a turn's user and assistant messages, or one
	// delivery mirror) to l's transcript in one step, and, when update is
	// set, records the turn in the entry (JSON era: a second locked write of
	// the store; SQLite era: the same transaction). idem identifies the
	// step: a retry with the same key never appends twice (SQLite era).
	Append(ctx context.Context, l *Located, idem, cwd string, update TurnUpdate, msgs ...json.RawMessage) error
	// UpdateEntry records a turn in the entry without appending (the
	// engine wrote the transcript itself); a gone key is no error.
	UpdateEntry(ctx context.Context, key string, update TurnUpdate) error
	// Patch changes key's label / sendPolicy (updatedAt = max(old, now)).
	Patch(ctx context.Context, key string, p Patch) (*PatchResult, error)
	// CreateChild creates a spawned child session.
	CreateChild(ctx context.Context, c Child) (*ChildResult, error)
	// RemoveChild deletes (JSON era, with its transcript renamed) or
	// archives (SQLite era: archivedAt, as sessions.patch archived does;
	// OpenClaw 2026.9.6's row delete is not available to us) a child.
	RemoveChild(ctx context.Context, key string) (*Removed, error)

	// The lifecycle writes (delete, reset, archive, prune's deletions), on
	// sessions resolved a moment ago on the local state dir; open them
	// with OpenLifecycle.

	// Delete deletes ts (this agent's sessions) as sessions.delete does:
	// JSON era, the entries removed in one store update and the
	// transcripts renamed <file>.deleted.<ts>; SQLite era, 2026.9.6's
	// delete with deleteTranscript false (the transcript stays in the
	// database); a gateway's sessions.delete. A session changed since it
	// was read is skipped.
	Delete(ctx context.Context, ts []*state.Target, o Lifecycle) (*Outcome, error)
	// Reset starts t afresh as sessions.reset does (a new sessionId; the
	// old transcript stays). The SQLite era refuses it (exit 10): only
	// OpenClaw's gateway resets there.
	Reset(ctx context.Context, t *state.Target, o Lifecycle) (*Item, error)
	// Archive archives t: 2026.8+ (SQLite store, or a 2026.9.x gateway)
	// archivedAt set, archiveReason "manual"; JSON era and a 1.30 gateway,
	// which have no archived state, a Delete.
	Archive(ctx context.Context, t *state.Target, o Lifecycle) (*Outcome, error)

	// Close releases what Open took.
	Close() error
}

// EntryError is an Append whose messages were appended but whose entry
// update then failed (the JSON era writes the two separately).
type EntryError struct{ Err error }

func (e *EntryError) Error() string { return e.Err.Error() }
func (e *EntryError) Unwrap() error { return e.Err }

// Options are shared by every implementation.
type Options struct {
	LockTimeout time.Duration // --lock-timeout
	Now         func() time.Time
	// Gateways: the invocation's gateways (nil: only the local state dir;
	// see Choose).
	Gateways *Gateways
}

// Open returns where agent's session writes go (Choose): a gateway's RPC,
// or by its era the JSON files or the SQLite store. The SQLite era checks
// sqlitewrite's preconditions here (exit 10 naming a live OpenClaw holder
// and the --gateway way; schema not 2026.9.6's agent schema 23).
func Open(s *state.State, agent string, o Options) (Writes, error) {
	r, err := Choose(s, agent, o)
	if err != nil {
		return nil, err
	}
	return OpenRoute(s, agent, r, o)
}

// OpenRoute opens the writes of a route Choose returned.
func OpenRoute(s *state.State, agent string, r Route, o Options) (Writes, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case r.ThroughGateway():
		return openGateway(r, agent, o), nil
	case r.Era == era.SQLite:
		return openSQLite(s, agent, o)
	}
	return &jsonWrites{s: s, agent: agent, o: o}, nil
}

// CheckWritable refuses (exit 10) what send, spawn and patch cannot
// write for agent. An agent on OpenClaw 2026.8+'s SQLite store is writable
// when sqlitewrite's preconditions hold (no live OpenClaw process holds the
// state dir — else the refusal names its pid and the --gateway way —, the
// database is exactly 2026.9.6's agent schema 23); the check writes
// nothing. An agent still read from sessions.json while a SQLite store
// exists beside it is refused as CheckWritable does.
func CheckWritable(s *state.State, agent string) error {
	if s.Era(agent) == era.SQLite {
		w, err := sqlitewrite.Open(s.Dir.Path, agent, sqlitewrite.Options{})
		if err != nil {
			return err
		}
		return w.Close()
	}
	return s.CheckWritable(agent)
}
