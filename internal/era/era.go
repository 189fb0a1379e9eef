// Package era names OpenClaw's storage eras — where an agent's sessions
// live — once, for every package that has to tell them apart.
package era

// Era is where an agent's sessions live: the kind of its store on a host.
// How they are reached is not an era: a gateway is a transport (a write
// route through it is sessionwrite.Route.Gateway, a gateway host is
// gatewayhost.Gateway).
type Era string

const (
	// JSON: sessions.json + JSONL transcripts (OpenClaw 2026.7 and earlier).
	JSON Era = "json"
	// SQLite: the per-agent openclaw-agent.sqlite store (OpenClaw 2026.8+).
	SQLite Era = "sqlite"
	// None: an agent with no store yet.
	None Era = "none"
)

// String is the era's name as JSON documents and messages spell it.
func (e Era) String() string { return string(e) }

// The OpenClaw releases of each storage era, as `sessions version` and the
// manual name them.
const (
	// JSONReleases are the releases that keep sessions.json + JSONL.
	JSONReleases = "2026.1.x to 2026.7.x"
	// SQLiteSince is the first release of the per-agent SQLite store.
	SQLiteSince = "2026.8"
)
