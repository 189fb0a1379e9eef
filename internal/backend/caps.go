package backend

// Capabilities say what this invocation can do with one agent's sessions,
// and why not: what front-ends ask instead of testing an era.
type Capabilities struct {
	// Era is where the agent's sessions live, as documents spell it: the
	// era of this host's store ("json", "sqlite" for OpenClaw 2026.8+,
	// "none" for no store yet), or "gateway" (HostedByGateway) when the
	// invocation works through a gateway it names, whose store is that
	// host's.
	Era string
	// Readable: the requester may read the agent's sessions (the
	// agent-to-agent and sandbox policy).
	Readable bool
	// Writable: send, spawn and patch can write the agent's sessions;
	// WhyNot says why not otherwise (e.g. an OpenClaw process holds the
	// 2026.8+ store and no gateway of it is live here).
	Writable bool
	WhyNot   string
	// WritesThrough is the URL of the gateway writes are routed through
	// (the one the invocation names, or this host's live gateway of a
	// 2026.8+ agent); "": they are written to the store directly.
	WritesThrough string
	// LabelMax is the longest label a write accepts (UTF-16 code units):
	// 64 as OpenClaw 2026.1.30 checks, 512 on a 2026.8+ store written
	// here, and through a gateway sessionwrite.GatewayLabelMax (the route's
	// Route.LabelMax).
	LabelMax int
	// TurnsInOpenClaw: a turn (send, spawn) runs in OpenClaw itself,
	// through the gateway, not in a local engine.
	TurnsInOpenClaw bool
}

// HostedByGateway is what a document says of where the sessions of a
// gateway host live (its "era" field): that host's store, whatever its
// era, reached through the gateway's RPC. It is no era of a store here: a
// gateway is a transport.
const HostedByGateway = "gateway"
