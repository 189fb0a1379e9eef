package hostdoc

// AgentRow is one agent (a row of `sessions agents`).
type AgentRow struct {
	Context     string `json:"context,omitempty"`
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Default     bool   `json:"default"`
	Configured  bool   `json:"configured"`
	Era         string `json:"era"` // json | sqlite | none (as agents shows it; compare ops.Capabilities, not eras)
	Store       string `json:"store"`
	Sessions    *int   `json:"sessions,omitempty"`
	Visible     bool   `json:"visible"`
	SpawnTarget bool   `json:"spawnTarget"`
	// Writable: send, spawn and patch can write this agent's store (an
	// OpenClaw 2026.8+ SQLite store: when no OpenClaw process holds the
	// state dir, or through its live gateway).
	Writable bool `json:"writable"`
	// CanSpawn: spawnTarget and writable — 'spawn --agent ID' would be
	// accepted by the requester; Reason says why not otherwise (or how
	// the writes go).
	CanSpawn bool   `json:"canSpawn"`
	Reason   string `json:"reason,omitempty"`
	// ThroughGateway: the agent is worked on through a gateway the
	// invocation names (Reason then says how a spawn goes).
	ThroughGateway bool `json:"-"`
}

// AgentsRequester names who asked.
type AgentsRequester struct {
	Key     string `json:"key,omitempty"`
	AgentID string `json:"agentId"`
}
