package hostdoc

// The hints a shell completion offers (hostread reads them).

// SessionHint is one session a completion may offer: its key as the
// requester is shown it, and what describes it.
type SessionHint struct {
	Key       string
	SessionID string
	Kind      string
	Channel   string
	Label     string
	UpdatedAt int64 // ms
}

// AgentHint is one agent a completion may offer.
type AgentHint struct {
	ID      string
	Name    string
	Default bool
}

// RunHint is one run a completion may offer.
type RunHint struct {
	RunID     string
	Kind      string
	Status    string
	Target    string // the target's key as shown
	CreatedAt int64  // ms
}
