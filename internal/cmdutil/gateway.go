package cmdutil

import (
	"github.com/openclaw/sessions/internal/gateway"
)

// GatewayEndpoints resolves the gateways this invocation selects (--gateway,
// --context, $OPENCLAW_GATEWAY_URL, the current context; see
// gateway.Resolve). An empty list: work on the local state dir. Secrets stay
// inside the endpoints; never print them.
func (f *Factory) GatewayEndpoints() ([]gateway.Endpoint, error) {
	in := gateway.Inputs{
		GatewayURL:  f.Flags.Gateway,
		TokenFile:   f.Flags.GatewayTokenFile,
		Insecure:    f.Flags.InsecureGateway,
		Fingerprint: f.Flags.GatewayFingerprint,
		Contexts:    f.Flags.Contexts,
		Getenv:      f.Getenv,
	}
	path, err := gateway.ContextsPath()
	if err == nil {
		if in.Store, err = gateway.LoadContexts(path); err != nil {
			return nil, err
		}
	} else if len(f.Flags.Contexts) > 0 {
		return nil, err
	}
	return gateway.Resolve(in)
}
