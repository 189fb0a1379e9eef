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
	// Writes are the options the writes of a run made through the gateway
	// the invocation names open with (its dial and log), and the run's
	// clock and lock timeout. This host's state dir routes its agents'
	// writes with its own options (local.Local, per agent).
	Writes sessionwrite.Options
	// Launcher chooses the engine of a run recorded in s and starts its
	// runner; nil s: only the engine, before the run's home is open.
	Launcher func(s *state.State) *launch.Launcher
	// Home opens the state the run is recorded in: the home on this
	// machine of the runs made through the gateway the invocation names
	// (runs.GatewayHome), else this host's state.
	Home func() (*state.State, error)
}

// Now is the run's clock (the write options').
func (r RunSetup) Now() time.Time {
	if r.Writes.Now != nil {
		return r.Writes.Now()
	}
	return time.Now()
}
