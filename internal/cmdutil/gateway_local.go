package cmdutil

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// ProbeTimeout bounds the handshake that checks a local gateway accepts
// the config's credentials (auto engine, patch routing).
var ProbeTimeout = 3 * time.Second

// LocalGateway is this host's live gateway for the state dir, with the
// config's credentials (gateway.FindLocal); exit 10 when none runs.
func (f *Factory) LocalGateway(s *state.State) (gateway.Endpoint, *gateway.LiveGateway, error) {
	cfgPath := ""
	if s.Cfg.Exists {
		cfgPath = s.Cfg.Path
	}
	return gateway.FindLocal(gateway.LocalInput{
		StateDir: s.Dir.Path, ConfigPath: cfgPath, Config: s.Cfg.Raw,
		Getenv: f.Getenv, TokenFile: f.Flags.GatewayTokenFile,
	})
}

// TurnGateway is the gateway a `gateway` engine turn runs in: the one
// endpoint the invocation names (--gateway, --context, $OPENCLAW_GATEWAY_URL,
// the current context), else this host's live gateway (LocalGateway).
// Several contexts are a usage error: a turn runs on one host.
func (f *Factory) TurnGateway(s *state.State) (gateway.Endpoint, error) {
	eps, err := f.GatewayEndpoints()
	if err != nil {
		return gateway.Endpoint{}, err
	}
	switch len(eps) {
	case 0:
		ep, live, err := f.LocalGateway(s)
		if err != nil {
			return gateway.Endpoint{}, err
		}
		f.Log.Debug("gateway engine: this host's gateway", "url", ep.URL, "auth", ep.AuthSource, "found", live.Describe())
		return ep, nil
	case 1:
		return eps[0], nil
	}
	return gateway.Endpoint{}, apperr.Usagef("the gateway engine runs a turn in one gateway; %d contexts were given", len(eps))
}

// ProbeLocalGateway: a live local gateway that accepts the config's
// credentials (the handshake), or why not — the auto engine's gateway test.
func (f *Factory) ProbeLocalGateway(s *state.State) (string, error) {
	ep, live, err := f.LocalGateway(s)
	if err != nil {
		return "", err
	}
	if ep.Token == "" && ep.Password == "" {
		return "", apperr.Statef("a gateway runs (%s) but the config has no credentials for it (gateway.auth.token/password): skipped", live.Describe())
	}
	if err := gateway.Probe(context.Background(), ep, ProbeTimeout); err != nil {
		return "", apperr.Statef("a gateway runs (%s) but did not accept the config's credentials at %s: %v", live.Describe(), ep.URL, err)
	}
	return ep.URL + " (" + live.Describe() + ")", nil
}
