package engine

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
)

// Engine names as given to --engine / $SESSIONS_ENGINE.
const (
	SpecAuto     = "auto"
	SpecProvider = "provider"
	SpecOpenClaw = "openclaw"
	SpecGateway  = "gateway"
)

// DefaultGatewayPort is OpenClaw's DEFAULT_GATEWAY_PORT.
const DefaultGatewayPort = 18789

// Probe is what auto looks at; the zero value probes for real.
type Probe struct {
	Getenv func(string) string
	// Dial checks that addr accepts a TCP connection (nil: net.DialTimeout).
	Dial func(addr string, timeout time.Duration) error
	// OpenClawFlag is --openclaw ("" when not given).
	OpenClawFlag string
	// Gateway checks for a live local gateway that accepts the config's
	// credentials (the full handshake): nil error and where it is, or why
	// not. nil: only a TCP check at GatewayAddr, with credentials in the
	// config (tests).
	Gateway func() (where string, err error)
}

// Choice is auto's decision, with the reasons for the debug log.
type Choice struct {
	Spec    string   // "provider" or "openclaw:<path>"
	Reasons []string // one line per candidate considered
}

// GatewayAddr is where a local gateway listens: $OPENCLAW_GATEWAY_PORT,
// else gateway.port, else 18789, on 127.0.0.1 (resolveGatewayPort).
func GatewayAddr(cfg *config.Config, getenv func(string) string) string {
	port := DefaultGatewayPort
	if v, err := strconv.Atoi(strings.TrimSpace(getenv("OPENCLAW_GATEWAY_PORT"))); err == nil && v > 0 {
		port = v
	} else if cfg != nil {
		if gw, ok := cfg.Raw["gateway"].(map[string]any); ok {
			if p, ok := gw["port"].(float64); ok && p > 0 {
				port = int(p)
			}
		}
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// gatewayCredentials: gateway.auth.token or .password (or their
// environment variables) are set.
func gatewayCredentials(cfg *config.Config, getenv func(string) string) bool {
	if getenv("OPENCLAW_GATEWAY_TOKEN") != "" || getenv("OPENCLAW_GATEWAY_PASSWORD") != "" {
		return true
	}
	if cfg == nil {
		return false
	}
	gw, _ := cfg.Raw["gateway"].(map[string]any)
	auth, _ := gw["auth"].(map[string]any)
	t, _ := auth["token"].(string)
	p, _ := auth["password"].(string)
	return strings.TrimSpace(t) != "" || strings.TrimSpace(p) != ""
}

// ChooseAuto picks the engine of a turn: the gateway when a live local
// gateway is reachable with the config's credentials, else openclaw when
// the executable is found, else provider.
func ChooseAuto(cfg *config.Config, p Probe) Choice {
	getenv := p.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	dial := p.Dial
	if dial == nil {
		dial = func(addr string, timeout time.Duration) error {
			c, err := net.DialTimeout("tcp", addr, timeout)
			if err == nil {
				c.Close()
			}
			return err
		}
	}
	var c Choice
	if p.Gateway != nil {
		where, err := p.Gateway()
		if err == nil {
			c.Spec = SpecGateway
			c.Reasons = append(c.Reasons, "gateway: live at "+where+", the config's credentials accepted")
			return c
		}
		c.Reasons = append(c.Reasons, "gateway: "+err.Error())
	} else {
		addr := GatewayAddr(cfg, getenv)
		switch {
		case !gatewayCredentials(cfg, getenv):
			c.Reasons = append(c.Reasons, "gateway: no credentials in the config (gateway.auth.token/password): skipped")
		case dial(addr, 300*time.Millisecond) != nil:
			c.Reasons = append(c.Reasons, "gateway: nothing listening at "+addr)
		default:
			c.Spec = SpecGateway
			c.Reasons = append(c.Reasons, "gateway: live at "+addr)
			return c
		}
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
