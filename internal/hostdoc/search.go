package hostdoc

// SearchHit is one hit.
type SearchHit struct {
	Key       string `json:"key,omitempty"`
	Kind      string `json:"kind,omitempty"`
	AgentID   string `json:"agentId"`
	Label     string `json:"label,omitempty"`
	SessionID string `json:"sessionId"`
	ID        string `json:"id,omitempty"`
	Role      string `json:"role"`
	Timestamp *int64 `json:"timestamp,omitempty"`
	Snippet   string `json:"snippet"`
	Match     string `json:"match"`
	Source    string `json:"source"`
	Archived  string `json:"archived,omitempty"`
	// Score is the hit's relevance (--rank relevance): higher is better.
	Score   *float64       `json:"score,omitempty"`
	Context *SearchContext `json:"context,omitempty"`
}

// SearchContext is the messages around a hit (ops.SearchQuery.Context).
type SearchContext struct {
	Before []SearchContextMessage `json:"before"`
	After  []SearchContextMessage `json:"after"`
}

// SearchContextMessage is one message of a hit's context.
type SearchContextMessage struct {
	ID        string `json:"id,omitempty"`
	Role      string `json:"role"`
	Timestamp *int64 `json:"timestamp,omitempty"`
	Text      string `json:"text"`
}

// FromOrphan is a hit's source when its transcript is an orphan (no
// entry points to it): beside "transcript" (a JSONL file of a session or an
// archived copy), "index" and "events" (2026.8+).
const FromOrphan = "orphan"
