package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/usage"
	"github.com/openclaw/sessions/internal/when"
)

// UsageSchemaVersion is the version of the usage document.
const UsageSchemaVersion = 1

// usageMemoryLimit is the soft heap limit of a usage run (runtime/debug).
const usageMemoryLimit = 40 << 20

// UsageDimensions are what usage rolls up by.
var UsageDimensions = usage.Dimensions

// ParseUsageBy checks and normalizes --by values (repeated or
// comma-separated dimensions).
func ParseUsageBy(by []string) ([]string, error) { return usage.ParseBy(by) }

// UsageTotals are the sums of a row: messages, tokens, cost.
type UsageTotals = usage.Totals

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
	if err := o.refuseGateway("usage"); err != nil {
		return nil, err
	}
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	loc := time.Local
	now := o.Now()
	ropts := usage.Options{By: q.By, Loc: loc, Price: pricer(s.Cfg)}
	if q.Since != "" {
		if ropts.Since, err = when.Parse(q.Since, now, loc, false); err != nil {
			return nil, apperr.Usagef("--since: %v", err)
		}
	}
	if q.Until != "" {
		if ropts.Until, err = when.Parse(q.Until, now, loc, true); err != nil {
			return nil, apperr.Usagef("--until: %v", err)
		}
	}
	if ropts.Since != 0 && ropts.Until != 0 && ropts.Until <= ropts.Since {
		return nil, apperr.Usagef("--until must be later than --since")
	}
	// A soft heap limit (unless $GOMEMLIMIT sets one): a scan's garbage is
	// collected before it grows the process beyond what the records need.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(usageMemoryLimit))
	}
	t0 := time.Now()
	units, cat, err := o.usageUnits(s, &q)
	if err != nil {
		return nil, err
	}
	var cache *usage.Cache
	var tLoad time.Duration
	if !q.NoCache {
		tl := time.Now()
		if dir, derr := usage.CacheDir(); derr == nil {
			cache = usage.OpenCache(dir, s.Dir.Path)
			if cache.Ignored != "" {
				o.debug(fmt.Sprintf("usage: cache %s ignored: %s", cache.Path(), cache.Ignored))
			}
		} else {
			o.debug("usage: no cache dir: " + derr.Error())
		}
		tLoad = time.Since(tl)
	}
	t1 := time.Now()
	parts, stats := usage.Collect(units, cache, 0, o.warn)
	t2 := time.Now()
	o.debug(fmt.Sprintf("usage: %d of %d files read, %d from cache", stats.Read, stats.Units, stats.Cached))
	if cache != nil {
		if err := cache.Save(); err != nil {
			o.debug("usage: cache not saved: " + err.Error())
		}
	}
	srcs, skips, skipFiles := cat.sources(s, parts)
	if skips.Total() > 0 {
		o.warn(fmt.Sprintf("usage: skipped %d transcript line(s) in %d file(s): %s", skips.Total(), skipFiles, describeSkips(skips)))
	}
	rep := usage.Rollup(srcs, ropts)
	o.debug(fmt.Sprintf("usage: timings: discover %s, cache load %s, scan %s, roll-up %s",
		(t1.Sub(t0) - tLoad).Round(time.Millisecond/10), tLoad.Round(time.Millisecond/10), t2.Sub(t1).Round(time.Millisecond/10), time.Since(t2).Round(time.Millisecond/10)))
	return usageResult(rep, ropts, stats), nil
}

func describeSkips(sk usage.Skips) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{sk.InvalidUTF8, "invalid UTF-8"}, {sk.Corrupt, "not JSON"}, {sk.Torn, "torn last line"}, {sk.Oversize, "longer than 16 MiB"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

func usageResult(rep usage.Report, o usage.Options, st usage.Stats) *UsageResult {
	r := &UsageResult{SchemaVersion: UsageSchemaVersion, By: rep.By, Count: len(rep.Rows), Rows: []UsageRow{}, Totals: rep.Totals,
		Files: UsageFiles{Total: st.Units, Read: st.Read, Cached: st.Cached}}
	if o.Since != 0 {
		r.Since = time.UnixMilli(o.Since).UTC().Format(time.RFC3339Nano)
	}
	if o.Until != 0 {
		r.Until = time.UnixMilli(o.Until).UTC().Format(time.RFC3339Nano)
	}
	for _, row := range rep.Rows {
		r.Rows = append(r.Rows, UsageRow{By: rep.By, Keys: row.Keys, Totals: row.Totals})
	}
	return r
}

// pricer looks a model's configured cost up in openclaw.json.
func pricer(cfg *config.Config) usage.Pricer {
	return func(provider, model string) (usage.Price, bool) {
		p, ok := cfg.Models.Providers[provider]
		if !ok {
			return usage.Price{}, false
		}
		for _, m := range p.Models {
			if m.ID == model && m.Cost != nil {
				return usage.Price{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite}, true
			}
		}
		return usage.Price{}, false
	}
}
