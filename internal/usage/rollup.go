package usage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Dimensions a roll-up can group by, in the order they are documented.
var Dimensions = []string{"day", "week", "month", "model", "provider", "agent", "session", "kind", "channel", "cron"}

// IsDimension reports whether d is one of Dimensions.
func IsDimension(d string) bool { return slices.Contains(Dimensions, d) }

// ParseBy splits --by values ("day", "day,model", repeated) into dimensions,
// in order, without duplicates.
func ParseBy(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		for _, d := range strings.Split(v, ",") {
			d = strings.ToLower(strings.TrimSpace(d))
			if d == "" {
				continue
			}
			if !IsDimension(d) {
				return nil, fmt.Errorf("unknown --by %q (one of %s)", d, strings.Join(Dimensions, ", "))
			}
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// Session is what a roll-up knows of the session a transcript belongs to.
type Session struct {
	SessionID string
	Agent     string
	Key       string // as displayed; "" when no store entry names it
	Kind      string
	Channel   string
	CronJob   string // the cron job id of a cron session's key
	Archived  bool   // a reset/deleted copy or a 2026.8+ archive
}

// Source is one transcript's records and its session.
type Source struct {
	Session Session
	Models  []Model // what Records[i].Model indexes
	Records []Record
}

// Price is a model's configured cost per million tokens.
type Price struct{ Input, Output, CacheRead, CacheWrite float64 }

// Pricer returns the configured price of provider/model (ok false when the
// config has none).
type Pricer func(provider, model string) (Price, bool)

// Options of a roll-up.
type Options struct {
	By    []string
	Since int64 // ms, inclusive; 0 = no bound
	Until int64 // ms, exclusive; 0 = no bound
	Loc   *time.Location
	Price Pricer
}

// Totals are the sums of one row.
type Totals struct {
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

// Row is one group of a roll-up: its dimension values (in Options.By order)
// and its sums.
type Row struct {
	Keys []string
	Totals
}

// Report is a roll-up.
type Report struct {
	By     []string
	Rows   []Row
	Totals Totals
	// Duplicates counts the messages left out because another copy of the
	// same session (sessionId + entry id) was already counted.
	Duplicates int64
}

// Rollup groups the records of every source by opts.By, counting each
// message once: copies of a session (its live transcript, .reset/.deleted
// copies, 2026.8+ archives) share a sessionId, and an entry id seen in one
// of them is not counted again. Rows are ordered by their keys (times
// ascending as they sort as text).
func Rollup(srcs []Source, opts Options) Report {
	loc := opts.Loc
	if loc == nil {
		loc = time.UTC
	}
	rep := Report{By: slices.Clone(opts.By)}
	// Live copies first, so a message is attributed to the live session.
	order := make([]int, len(srcs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(btoi(srcs[a].Session.Archived), btoi(srcs[b].Session.Archived))
	})
	bySID := map[string]int{}
	for _, s := range srcs {
		bySID[s.Session.SessionID]++
	}
	seen := map[string]map[uint64]bool{} // only for sessionIds with several copies
	groups := map[string]*Row{}
	keys := make([]string, len(opts.By))
	for _, i := range order {
		src := &srcs[i]
		sid := src.Session.SessionID
		var dedupe map[uint64]bool
		if bySID[sid] > 1 {
			if dedupe = seen[sid]; dedupe == nil {
				dedupe = map[uint64]bool{}
				seen[sid] = dedupe
			}
		}
		for j := range src.Records {
			r := &src.Records[j]
			if opts.Since != 0 && r.TS < opts.Since || opts.Until != 0 && r.TS >= opts.Until {
				continue
			}
			if dedupe != nil && r.ID != 0 {
				if dedupe[r.ID] {
					rep.Duplicates++
					continue
				}
				dedupe[r.ID] = true
			}
			var md Model
			if int(r.Model) < len(src.Models) {
				md = src.Models[r.Model]
			}
			for k, d := range opts.By {
				keys[k] = dimValue(d, &src.Session, r, md, loc)
			}
			gk := strings.Join(keys, "\x00")
			g := groups[gk]
			if g == nil {
				g = &Row{Keys: slices.Clone(keys)}
				groups[gk] = g
			}
			add(&g.Totals, r, md, opts.Price)
			add(&rep.Totals, r, md, opts.Price)
		}
	}
	rep.Rows = make([]Row, 0, len(groups))
	for _, g := range groups {
		g.CostUSD = float64(g.CostMicroUSD) / 1e6
		rep.Rows = append(rep.Rows, *g)
	}
	rep.Totals.CostUSD = float64(rep.Totals.CostMicroUSD) / 1e6
	slices.SortFunc(rep.Rows, func(a, b Row) int { return slices.Compare(a.Keys, b.Keys) })
	return rep
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// add adds one message to t.
func add(t *Totals, r *Record, md Model, price Pricer) {
	t.Messages++
	t.Input += int64(r.Input)
	t.Output += int64(r.Output)
	t.CacheRead += int64(r.CacheRead)
	t.CacheWrite += int64(r.CacheWrite)
	t.Total += int64(r.Input) + int64(r.Output) + int64(r.CacheRead) + int64(r.CacheWrite)
	switch {
	case r.HasCost:
		t.CostMicroUSD += r.CostMicros
	case price != nil:
		if p, ok := price(md.Provider, md.Model); ok {
			t.CostMicroUSD += CostMicros(r, p)
			t.CostComputed++
		} else {
			t.CostUnknown++
		}
	default:
		t.CostUnknown++
	}
}

// CostMicros is a message's cost from a price per million tokens, in
// micro-USD: tokens × USD per million tokens = micro-USD.
func CostMicros(r *Record, p Price) int64 {
	v := float64(r.Input)*p.Input + float64(r.Output)*p.Output +
		float64(r.CacheRead)*p.CacheRead + float64(r.CacheWrite)*p.CacheWrite
	return int64(math.Round(v))
}

// dimValue is the value of dimension d for a record of a session.
func dimValue(d string, s *Session, r *Record, md Model, loc *time.Location) string {
	switch d {
	case "day":
		return time.UnixMilli(r.TS).In(loc).Format("2006-01-02")
	case "week":
		y, w := time.UnixMilli(r.TS).In(loc).ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case "month":
		return time.UnixMilli(r.TS).In(loc).Format("2006-01")
	case "model":
		return md.Model
	case "provider":
		return md.Provider
	case "agent":
		return s.Agent
	case "session":
		if s.Key != "" {
			return s.Key
		}
		return s.SessionID
	case "kind":
		return s.Kind
	case "channel":
		return s.Channel
	case "cron":
		return s.CronJob
	}
	return ""
}
