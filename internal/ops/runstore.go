package ops

import (
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/runs"
)

// runStore is where this invocation's runs are recorded: the home of the
// gateway it names (the runs send and spawn made through it), else the
// local state dir's.
func (o *Ops) runStore() (*runs.Store, error) {
	ep, err := o.namedGateway()
	if err != nil {
		return nil, err
	}
	if ep != nil {
		return o.gatewayRunStore(*ep)
	}
	s, err := o.State()
	if err != nil {
		return nil, err
	}
	return runs.Open(s.Dir.Path), nil
}

// gatewayRunStore is the run store kept on this machine for the runs made
// through ep (runs.GatewayHome).
func (o *Ops) gatewayRunStore(ep gateway.Endpoint) (*runs.Store, error) {
	home, err := runs.GatewayHome(o.cfg.Getenv, ep.URL, false)
	if err != nil {
		return nil, err
	}
	o.debug("runs through the gateway "+ep.String()+" are kept in "+home, "gateway", ep.String())
	return runs.Open(home), nil
}
