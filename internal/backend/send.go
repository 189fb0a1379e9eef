package backend

import (
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// SendAsk is a send as a host makes it ready: the session it goes into and
// the engine asked for.
type SendAsk struct {
	Ref   string // a key, sessionId or unique prefix; or Label
	Label string // the session with this label (--agent picks the agent)
	// Engine is the engine spec (launch.ResolveEngineDeliver resolved it;
	// "" is auto), OpenClaw the openclaw executable (--openclaw).
	Engine, OpenClaw string
	Runs             RunSetup
}

// SendPlan is a send made ready on a host: everything refusable has been
// refused, nothing is written yet. Its run is recorded in State and
// started by Launcher.
type SendPlan struct {
	State    *state.State // where the run is recorded
	Launcher *launch.Launcher
	Target   runs.Session
	// Requester is the --as session (nil: the host operator).
	Requester *runs.Session
	// Engine is the engine the run records.
	Engine string
	// Settings are the run settings read from a gateway host's config
	// (nil: the state's own config, or OpenClaw's defaults).
	Settings *runs.Settings
}
