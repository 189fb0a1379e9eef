package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
)

// SessionHint is one session a shell completion may offer: its key as the
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
	var out []SessionHint
	for _, h := range hs {
		out = append(out, SessionHint(h))
	}
	return deliver(o, out, err)
}

// AgentHints are the agents of this host's state dir (configured ones
// first, then the directories under <state>/agents), for completions.
func (o *Ops) AgentHints() ([]AgentHint, error) {
	hs, err := o.completer().AgentHints(context.Background())
	var out []AgentHint
	for _, h := range hs {
		out = append(out, AgentHint(h))
	}
	return deliver(o, out, err)
}

// RunHints are our run records on this host, for completions: only read
// (no run is reaped: that writes).
func (o *Ops) RunHints() ([]RunHint, error) {
	hs, err := o.completer().RunHints(context.Background())
	var out []RunHint
	if hs != nil {
		out = make([]RunHint, 0, len(hs))
	}
	for _, h := range hs {
		out = append(out, RunHint(h))
	}
	return deliver(o, out, err)
}
