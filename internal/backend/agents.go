package backend

import "github.com/openclaw/sessions/internal/hostdoc"

// AgentRow is one agent (a row of `sessions agents`), in the document
// ops hands out (internal/hostdoc, a leaf): a host fills it in.
type AgentRow = hostdoc.AgentRow

// AgentsRequester names who asked.
type AgentsRequester = hostdoc.AgentsRequester

// AgentsResult is the document of `sessions agents`.
type AgentsResult struct {
	Requester    AgentsRequester `json:"requester"`
	DefaultAgent string          `json:"defaultAgent"`
	SpawnAllowed string          `json:"spawnAllowed"`
	Agents       []AgentRow      `json:"agents"`
	// Errors: the hosts that failed, in fleet mode only.
	Errors *[]HostError `json:"errors,omitempty"`

	// Fleet: the rows come from several hosts (each row says its context).
	Fleet bool `json:"-"`
	// SaysRequester: the requester is this host's (a terminal view says
	// who asked and whom spawn may target).
	SaysRequester bool `json:"-"`
}
