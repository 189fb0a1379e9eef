// Package sessionrow is the document of one session as a listing shows it
// (CONTRACT §4): what the operations layer hands to every front-end, with
// nothing of the store it was read from.
package sessionrow

import "encoding/json"

// Row is one session as `sessions list` shows it (CONTRACT §4). Field order
// is the JSON order; every field is present only when known.
type Row struct {
	// Context is the named gateway context the row comes from, in fleet
	// mode (--context all, or several); "" otherwise.
	Context         string            `json:"context,omitempty"`
	Key             string            `json:"key"`
	Kind            string            `json:"kind"`
	Channel         string            `json:"channel"`
	AgentID         string            `json:"agentId"`
	Label           string            `json:"label,omitempty"`
	DisplayName     string            `json:"displayName,omitempty"`
	UpdatedAt       *float64          `json:"updatedAt,omitempty"`
	SessionID       string            `json:"sessionId,omitempty"`
	Model           string            `json:"model,omitempty"`
	ContextTokens   *float64          `json:"contextTokens,omitempty"`
	TotalTokens     *float64          `json:"totalTokens,omitempty"`
	ThinkingLevel   string            `json:"thinkingLevel,omitempty"`
	VerboseLevel    string            `json:"verboseLevel,omitempty"`
	SystemSent      *bool             `json:"systemSent,omitempty"`
	AbortedLastRun  *bool             `json:"abortedLastRun,omitempty"`
	SendPolicy      string            `json:"sendPolicy,omitempty"`
	SpawnedBy       string            `json:"spawnedBy,omitempty"`
	LastChannel     string            `json:"lastChannel,omitempty"`
	LastTo          string            `json:"lastTo,omitempty"`
	DeliveryContext *DeliveryContext  `json:"deliveryContext,omitempty"`
	TranscriptPath  string            `json:"transcriptPath,omitempty"`
	Messages        []json.RawMessage `json:"messages,omitempty"`

	// Not in JSON: the key as the store holds it (Key is as shown).
	StoreKey string `json:"-"`
}

// DeliveryContext is where a session's replies go (a session entry's
// deliveryContext).
type DeliveryContext struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
}
