package cmdutil

import (
	"github.com/openclaw/sessions/internal/era"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// WriteOptions are the sessionwrite options of this invocation: the lock
// timeout, the clock and its gateways (sessionwrite.Choose): the one it
// names, and this host's live gateway for s (nil s: a named gateway only).
// Several gateways are a usage error: send, spawn and wait work on one host.
func (f *Factory) WriteOptions(s *state.State) (sessionwrite.Options, error) {
	now := f.Now
	if now == nil {
		now = time.Now
	}
	o := sessionwrite.Options{LockTimeout: f.Flags.LockTimeout, Now: now}
	eps, err := f.GatewayEndpoints()
	if err != nil {
		return o, err
	}
	g := &sessionwrite.Gateways{Log: func(m string) { f.Log.Debug(m) }}
	switch {
	case len(eps) > 1 || slices.ContainsFunc(f.Flags.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") }):
		return o, apperr.Usagef("send, spawn and wait work on one host: give one --context (or --gateway URL), not %d contexts", len(eps))
	case len(eps) == 1:
		g.Named = &eps[0]
	case s != nil:
		g.Local = func() (gateway.Endpoint, string, error) {
			ep, live, err := f.LocalGateway(s)
			return ep, live.Describe(), err
		}
	}
	o.Gateways = g
	return o, nil
}

// WriteRoute is where agent's session writes go for this invocation
// (sessionwrite.Choose), said at debug level when it is a gateway.
func (f *Factory) WriteRoute(s *state.State, agent, what string) (sessionwrite.Route, sessionwrite.Options, error) {
	o, err := f.WriteOptions(s)
	if err != nil {
		return sessionwrite.Route{}, o, err
	}
	r, err := sessionwrite.Choose(s, agent, o)
	if err != nil {
		return r, o, err
	}
	switch {
	case r.Era == era.Gateway:
		f.Log.Debug(what+": "+r.Why, "gateway", r.Endpoint.URL, "auth", r.Endpoint.AuthSource)
	case r.Why != "":
		f.Log.Debug(what+": "+r.Why+"; writing locally", "agent", agent)
	}
	return r, o, nil
}
