package ops

import (
	"time"

	"github.com/openclaw/sessions/internal/state"
)

// The change feed's types as the live-view design fixes them. The feed
// itself (Ops.Watch) arrives with the watch branch, which owns this file:
// on merge its version replaces this one whole.

// WatchQuery: the scope flags of list.
type WatchQuery struct {
	Kinds     []string
	AllAgents bool
	Messages  bool // also message-appended events (the UI and `watch` set it)
	Runs      bool // also run-status events (our send/spawn runs, runs.Store)
}

// WatchEvent is one change. JSON (NDJSON line of `sessions watch --json`):
type WatchEvent struct {
	Kind    string        `json:"kind"`              // "added" | "updated" | "removed" | "message" | "run"
	Time    time.Time     `json:"time"`              // when we saw it
	Context string        `json:"context,omitempty"` // fleet only
	AgentID string        `json:"agentId"`
	Key     string        `json:"key"`
	Fields  []string      `json:"fields,omitempty"`  // updated: the JSON names of the list-row fields that changed
	Session *state.Row    `json:"session,omitempty"` // added/updated: the row as `list --json` prints it now
	Message *WatchMessage `json:"message,omitempty"` // message
	Run     *WatchRun     `json:"run,omitempty"`     // run
}

// WatchMessage is a message-appended event's message.
type WatchMessage struct {
	Role string `json:"role"`
	ID   string `json:"id,omitempty"`
	Text string `json:"text"` // short: first 120 runes, one line, masked when masking is on
}

// WatchRun is a run-status event's run.
type WatchRun struct {
	ID     string `json:"runId"`
	Status string `json:"status"`
	Kind   string `json:"kind,omitempty"` // send|spawn
}
