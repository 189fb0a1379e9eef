package local

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostmetrics"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// The host-only reads of this host's state dir (hostreads.go), each the
// engine of internal/hostread over the invocation's state.

// Search looks for q in the transcripts of the sessions the requester may
// see; the scan's warnings are warned here, in order.
func (l *Local) Search(ctx context.Context, q *hostread.SearchQuery) (*hostread.SearchAnswer, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	if x := q.Index; x != nil && (x.Debug == nil || (x.Build != nil && x.Background == nil)) {
		xc := *x
		if xc.Debug == nil {
			xc.Debug = func(msg string) { l.debug(msg) }
		}
		if xc.Build != nil && xc.Background == nil {
			xc.Background = l.indexBuilder(s, xc.Build)
		}
		qc := *q
		qc.Index = &xc
		q = &qc
	}
	a, err := hostread.Search(s, q)
	if err != nil {
		return nil, err
	}
	for _, w := range a.Warnings {
		l.warn(w)
	}
	return a, nil
}

// Usage rolls up the usage of the sessions the requester may see.
func (l *Local) Usage(ctx context.Context, q *hostread.UsageQuery) (*hostread.UsageAnswer, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.Usage(s, q, l.warn, l.debug)
}

// Doctor checks this host's state dir (the host operator only).
func (l *Local) Doctor(ctx context.Context, q hostread.DoctorQuery) (*hostread.DoctorAnswer, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.Doctor(ctx, s, q)
}

// Locks are the locks held under this host's state dir, oldest first.
func (l *Local) Locks(ctx context.Context) ([]hostread.Lock, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.Locks(s, l.now()), nil
}

// SessionHints are the sessions of this host's state dir a completion may
// offer.
func (l *Local) SessionHints(ctx context.Context, labelled bool, warn func(string)) ([]hostread.SessionHint, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.SessionHints(s, labelled, warn), nil
}

// AgentHints are the agents of this host's state dir a completion may offer.
func (l *Local) AgentHints(ctx context.Context) ([]hostread.AgentHint, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.AgentHints(s), nil
}

// RunHints are the runs recorded in this host's state dir a completion may
// offer (read only: no dead runner's run is ended here).
func (l *Local) RunHints(ctx context.Context) ([]hostread.RunHint, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.RunHints(s)
}

// RunStore is where our runs are recorded in this host's state dir.
func (l *Local) RunStore() (*runs.Store, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return runs.Open(s.Dir.Path), nil
}

// Runs are our runs recorded in this host's state dir.
func (l *Local) Runs(ctx context.Context) ([]*runs.Record, error) {
	rs, err := l.RunStore()
	if err != nil {
		return nil, err
	}
	return hostread.OurRuns(rs, l.now())
}

// OpenClawRuns are OpenClaw's own sub-agent runs of this host.
func (l *Local) OpenClawRuns(ctx context.Context, lockTimeout time.Duration) ([]*runs.Record, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return runs.OpenClawRuns(s.Dir.Path, lockTimeout, l.warn), nil
}

// warn prints a warning of this host's (nil Warn: dropped).
func (l *Local) warn(msg string) {
	if l.Warn != nil {
		l.Warn(msg)
	}
}

// ReadMetrics reads this host's state once for a scrape.
func (l *Local) ReadMetrics(ctx context.Context, r *hostmetrics.Reader, cw *hostmetrics.Warnings, say func(string)) *metrics.Snapshot {
	return r.Read(ctx, scrapeHost{l}, cw, say)
}

// scrapeHost is this host as a metrics reading reads it
// (hostmetrics.Host).
type scrapeHost struct{ l *Local }

func (h scrapeHost) State() (*state.State, error) { return h.l.State() }

func (h scrapeHost) List(ctx context.Context, all bool) ([]state.Row, error) {
	lr, err := h.l.List(ctx, backend.ListQuery{Limit: -1, AllAgents: all, Now: h.l.now()})
	if err != nil {
		return nil, err
	}
	return lr.Rows, nil
}

func (h scrapeHost) Usage(ctx context.Context, q *hostread.UsageQuery) (*hostread.UsageAnswer, error) {
	return h.l.Usage(ctx, q)
}

func (h scrapeHost) Doctor(ctx context.Context, q hostread.DoctorQuery) (*hostread.DoctorAnswer, error) {
	return h.l.Doctor(ctx, q)
}

func (h scrapeHost) OpenClawRuns(ctx context.Context, lockTimeout time.Duration) ([]*runs.Record, error) {
	return h.l.OpenClawRuns(ctx, lockTimeout)
}

func (h scrapeHost) ForAgent(agent string) hostmetrics.Host { return scrapeHost{h.l.ForAgent(agent)} }
func (h scrapeHost) Now() time.Time                         { return h.l.now() }
func (h scrapeHost) Warn(msg string)                        { h.l.warn(msg) }
func (h scrapeHost) Debug(msg string)                       { h.l.debug(msg) }
