package backend

import (
	"time"

	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// SpawnAsk is a sub-agent task as a host spawns it.
type SpawnAsk struct {
	// RunID is the run's id: through a gateway the child's key and its
	// task turn derive from it (the runner's task step), so a retry of
	// that step is the same run on the gateway.
	RunID    string
	Task     string
	Label    string // the child's label as given ("" none)
	Model    string // PROVIDER/MODEL or an alias ("" the agent's subagents.model)
	Thinking string // the thinking level as given ("" none)
	// RunTimeoutSeconds aborts the task after that long (0: the turn
	// timeout); a gateway's spawn starts the task with it.
	RunTimeoutSeconds int
	// Engine, OpenClaw: as for SendAsk.
	Engine, OpenClaw string
	Runs             RunSetup
}

// SpawnedChild is the child a host created, and what the spawn's run
// records: the run is recorded in State and started by Launcher.
type SpawnedChild struct {
	Key, SessionID string
	Agent          string // the agent the child is made in
	// Requester is the session the child was spawned for (its announce
	// goes there); the child takes its channel.
	Requester runs.Session
	// Label, Model (provider/model, or as given over a gateway) and
	// Thinking are what the child was made with ("" none).
	Label, Model, Thinking string
	// ModelApplied: whether Model took effect (nil: no model asked).
	ModelApplied *bool
	Engine       string // the engine the run records
	// Settings are the run settings read from a gateway host's config
	// (nil: the state's own config, or OpenClaw's defaults).
	Settings *runs.Settings
	// At is when the child was made: the run's creation time.
	At time.Time
	// ArchiveAfterMinutes: the child goes into the local archive index,
	// due that long after At (0: it is not indexed — removing a child
	// made by a gateway is --cleanup delete's or sessions delete's job).
	ArchiveAfterMinutes int
	// Through a gateway: how the child was made and its task started
	// (GatewayRoute), the gateway's run id of the task when it is not
	// ours (GatewayRunID), and the model patch's warning.
	GatewayRoute, GatewayRunID, Warning string

	State    *state.State // where the run is recorded
	Launcher *launch.Launcher
}
