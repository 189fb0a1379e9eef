package backend

import (
	"github.com/openclaw/sessions/internal/apperr"
)

// WriteQuery names the session a write changes (each host finds it where
// it lives: a host's own writeSession).
type WriteQuery struct {
	Ref   string // a key, a sessionId or a unique sessionId prefix
	Label string // or the session with this label (the host's Agent picks the agent)
	// WaitIdle: the write means to wait, first, for an OpenClaw run on the
	// session to end (patch --wait-idle). Only this host's JSON-era files
	// show such a run (its transcript lock): through a gateway, which
	// orders writes with its runs itself, it is refused (exit 2).
	WaitIdle bool
}

// WriteTarget is the session a write changes, found where it lives with
// the checks of a send (visible to the requester, agent-to-agent
// allowed).
type WriteTarget struct {
	Key        string // the store key
	DisplayKey string // the key as the requester names it
	Agent      string
	// SessionID is the sessionId the reference named the session by: the
	// write must still find the key on it (a /new may have moved the key
	// on meanwhile). "" when named by key or label, and over a gateway
	// host (whose sessions.patch lists the key again itself).
	SessionID string
}

// ErrWaitIdleOverGateway is the refusal of WriteQuery.WaitIdle through a
// gateway.
func ErrWaitIdleOverGateway() error {
	return apperr.Usagef("--wait-idle applies to a patch of the local state dir; through the gateway, OpenClaw itself orders the patch with its runs")
}
