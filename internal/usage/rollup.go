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

// maxDims is len(Dimensions): a group key has a slot for each.
const maxDims = 10

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
	// Each dimension's values are interned, and a group is keyed by their
	// ids: no string is built per message.
	nd := len(opts.By)
	vals := make([]map[string]uint32, nd)
	names := make([][]string, nd)
	for k := range vals {
		vals[k] = map[string]uint32{}
	}
	intern := func(k int, v string) uint32 {
		id, ok := vals[k][v]
		if !ok {
			id = uint32(len(names[k]))
			vals[k][v] = id
			names[k] = append(names[k], v)
		}
		return id
	}
	groups := map[[maxDims]uint32]*Row{}
	// Time buckets: the last one found is reused while messages fall in it.
	type bucket struct {
		start, end int64
		id         uint32
		ok         bool
	}
	buckets := make([]bucket, nd)
	var key, lastKey [maxDims]uint32
	var last *Row
	// What each dimension depends on, decided once, not per message.
	kinds := make([]int, nd)
	for k, d := range opts.By {
		switch {
		case timeDim(d):
			kinds[k] = dimTime
		case d == "model" || d == "provider":
			kinds[k] = dimModel
		}
	}
	var perModel [][]uint32 // per source: the model dims' ids by model index
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
		// Session-level dimensions: once per source.
		for k, d := range opts.By {
			if !timeDim(d) && d != "model" && d != "provider" {
				key[k] = intern(k, dimValue(d, &src.Session, nil, Model{}, loc))
			}
		}
		perModel = perModel[:0]
		for _, md := range src.Models {
			ids := make([]uint32, nd)
			for k, d := range opts.By {
				if d == "model" || d == "provider" {
					ids[k] = intern(k, dimValue(d, &src.Session, nil, md, loc))
				}
			}
			perModel = append(perModel, ids)
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
			valid := int(r.Model) < len(src.Models)
			if valid {
				md = src.Models[r.Model]
			}
			for k, d := range opts.By {
				switch kinds[k] {
				case dimTime:
					b := &buckets[k]
					if !b.ok || r.TS < b.start || r.TS >= b.end {
						v, st, en := timeBucket(d, r.TS, loc)
						*b = bucket{start: st, end: en, id: intern(k, v), ok: true}
					}
					key[k] = b.id
				case dimModel:
					if valid {
						key[k] = perModel[r.Model][k]
					} else {
						key[k] = intern(k, "")
					}
				}
			}
			// Consecutive messages mostly share a group (same day, same
			// model): the last one is reused without a map lookup.
			g := last
			if g == nil || key != lastKey {
				if g = groups[key]; g == nil {
					g = &Row{Keys: make([]string, nd)}
					for k := range nd {
						g.Keys[k] = names[k][key[k]]
					}
					groups[key] = g
				}
				last, lastKey = g, key
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

// A dimension's dependence: on the session only, on the message's time, or
// on its model.
const (
	dimSession = iota
	dimTime
	dimModel
)

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

func timeDim(d string) bool { return d == "day" || d == "week" || d == "month" }

// timeBucket is the day, ISO week or month of ts in loc: its name and its
// bounds [start, end) in ms.
func timeBucket(d string, ts int64, loc *time.Location) (string, int64, int64) {
	t := time.UnixMilli(ts).In(loc)
	y, m, day := t.Date()
	switch d {
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		start := time.Date(y, m, day-wd, 0, 0, 0, 0, loc)
		iy, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", iy, w), start.UnixMilli(), start.AddDate(0, 0, 7).UnixMilli()
	case "month":
		start := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return t.Format("2006-01"), start.UnixMilli(), start.AddDate(0, 1, 0).UnixMilli()
	}
	start := time.Date(y, m, day, 0, 0, 0, 0, loc)
	return t.Format("2006-01-02"), start.UnixMilli(), start.AddDate(0, 0, 1).UnixMilli()
}

// dimValue is the value of a session's or a model's dimension d.
func dimValue(d string, s *Session, _ *Record, md Model, _ *time.Location) string {
	switch d {
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
