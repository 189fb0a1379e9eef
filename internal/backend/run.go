package backend

import (
	"time"

	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// RunSetup is what a host needs from the invocation to make a run (send,
// spawn) ready: where the run's session writes go and how its runner
// starts, as the invocation's host set decided them once
// (hostset.Writes.RunSetup); every field is set. The host calls them at
// the points its checks need them.
type RunSetup struct {
	// Writes are the options every write of the run opens with: the lock
	// timeout, the clock, and the gateways sessionwrite.Choose routes with
	// (the one the invocation names, else this host's live gateway).
	Writes sessionwrite.Options
	// Route is where agent's session writes go on s (sessionwrite.Choose),
	// said at debug level for the operation what.
	Route func(s *state.State, agent, what string) (sessionwrite.Route, error)
	// Launcher chooses the engine of a run recorded in s and starts its
	// runner; nil s: only the engine, before the run's home is open.
	Launcher func(s *state.State) *launch.Launcher
	// Home opens the state the run is recorded in: the home on this
	// machine of the runs made through the gateway the invocation names
	// (runs.GatewayHome), else this host's state.
	Home func() (*state.State, error)
}

// now is the run's clock (the write options').
func (r RunSetup) now() time.Time {
	if r.Writes.Now != nil {
		return r.Writes.Now()
	}
	return time.Now()
}
