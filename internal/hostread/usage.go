package hostread

import (
	"fmt"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/when"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// UsageMemoryLimit is the soft heap limit of a usage run (runtime/debug).
const UsageMemoryLimit = 40 << 20

// UsageQuery is a usage report of this host's transcripts.
type UsageQuery struct {
	By              []string // dimensions, in order (at least one; usage.ParseBy)
	Since, Until    int64    // ms since the epoch (0: unbounded)
	Loc             *time.Location
	AllAgents       bool // every agent the requester may see
	IncludeArchived bool // reset and deleted transcripts too (each message once)
	NoCache         bool // read everything; neither use nor update the cache
	// LockTimeout bounds the wait for a SQLite store's read.
	LockTimeout time.Duration
}

// Window sets Since and Until from --since and --until (when.Parse in
// q.Loc: a duration back from now or a date; "": unbounded): an invalid
// time, or an until not later than since, is a usage error (exit 2).
func (q *UsageQuery) Window(since, until string, now time.Time) error {
	var err error
	if since != "" {
		if q.Since, err = when.Parse(since, now, q.Loc, false); err != nil {
			return apperr.Usagef("--since: %v", err)
		}
	}
	if until != "" {
		if q.Until, err = when.Parse(until, now, q.Loc, true); err != nil {
			return apperr.Usagef("--until: %v", err)
		}
	}
	if q.Since != 0 && q.Until != 0 && q.Until <= q.Since {
		return apperr.Usagef("--until must be later than --since")
	}
	return nil
}

// UsageRow is one row of a report: its dimension values and its sums.
type UsageRow struct {
	Keys   []string
	Totals usage.Totals
}

// UsageAnswer is a usage report: the rows rolled up by By, the sums, and
// how many files (or stores) were read and how many came from the cache.
type UsageAnswer struct {
	By                  []string
	Rows                []UsageRow
	Totals              usage.Totals
	Files, Read, Cached int
}

// Usage sums the usage OpenClaw recorded on the assistant messages of the
// sessions the requester of s may see, rolled up by q.By: JSONL
// transcripts and 2026.8+ SQLite stores, each file read again only when it
// changed (the usage cache) unless q.NoCache. warn gets what the
// operator should know (skipped lines), debug the rest.
func Usage(s *state.State, q *UsageQuery, warn func(string), debugf func(string, ...any)) (*UsageAnswer, error) {
	// A soft heap limit (unless $GOMEMLIMIT sets one): a scan's garbage is
	// collected before it grows the process beyond what the records need.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(UsageMemoryLimit))
	}
	t0 := time.Now()
	endBurst := func() {}
	defer func() { endBurst() }()
	files, err := listUsageFiles(s, q, &endBurst)
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
				debugf(fmt.Sprintf("usage: cache %s ignored: %s", cache.Path(), cache.Ignored))
			}
		} else {
			debugf("usage: no cache dir: " + derr.Error())
		}
		tLoad = time.Since(tl)
	}
	t1 := time.Now()
	parts, stats := usage.Collect(files.Units, cache, 0, warn)
	t2 := time.Now()
	debugf(fmt.Sprintf("usage: %d of %d files read, %d from cache", stats.Read, stats.Units, stats.Cached))
	if cache != nil {
		if err := cache.Save(); err != nil {
			debugf("usage: cache not saved: " + err.Error())
		}
	}
	rep := files.rollup(s, parts, q, warn)
	debugf(fmt.Sprintf("usage: timings: discover %s, cache load %s, scan %s, roll-up %s",
		(t1.Sub(t0) - tLoad).Round(time.Millisecond/10), tLoad.Round(time.Millisecond/10), t2.Sub(t1).Round(time.Millisecond/10), time.Since(t2).Round(time.Millisecond/10)))
	return answer(rep, stats), nil
}

// UsageFiles are the files (or stores) a usage report reads, as the
// coverage of sources.go lists them, and whose sessions each holds.
type UsageFiles struct {
	Units []usage.Unit
	cat   *usageCatalog
}

