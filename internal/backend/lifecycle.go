package backend

import (
	"time"
)

// The lifecycle operations (delete, reset, archive, prune) are whole
// operations of a host (Host): each names its sessions where they live
// and writes them there. local.Local resolves them in this host's state dir and
// writes each agent where sessionwrite.Choose routes it (the files, the
// 2026.8+ store, or this host's live gateway); gatewayhost.Gateway names them over
// the gateway (sessions.list) and writes through its RPC, with no state
// dir on this machine at all. The policy — the main session refused, a
// busy session refused or waited for, prune's choice — is
// internal/lifecycle's.

// DeleteAsk names the sessions Host.Delete deletes.
type DeleteAsk struct {
	Keys []string // session keys or sessionIds, as the requester names them
	// DryRun computes the same result and writes nothing.
	DryRun bool
	// Force waits (up to 15 s) for a live run on a session to end instead
	// of refusing at once (this host's files; a gateway orders its runs
	// itself).
	Force bool
	// KeepTranscript leaves the transcripts where they are.
	KeepTranscript bool
}

// SessionAsk names the one session Host.Reset or Host.Archive acts on.
type SessionAsk struct {
	Key    string
	DryRun bool
	Force  bool
}

// PruneAsk is what Host.Prune deletes: every session not updated for a
// while.
type PruneAsk struct {
	OlderThan time.Duration // last updated more than this long ago
	Kinds     []string      // only these kinds (empty: all)
	// AllAgents: every agent, not only the host's Agent (else the
	// default agent).
	AllAgents bool
	DryRun    bool
	Force     bool
}

// MsgPruneOperator is the refusal of prune to a requester that is not
// the host's operator.
const MsgPruneOperator = "sessions prune is for the host operator (run it without --as and OPENCLAW_SESSION_KEY); an agent deletes its own sessions one by one with sessions delete"
