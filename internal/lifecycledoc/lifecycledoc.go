// Package lifecycledoc is the document of delete, reset, archive and
// prune: what they did (or, in a dry run, would do) to each session, and
// what they left alone. A leaf: the write seam (sessionwrite) reports its
// outcome in these types, lifecycle's policy sums them into a Result, and
// every front-end prints or returns that Result through ops.
package lifecycledoc

// Result is the JSON document of delete, reset, archive and prune, the
// same with --dry-run and without.
type Result struct {
	Action   string `json:"action"` // delete | reset | prune | archive
	DryRun   bool   `json:"dryRun"`
	Count    int    `json:"count"`
	Bytes    int64  `json:"bytes"` // transcripts moved aside
	Sessions []Item `json:"sessions"`
	Skipped  []Skip `json:"skipped,omitempty"`
}

// Item is one session a lifecycle write (Delete, Reset, Archive) acted
// on, or in a dry run would act on: what delete, reset, archive and prune
// report of it.
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
	// Kept lists transcripts left alone: KeepTranscript, or outside the
	// state dir.
	Kept []string `json:"kept,omitempty"`
}

// Skip is a session a lifecycle write left alone, and why.
type Skip struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}
