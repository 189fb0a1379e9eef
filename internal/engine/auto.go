package engine

import (
	"net/url"
	"strconv"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
)

// Engine names as given to --engine / $SESSIONS_ENGINE.
const (
	SpecAuto     = "auto"
	SpecProvider = "provider"
	SpecOpenClaw = "openclaw"
	SpecGateway  = "gateway"
)

// GatewayEngineBuilt says whether this build has the gateway engine; until
// it has, auto detects a live gateway but does not pick it.
const GatewayEngineBuilt = false

// Probe is what auto looks at; the zero value probes for real.
type Probe struct {
	Getenv func(string) string
	// StateDir is this invocation's state dir (a running gateway's lock
	// file is looked for there).
	StateDir string
	// OpenClawFlag is --openclaw ("" when not given).
	OpenClawFlag string
}

// Choice is auto's decision, with the reasons for the debug log.
type Choice struct {
	Spec    string   // "provider" or "openclaw:<path>"
	Reasons []string // one line per candidate considered
}

// ChooseAuto picks the engine of a turn: the gateway when a live local
// gateway is reachable with the config's credentials (only when this build
// has the gateway engine), else openclaw when the executable is found, else
// provider.
func ChooseAuto(cfg *config.Config, p Probe) Choice {
	getenv := p.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var c Choice
	switch gw := detectGateway(cfg, p, getenv); {
	case gw.skip != "":
		c.Reasons = append(c.Reasons, "gateway: "+gw.skip)
	case !GatewayEngineBuilt:
		c.Reasons = append(c.Reasons, "gateway: a gateway is live at "+gw.url+" ("+gw.via+"), but this build has no gateway engine: skipped")
	default:
		c.Spec = SpecGateway
		c.Reasons = append(c.Reasons, "gateway: live at "+gw.url)
		return c
	}
	bin, err := FindOpenClaw(p.OpenClawFlag, getenv)
	if err != nil {
		c.Reasons = append(c.Reasons, "openclaw: "+err.Error())
		c.Spec = SpecProvider
		c.Reasons = append(c.Reasons, "provider: the fallback")
		return c
	}
	c.Spec = SpecOpenClaw + ":" + bin
	c.Reasons = append(c.Reasons, "openclaw: found "+bin)
	return c
}

type gatewayProbe struct{ url, via, skip string }

// detectGateway finds the local gateway the config describes the way
// OpenClaw's CLI does (gateway.LocalEndpoint: $OPENCLAW_GATEWAY_PORT >
// gateway.port > 18789; credentials from the environment or
// gateway.auth.*) and whether it is live (gateway.DetectLocal: its lock
// file naming a live process, else the port accepting a connection).
func detectGateway(cfg *config.Config, p Probe, getenv func(string) string) gatewayProbe {
	var raw map[string]any
	cfgPath := ""
	if cfg != nil {
		raw, cfgPath = cfg.Raw, cfg.Path
	}
	ep, err := gateway.LocalEndpoint(gateway.Inputs{Getenv: getenv, Config: raw})
	if err != nil {
		return gatewayProbe{skip: err.Error()}
	}
	u, err := url.Parse(ep.URL)
	if err != nil || !gateway.IsLoopbackHost(u.Hostname()) {
		return gatewayProbe{skip: "the configured gateway " + gateway.RedactURL(ep.URL) + " is not local"}
	}
	if ep.Token == "" && ep.Password == "" {
		return gatewayProbe{skip: "no credentials (gateway.auth.token/password, $OPENCLAW_GATEWAY_TOKEN/PASSWORD)"}
	}
	port, _ := strconv.Atoi(u.Port())
	live := gateway.DetectLocal(gateway.DetectInput{StateDir: p.StateDir, ConfigPath: cfgPath, Port: port})
	if live == nil {
		return gatewayProbe{skip: "none live at " + ep.URL}
	}
	return gatewayProbe{url: ep.URL, via: live.Via}
}
