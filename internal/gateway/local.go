package gateway

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gatewaysel"
)

// LocalInput locates this host's gateway for a state dir.
type LocalInput struct {
	StateDir   string
	ConfigPath string         // the config file ("" when there is none)
	Config     map[string]any // its raw tree (nil: none)
	Getenv     func(string) string
	TokenFile  string // --gateway-token-file, if given
	TmpDir     string // 1.30's lock dir root (tests); "" = os.TempDir()
}

// FindLocal returns the gateway running on this host for the state dir,
// with the config's credentials (LocalEndpoint), when DetectLocal finds it
// live (a lock naming a live pid, or its port answering). None running, or
// the config pointing at a remote gateway (gateway.mode "remote"): an exit
// 10 error saying so.
func FindLocal(in LocalInput) (Endpoint, *LiveGateway, error) {
	ep, err := LocalEndpoint(Inputs{Config: in.Config, Getenv: in.Getenv, Selector: gatewaysel.Selector{TokenFile: in.TokenFile}})
	if err != nil {
		return Endpoint{}, nil, err
	}
	u, err := url.Parse(ep.URL)
	if err != nil {
		return Endpoint{}, nil, apperr.Statef("gateway URL %s: %v", ep.URL, err)
	}
	if !IsLoopbackHost(u.Hostname()) {
		return Endpoint{}, nil, apperr.Statef("no local OpenClaw gateway: the config points at the remote gateway %s (gateway.mode \"remote\"); give it with --gateway to use it", RedactURL(ep.URL))
	}
	port, _ := strconv.Atoi(u.Port())
	live := DetectLocal(DetectInput{StateDir: in.StateDir, ConfigPath: in.ConfigPath, Port: port, TmpDir: in.TmpDir})
	if live == nil {
		return Endpoint{}, nil, apperr.Statef("no OpenClaw gateway is running for the state dir %s (no live gateway lock, nothing listening on 127.0.0.1:%d); start it (openclaw gateway) or give --gateway URL", in.StateDir, port)
	}
	if live.Port > 0 && live.Port != port {
		u.Host = "127.0.0.1:" + strconv.Itoa(live.Port)
		ep.URL = u.String()
		ep.URLSource = "lock"
	}
	return ep, live, nil
}

// Connect dials ep as every command does: with this user's device key and
// device tokens (Options.WithDefaultDeviceFiles; without a user config dir
// to keep them in, without a device — enough on loopback, and a gateway
// that wants one says so), log (nil: none) for the debug lines, and dial
// (nil: Dial; tests inject fakes).
func Connect(ctx context.Context, ep Endpoint, dial func(context.Context, Options) (*Client, error), log func(string)) (*Client, error) {
	o, err := ep.Options().WithDefaultDeviceFiles()
	if err != nil {
		o = ep.Options()
		if log != nil {
			log("connecting without a device identity: " + err.Error())
		}
	}
	o.Log = log
	if dial == nil {
		dial = Dial
	}
	return dial(ctx, o)
}

// Probe connects to ep (the full handshake, so the credentials are
// checked) within timeout and closes again; nil: it answers and accepts
// them.
func Probe(ctx context.Context, ep Endpoint, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := Connect(ctx, ep, nil, nil)
	if err != nil {
		return err
	}
	return c.Close()
}

// Describe names a found gateway for a log line (never a secret).
func (l *LiveGateway) Describe() string {
	if l == nil {
		return "none"
	}
	if l.Via == "lock" {
		return fmt.Sprintf("pid %d (lock %s)", l.PID, l.LockPath)
	}
	return fmt.Sprintf("port %d answers", l.Port)
}
