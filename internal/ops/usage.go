package ops

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/hostread"
)

// UsageSchemaVersion is the version of the usage document.
const UsageSchemaVersion = hostdoc.UsageSchemaVersion

// UsageDimensions are what usage rolls up by.
var UsageDimensions = hostread.UsageDimensions

// ParseUsageBy checks and normalizes --by values (repeated or
// comma-separated dimensions).
func ParseUsageBy(by []string) ([]string, error) { return hostread.ParseUsageBy(by) }

// The documents of `sessions usage --json` (internal/hostdoc).
type (
	UsageResult = hostdoc.UsageResult // the document
	UsageRow    = hostdoc.UsageRow    // one row: its dimension values, then its sums
	UsageTotals = hostdoc.UsageTotals // the sums of a row: messages, tokens, cost
	UsageFiles  = hostdoc.UsageFiles  // the transcript files (or stores) read, and from the cache
)

// UsageQuery is what a usage report asks for.
type UsageQuery struct {
	By              []string // dimensions, in order (at least one)
	Since, Until    string   // a duration back from now or a date (when.Parse)
	AllAgents       bool     // every agent the requester may see
	IncludeArchived bool     // reset and deleted transcripts too (each message once)
	NoCache         bool     // read everything; neither use nor update the cache
}

// Usage sums the usage OpenClaw recorded on the assistant messages of the
// sessions the requester may see on this host, rolled up by q.By: JSONL
// transcripts and 2026.8+ SQLite stores, each file read again only when it
// changed (the usage cache) unless q.NoCache. Invalid times are usage
// errors (exit 2); not through a gateway (exit 2).
func (o *Ops) Usage(ctx context.Context, q UsageQuery) (*UsageResult, error) {
	v, err := o.usage(ctx, q)
	return deliver(o, v, err)
}

// usage is Usage before the agent boundary.
func (o *Ops) usage(ctx context.Context, q UsageQuery) (*UsageResult, error) {
	h, err := o.readHost(ReadUsage)
	if err != nil {
		return nil, err
	}
	hq := &hostread.UsageQuery{By: q.By, Loc: time.Local, AllAgents: q.AllAgents, IncludeArchived: q.IncludeArchived, NoCache: q.NoCache, LockTimeout: o.cfg.LockTimeout}
	if err := hq.Window(q.Since, q.Until, o.Now()); err != nil {
		return nil, err
	}
	a, err := h.(backend.UsageReader).Usage(ctx, hq)
	if err != nil {
		return nil, err
	}
	return a.Doc(hq.Since, hq.Until), nil
}
