// Package rundoc is the documents of runs as front-ends get them: a run
// as a listing shows it (Record), a listing's completeness (Page), the
// spawn lineage (Node) and the result of a send or a wait (Result). They
// hold the fields and JSON of the run store's records (internal/runs, which converts its records into them:
// runs.Doc, runs.NodeDocs, runs.Accepted, runs.Done) and nothing of the
// store; the operations layer hands them out as its own (ops.RunRecord,
// ops.RunNode, ops.RunResult). A leaf: it imports nothing of the module.
package rundoc

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

	// Source is set when runs are listed, never stored: "sessions"
	// (runs.SourceSessions) for a run of ours, "openclaw"
	// (runs.SourceOpenClaw) for one of OpenClaw's own sub-agent registry.
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

// Node is one session of the spawn lineage tree: a requester, or a
// child with the run that spawned it.
type Node struct {
	SessionKey string  `json:"sessionKey"`
	RunID      string  `json:"runId,omitempty"`
	Label      string  `json:"label,omitempty"`
	Status     string  `json:"status,omitempty"`
	Outcome    string  `json:"outcome,omitempty"`
	CreatedAt  int64   `json:"createdAt,omitempty"`
	ArchivedAt int64   `json:"archivedAt,omitempty"`
	Source     string  `json:"source,omitempty"` // sessions | openclaw (children only)
	Children   []*Node `json:"children"`
}

// Page is what a listing of runs says about its completeness, as OpenClaw
// 2026.9's `openclaw sessions --json` does: the rows shown, the matching
// rows before the limit, the limit in force (null for no limit) and
// whether rows were left out.
type Page struct {
	Count        int  `json:"count"`
	TotalCount   int  `json:"totalCount"`
	LimitApplied *int `json:"limitApplied"`
	HasMore      bool `json:"hasMore"`
}

// Result is the JSON document of `send` and `wait`.
type Result struct {
	RunID      string         `json:"runId"`
	Status     string         `json:"status"`
	Reply      *string        `json:"reply,omitempty"`
	SessionKey string         `json:"sessionKey,omitempty"`
	Delivery   *DeliveryState `json:"delivery,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// DeliveryState is the delivery part of a result: the announce's delivery
// as the run record has it when the result is made — "pending" until the
// runner has settled it, then skipped, recorded, delivered or failed (with
// the reason).
type DeliveryState struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Error  string `json:"error,omitempty"`
}
