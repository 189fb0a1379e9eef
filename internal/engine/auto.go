package engine

import (
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

// Probe is what auto looks at; the zero value probes for real.
type Probe struct {
	Getenv func(string) string
	// StateDir is this invocation's state dir (a running gateway's lock
	// file is looked for there).
	StateDir string
	// OpenClawFlag is --openclaw ("" when not given).
	OpenClawFlag string
	// Gateway checks for a live gateway that accepts the credentials (the
	// full handshake): nil error and where it is, or why not. nil: the
	// detection alone (lock file or port, credentials configured).
	Gateway func() (where string, err error)
}

// Choice is auto's decision, with the reasons for the debug log.
type Choice struct {
	Spec    string   // "provider" or "openclaw:<path>"
	Reasons []string // one line per candidate considered
}

// ChooseAuto picks the engine of a turn: the gateway when a live local
// gateway is reachable with the config's credentials, else openclaw when
// the executable is found, else provider.
func ChooseAuto(cfg *config.Config, p Probe) Choice {
	getenv := p.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var c Choice
	if p.Gateway != nil {
		where, err := p.Gateway()
		if err == nil {
			c.Spec = SpecGateway
			c.Reasons = append(c.Reasons, "gateway: live at "+where+", the credentials accepted")
			return c
		}
		c.Reasons = append(c.Reasons, "gateway: "+err.Error())
	} else if gw := detectGateway(cfg, p, getenv); gw.skip != "" {
		c.Reasons = append(c.Reasons, "gateway: "+gw.skip)
	} else {
		c.Spec = SpecGateway
		c.Reasons = append(c.Reasons, "gateway: live at "+gw.url+" ("+gw.via+")")
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
	ep, live, err := gateway.FindLocal(gateway.LocalInput{StateDir: p.StateDir, ConfigPath: cfgPath, Config: raw, Getenv: getenv})
	if err != nil {
		return gatewayProbe{skip: err.Error()}
	}
	if ep.Token == "" && ep.Password == "" {
		return gatewayProbe{skip: "no credentials (gateway.auth.token/password, $OPENCLAW_GATEWAY_TOKEN/PASSWORD)"}
	}
	return gatewayProbe{url: ep.URL, via: live.Via}
}
