package hostset

import (
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/backend/local"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// LocalInputs are what this host's state dir is opened with as a host:
// the invocation's state options (--state-dir, --config, --profile,
// --agent, the requester), its warnings, debug lines, clock and lock
// timeout.
type LocalInputs struct {
	Open        state.Options // the state is opened once, on first use; its error is the operation's
	Warn        func(string)
	Debug       func(msg string, kv ...any)
	Now         func() time.Time
	LockTimeout time.Duration
}

// NewLocal builds this host's state dir as a host (local.Local), as
// Resolve builds the gateways it names. set is the invocation's resolved
// set, asked only once a write opens: the writes of a 2026.8+ agent go
// through this host's live gateway it finds (LocalWrites). A host-only
// read builds it before (and without) resolving the gateway flags.
// open is the state's opener, opening it once.
func NewLocal(in LocalInputs, open func() (*state.State, error), set func() (*Set, error)) *local.Local {
	return &local.Local{State: open, Warn: in.Warn, Agent: in.Open.Agent, Debug: in.Debug, Now: in.Now,
		Writes: func(s *state.State) sessionwrite.Options {
			t, err := set()
			if err != nil { // not reached: a write opens once the set resolved
				return sessionwrite.Options{LockTimeout: in.LockTimeout, Now: in.Now}
			}
			return t.LocalWrites(s, in.LockTimeout, in.Now)
		},
		ForAgent: func(agent string) *local.Local {
			ai := in
			ai.Open.Agent = agent
			return NewLocal(ai, opener(ai.Open), set)
		}}
}

// opener opens the state of o once.
func opener(o state.Options) func() (*state.State, error) {
	var (
		once sync.Once
		st   *state.State
		err  error
	)
	return func() (*state.State, error) {
		once.Do(func() { st, err = state.Open(o) })
		return st, err
	}
}
