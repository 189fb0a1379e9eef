package hostdoc

// Lock is one held lock (a row of `sessions locks --json`).
type Lock struct {
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Since      int64  `json:"since,omitempty"` // ms since the epoch
	AgeSeconds int64  `json:"ageSeconds"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
	// Type is set when the lock path is not a regular file ("fifo",
	// "symlink", "directory", …): it is reported and never opened.
	Type string `json:"type,omitempty"`
}

// LocksResult is the document of `sessions locks --json`.
type LocksResult struct {
	Count int    `json:"count"`
	Locks []Lock `json:"locks"`
}
