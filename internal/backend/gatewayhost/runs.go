package gatewayhost

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/runs"
)

// RunHome are the runs made through one gateway, recorded on this
// machine (runs.GatewayHome): what `sessions runs` lists for a gateway.
type RunHome struct {
	// Name is the gateway as messages name it; Context its context name
	// (or URL), the rows' "context" over a fleet.
	Name, Context string
	// Open opens the runs store kept for the gateway.
	Open func() (*runs.Store, error)
	Now  func() time.Time
}

// Where is the gateway's context name (or URL).
func (g *RunHome) Where() string { return g.Context }

// String names the gateway in messages.
func (g *RunHome) String() string { return g.Name }

// RunStore is the runs store kept for the gateway.
func (g *RunHome) RunStore() (*runs.Store, error) { return g.Open() }

// Runs are the runs recorded for the gateway.
func (g *RunHome) Runs(ctx context.Context) ([]*runs.Record, error) {
	rs, err := g.Open()
	if err != nil {
		return nil, err
	}
	return hostread.OurRuns(rs, g.Now())
}

var _ backend.RunLister = (*RunHome)(nil)
