package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/when"
)

// UsageSchemaVersion is the version of the usage document.
const UsageSchemaVersion = 1

// UsageDimensions are what usage rolls up by.
var UsageDimensions = hostread.UsageDimensions

// ParseUsageBy checks and normalizes --by values (repeated or
// comma-separated dimensions).
func ParseUsageBy(by []string) ([]string, error) { return hostread.ParseUsageBy(by) }

// UsageTotals are the sums of a row: messages, tokens, cost.
type UsageTotals struct {
	Messages   int64 `json:"messages"`
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
	Total      int64 `json:"totalTokens"`
	// CostUSD is CostMicroUSD / 1e6, for reading; CostMicroUSD is exact.
	CostUSD      float64 `json:"costUsd"`
	CostMicroUSD int64   `json:"costMicroUsd"`
	// CostComputed counts the messages whose cost was computed from the
	// model's configured cost (OpenClaw recorded none); CostUnknown those
	// with neither (counted as 0).
	CostComputed int64 `json:"costComputedMessages"`
	CostUnknown  int64 `json:"costUnknownMessages"`
}

// UsageQuery is what a usage report asks for.
type UsageQuery struct {
	By              []string // dimensions, in order (at least one)
	Since, Until    string   // a duration back from now or a date (when.Parse)
	AllAgents       bool     // every agent the requester may see
	IncludeArchived bool     // reset and deleted transcripts too (each message once)
	NoCache         bool     // read everything; neither use nor update the cache
}

// UsageRow is one row of the document: its dimension values, then its sums.
type UsageRow struct {
	By     []string
	Keys   []string
	Totals UsageTotals
}

// MarshalJSON writes the dimensions first, in By order, then the sums.
func (r UsageRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, d := range r.By {
		k, _ := json.Marshal(d)
		v, _ := json.Marshal(r.Keys[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		b.WriteByte(',')
	}
	t, err := json.Marshal(r.Totals)
	if err != nil {
		return nil, err
	}
	b.Write(t[1:])
	return b.Bytes(), nil
}

// UsageFiles says how many transcript files (or stores) were read and how
// many came from the cache.
type UsageFiles struct {
	Total  int `json:"total"`
	Read   int `json:"read"`
	Cached int `json:"cached"`
}

// UsageResult is the document of `sessions usage --json`.
type UsageResult struct {
	SchemaVersion int         `json:"schema_version"`
	By            []string    `json:"by"`
	Since         string      `json:"since,omitempty"`
	Until         string      `json:"until,omitempty"`
	Count         int         `json:"count"`
	Rows          []UsageRow  `json:"rows"`
	Totals        UsageTotals `json:"totals"`
	Files         UsageFiles  `json:"files"`
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
	loc := time.Local
	now := o.Now()
	hq := &hostread.UsageQuery{By: q.By, Loc: loc, AllAgents: q.AllAgents, IncludeArchived: q.IncludeArchived, NoCache: q.NoCache, LockTimeout: o.cfg.LockTimeout}
	if q.Since != "" {
		if hq.Since, err = when.Parse(q.Since, now, loc, false); err != nil {
			return nil, apperr.Usagef("--since: %v", err)
		}
	}
	if q.Until != "" {
		if hq.Until, err = when.Parse(q.Until, now, loc, true); err != nil {
			return nil, apperr.Usagef("--until: %v", err)
		}
	}
	if hq.Since != 0 && hq.Until != 0 && hq.Until <= hq.Since {
		return nil, apperr.Usagef("--until must be later than --since")
	}
	a, err := h.(backend.UsageReader).Usage(ctx, hq)
	if err != nil {
		return nil, err
	}
	return usageResult(a, hq.Since, hq.Until), nil
}

// usageResult is the document of a usage answer over [since, until).
func usageResult(a *hostread.UsageAnswer, since, until int64) *UsageResult {
	r := &UsageResult{SchemaVersion: UsageSchemaVersion, By: a.By, Count: len(a.Rows), Rows: usageRows(a), Totals: UsageTotals(a.Totals),
		Files: UsageFiles{Total: a.Files, Read: a.Read, Cached: a.Cached}}
	if since != 0 {
		r.Since = time.UnixMilli(since).UTC().Format(time.RFC3339Nano)
	}
	if until != 0 {
		r.Until = time.UnixMilli(until).UTC().Format(time.RFC3339Nano)
	}
	return r
}

// usageRows are the rows of a usage answer, each with the dimensions.
func usageRows(a *hostread.UsageAnswer) []UsageRow {
	rows := make([]UsageRow, 0, len(a.Rows))
	for _, row := range a.Rows {
		rows = append(rows, UsageRow{By: a.By, Keys: row.Keys, Totals: UsageTotals(row.Totals)})
	}
	return rows
}
