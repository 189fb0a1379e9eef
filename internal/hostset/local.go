package hostset

import (
	"time"

	"github.com/openclaw/sessions/internal/backend/local"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// LocalInputs are what this host's state dir is opened with as a host:
// the invocation's state, --agent, its warnings, debug lines, clock and
// lock timeout.
type LocalInputs struct {
	State       func() (*state.State, error) // opens the state once; its error is the operation's
	Agent       string
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
func NewLocal(in LocalInputs, set func() (*Set, error)) *local.Local {
	return &local.Local{State: in.State, Warn: in.Warn, Agent: in.Agent, Debug: in.Debug, Now: in.Now,
		Writes: func(s *state.State) sessionwrite.Options {
			t, err := set()
			if err != nil { // not reached: a write opens once the set resolved
				return sessionwrite.Options{LockTimeout: in.LockTimeout, Now: in.Now}
			}
			return t.LocalWrites(s, in.LockTimeout, in.Now)
		}}
}
