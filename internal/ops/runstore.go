package ops

import (
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/runs"
)

// gatewayRunStore is the run store kept on this machine for the runs made
// through ep (runs.GatewayHome): what RunStore returns for a named gateway,
// and each host's records of a fleet.
func (o *Ops) gatewayRunStore(ep gateway.Endpoint) (*runs.Store, error) {
	home, err := runs.GatewayHome(o.cfg.Getenv, ep.URL, false)
	if err != nil {
		return nil, err
	}
	o.debug("runs through the gateway "+ep.String()+" are kept in "+home, "gateway", ep.String())
	return runs.Open(home), nil
}
