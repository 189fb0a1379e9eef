package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
)

// The hints a shell completion offers (internal/hostdoc).
type (
	SessionHint = hostdoc.SessionHint // a session: its key as the requester is shown it, and what describes it
	AgentHint   = hostdoc.AgentHint   // an agent
	RunHint     = hostdoc.RunHint     // a run
)

// A completion reads this host's state dir whatever the command line's
// gateway flags say (completing them is no time to dial a gateway): the
// hints are the local host's (backend.Completer).
func (o *Ops) completer() backend.Completer { return o.where.LocalHost() }

// SessionHints are the sessions of this host's state dir the requester may
// read (store order; labelled only: those with a label), for completions:
// nothing is written, a store that cannot be read is skipped (warn says
// why).
func (o *Ops) SessionHints(labelled bool, warn func(string)) ([]SessionHint, error) {
	hs, err := o.completer().SessionHints(context.Background(), labelled, warn)
	return deliver(o, hs, err)
}

// AgentHints are the agents of this host's state dir (configured ones
// first, then the directories under <state>/agents), for completions.
func (o *Ops) AgentHints() ([]AgentHint, error) {
	hs, err := o.completer().AgentHints(context.Background())
	return deliver(o, hs, err)
}

// RunHints are our run records on this host, for completions: only read
// (no run is reaped: that writes).
func (o *Ops) RunHints() ([]RunHint, error) {
	hs, err := o.completer().RunHints(context.Background())
	return deliver(o, hs, err)
}