// ListUsageFiles lists the files a usage report of q reads.
func ListUsageFiles(s *state.State, q *UsageQuery) (*UsageFiles, error) {
	return listUsageFiles(s, q, nil)
}

// listUsageFiles is ListUsageFiles, with a heap burst for a usage process
// (burst: usageUnits).
func listUsageFiles(s *state.State, q *UsageQuery, burst *func()) (*UsageFiles, error) {
	units, cat, err := usageUnits(s, q, q.LockTimeout, burst)
	if err != nil {
		return nil, err
	}
	return &UsageFiles{Units: units, cat: cat}, nil
}

// Unit is what the listing knows of unit i: its agent, and the sessionId
// of a transcript file ("" for an agent's SQLite store).
func (f *UsageFiles) Unit(i int) (agent, sessionID string) {
	return f.cat.units[i].agent, f.cat.units[i].sessionID
}

// Only is the listing of the units keep (indexes into Units) as units
// gives them now (their stamps).
func (f *UsageFiles) Only(keep []int, units []usage.Unit) *UsageFiles {
	cat := *f.cat
	cat.units = make([]usageUnitInfo, len(keep))
	for j, i := range keep {
		cat.units[j] = f.cat.units[i]
	}
	return &UsageFiles{Units: units, cat: &cat}
}

// Roll attaches the parts read of the units (usage.Collect) to their
// sessions, leaving out what the requester may not see, and rolls them up
// as q says: the rows of Usage's answer.
func (f *UsageFiles) Roll(s *state.State, parts [][]usage.Part, q *UsageQuery, warn func(string)) []UsageRow {
	return answer(f.rollup(s, parts, q, warn), usage.Stats{}).Rows
}

// rollup attaches the parts read to their sessions and rolls them up,
// warning of the lines skipped.
func (f *UsageFiles) rollup(s *state.State, parts [][]usage.Part, q *UsageQuery, warn func(string)) usage.Report {
	srcs, skips, skipFiles := f.cat.sources(s, parts)
	if skips.Total() > 0 {
		warn(fmt.Sprintf("usage: skipped %d transcript line(s) in %d file(s): %s", skips.Total(), skipFiles, describeSkips(skips)))
	}
	return usage.Rollup(srcs, usage.Options{By: q.By, Since: q.Since, Until: q.Until, Loc: q.Loc, Price: pricer(s.Cfg)})
}

func answer(rep usage.Report, st usage.Stats) *UsageAnswer {
	a := &UsageAnswer{By: rep.By, Rows: make([]UsageRow, 0, len(rep.Rows)), Totals: rep.Totals, Files: st.Units, Read: st.Read, Cached: st.Cached}
	for _, row := range rep.Rows {
		a.Rows = append(a.Rows, UsageRow{Keys: row.Keys, Totals: row.Totals})
	}
	return a
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

// UsageDimensions are what usage rolls up by.
var UsageDimensions = usage.Dimensions

// ParseUsageBy checks and normalizes --by values (repeated or
// comma-separated dimensions).
func ParseUsageBy(by []string) ([]string, error) { return usage.ParseBy(by) }

// Doc is the document of the answer over [since, until) (ms since the
// epoch, 0: open), each row with the dimensions.
func (a *UsageAnswer) Doc(since, until int64) *hostdoc.UsageResult {
	rows := make([]hostdoc.UsageRow, 0, len(a.Rows))
	for _, row := range a.Rows {
		rows = append(rows, hostdoc.UsageRow{By: a.By, Keys: row.Keys, Totals: hostdoc.UsageTotals(row.Totals)})
	}
	r := &hostdoc.UsageResult{SchemaVersion: hostdoc.UsageSchemaVersion, By: a.By, Count: len(a.Rows), Rows: rows, Totals: hostdoc.UsageTotals(a.Totals),
		Files: hostdoc.UsageFiles{Total: a.Files, Read: a.Read, Cached: a.Cached}}
	if since != 0 {
		r.Since = time.UnixMilli(since).UTC().Format(time.RFC3339Nano)
	}
	if until != 0 {
		r.Until = time.UnixMilli(until).UTC().Format(time.RFC3339Nano)
	}
	return r
}
