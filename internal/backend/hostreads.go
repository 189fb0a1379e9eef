package backend

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/hostmetrics"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
)

// The host-only reads, as rclone's optional interfaces: a host that can
// answer one implements it, and the operations layer asks a host whether
// it does (h.(Searcher)) instead of keeping a list of what a gateway
// cannot do. Each reads the host's files themselves — no gateway RPC of
// OpenClaw 2026.1.30 or 2026.9.x gives the transcripts' full text, the
// usage lines, lock files, what doctor checks or OpenClaw's own sub-agent
// registry — so *local.Local implements them all (with the engines of
// internal/hostread, internal/hostmetrics) and *gatewayhost.Gateway none;
// the runs a send or spawn through a gateway recorded on this machine are
// a gatewayhost.RunHome.

// Searcher looks for a query in the host's transcripts and returns the
// hits (an index may answer it as well as a scan: the query says what is
// looked for, never how).
type Searcher interface {
	Search(ctx context.Context, q *hostread.SearchQuery) (*hostread.SearchAnswer, error)
}

// UsageReader sums the usage recorded on the host's assistant messages.
type UsageReader interface {
	Usage(ctx context.Context, q *hostread.UsageQuery) (*hostread.UsageAnswer, error)
}

// Doctor checks the host's state dir and repairs what is safe.
type Doctor interface {
	Doctor(ctx context.Context, q hostread.DoctorQuery) (*hostread.DoctorAnswer, error)
}

// SearchIndexKeeper shows, brings up to date, rebuilds or removes the
// host's search index (the cache search answers from).
type SearchIndexKeeper interface {
	SearchIndex(ctx context.Context, q hostread.IndexQuery) (*hostread.IndexAnswer, error)
}

// Completer gives a shell completion what it may offer on the host: its
// sessions (labelled: only those with a label), agents and runs, read
// without a write.
type Completer interface {
	SessionHints(ctx context.Context, labelled bool, warn func(string)) ([]hostread.SessionHint, error)
	AgentHints(ctx context.Context) ([]hostread.AgentHint, error)
	RunHints(ctx context.Context) ([]hostread.RunHint, error)
}

// LockLister lists the locks held on the host right now.
type LockLister interface {
	Locks(ctx context.Context) ([]hostread.Lock, error)
}

// RunLister lists the runs of sends and spawns recorded for a host, newest
// first, a dead runner's run ended as it is seen.
type RunLister interface {
	// Where names the host as a Reader does ("" for this host's state dir).
	Where() string
	Runs(ctx context.Context) ([]*runs.Record, error)
	// RunStore is where the runs are recorded (their change feed).
	RunStore() (*runs.Store, error)
}

// SubagentRegistry reads OpenClaw's own sub-agent registry of the host
// (only ever read).
type SubagentRegistry interface {
	OpenClawRuns(ctx context.Context, lockTimeout time.Duration) ([]*runs.Record, error)
}

// MetricsReader reads the host once for a Prometheus scrape, keeping in r
// what it may between scrapes (internal/hostmetrics). cw is where the
// host's warnings are written; say gets what went on.
type MetricsReader interface {
	ReadMetrics(ctx context.Context, r *hostmetrics.Reader, cw *hostmetrics.Warnings, say func(string)) *metrics.Snapshot
}
