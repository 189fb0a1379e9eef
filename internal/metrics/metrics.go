// Package metrics turns one reading of a host's OpenClaw state (a
// Snapshot: plain counts, sums and ages, gathered by the operations layer)
// into Prometheus metric families, and writes them in the Prometheus text
// format or OpenMetrics. It reads no file itself: what a scrape shows is
// what the Snapshot says.
package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	prometheus "github.com/openclaw/sessions/internal/promlite"
)

// Snapshot is one reading of the host's state, the document a scrape
// exposes. Every slice may be empty.
type Snapshot struct {
	Sessions    []SessionCount
	Active      []AgentCount // updated within the active window
	Busy        []AgentCount // turn lock held by a live process
	Locks       []LockStat
	Tokens      []TokenSum
	Messages    []MessageCount
	Runs        []RunCount
	Store       []StoreFile
	Schema      []AgentCount // the agent database's schema version (2026.8+ agents only)
	Doctor      []SeverityCount
	TopSessions []SessionTokens
	// Errors is how many parts of the reading failed (an unreadable or
	// corrupt store, a listing that could not be read): each is left out
	// and counted, never a failed scrape.
	Errors int
}

// SessionCount is the sessions of one agent, kind and channel in the
// store (Archived: the archived copies instead).
type SessionCount struct {
	Agent, Kind, Channel string
	Archived             bool
	N                    int
}

// AgentCount is one number for an agent.
type AgentCount struct {
	Agent string
	N     int
}

// LockStat is what the held locks of one agent and kind say.
type LockStat struct {
	Agent, Kind string
	Stale       int     // held by a dead process or past OpenClaw's stale age
	OldestAge   float64 // seconds, of the oldest lock a live process holds
}

// TokenSum is the usage of one agent, provider and model.
type TokenSum struct {
	Agent, Provider, Model               string
	Input, Output, CacheRead, CacheWrite int64
	CostMicroUSD                         int64
}

// MessageCount is the messages of one agent and role.
type MessageCount struct {
	Agent, Role string
	N           int64
}

// RunCount is the runs of one source and status.
type RunCount struct {
	Source, Status string
	N              int
}

// StoreFile is the size of one of an agent's store files (File: db, wal,
// sessions_json, transcripts).
type StoreFile struct {
	Agent, File string
	Bytes       int64
}

// SeverityCount is the doctor findings of one severity.
type SeverityCount struct {
	Severity string
	N        int
}

// SessionTokens is one session's token count (--per-session-top).
type SessionTokens struct {
	Agent, Key string
	Tokens     float64
}

// Build says which build of the tool answers.
type Build struct{ Version, Commit string }

// The metrics' descriptions, built on first use (by the metrics command
// alone, not by every process at start): initDescs.
var (
	descOnce                                                                                                                                 sync.Once
	allDescs                                                                                                                                 []*prometheus.Desc
	tokenTypes                                                                                                                               []string
	dSessions, dActive, dBusy, dStale, dOldest, dTokens, dCost, dMessages, dRuns, dStore, dSchema, dDoctor, dTop, dBuild, dDuration, dErrors *prometheus.Desc
)

func initDescs() {
	descOnce.Do(func() {
		dSessions = prometheus.NewDesc("openclaw_sessions", "Sessions in the agents' stores by kind and channel (archived=\"true\": archived copies).", []string{"agent", "kind", "channel", "archived"}, nil)
		dActive = prometheus.NewDesc("openclaw_sessions_active", "Sessions updated within the active window (--active).", []string{"agent"}, nil)
		dBusy = prometheus.NewDesc("openclaw_sessions_busy", "Sessions whose turn lock is held by a live process now.", []string{"agent"}, nil)
		dStale = prometheus.NewDesc("openclaw_locks_stale", "Locks held by a dead process or past OpenClaw's stale age.", []string{"agent", "kind"}, nil)
		dOldest = prometheus.NewDesc("openclaw_lock_oldest_age_seconds", "Age of the oldest lock a live process holds, by agent and kind.", []string{"agent", "kind"}, nil)
		dTokens = prometheus.NewDesc("openclaw_tokens_total", "Tokens OpenClaw recorded on assistant messages (the sums of sessions usage).", []string{"agent", "provider", "model", "type"}, nil)
		dCost = prometheus.NewDesc("openclaw_cost_usd_total", "Cost in USD of the assistant messages (the sums of sessions usage).", []string{"agent", "provider", "model"}, nil)
		dMessages = prometheus.NewDesc("openclaw_messages_total", "Messages counted by sessions usage, by role.", []string{"agent", "role"}, nil)
		dRuns = prometheus.NewDesc("openclaw_runs", "Runs by source (sessions: ours, openclaw: OpenClaw's sub-agent runs) and status.", []string{"source", "status"}, nil)
		dStore = prometheus.NewDesc("openclaw_store_bytes", "Size of an agent's store files (db, wal, sessions_json, transcripts).", []string{"agent", "file"}, nil)
		dSchema = prometheus.NewDesc("openclaw_store_schema_version", "Schema version (user_version) of an agent's 2026.8+ database.", []string{"agent"}, nil)
		dDoctor = prometheus.NewDesc("openclaw_doctor_findings", "Findings of sessions doctor still open, by severity.", []string{"severity"}, nil)
		dTop = prometheus.NewDesc("openclaw_session_tokens", "Tokens of the largest sessions (--per-session-top).", []string{"agent", "key"}, nil)
		dBuild = prometheus.NewDesc("sessions_build_info", "The build of sessions that answers the scrape.", []string{"version", "commit"}, nil)
		dDuration = prometheus.NewDesc("sessions_scrape_duration_seconds", "How long reading the state for this scrape took.", nil, nil)
		dErrors = prometheus.NewDesc("sessions_scrape_errors_total", "Parts of the state that could not be read, over every scrape of this process.", nil, nil)
		allDescs = []*prometheus.Desc{dSessions, dActive, dBusy, dStale, dOldest, dTokens, dCost, dMessages, dRuns, dStore, dSchema, dDoctor, dTop, dBuild, dDuration, dErrors}
		tokenTypes = []string{"input", "output", "cache_read", "cache_write"}
	})
}

// Collector reads a Snapshot on every collection (one scrape) and exposes
// it. Collections are serialised: two scrapes at once read the state once
// each, one after the other.
type Collector struct {
	build  Build
	gather func() *Snapshot
	mu     sync.Mutex
	errors atomic.Int64
}

// NewCollector returns a collector that calls gather once per scrape.
func NewCollector(b Build, gather func() *Snapshot) *Collector {
	return &Collector{build: b, gather: gather}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	initDescs()
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect reads a snapshot and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	initDescs()
	c.mu.Lock()
	defer c.mu.Unlock()
	t0 := time.Now()
	s := c.gather()
	if s == nil {
		s = &Snapshot{Errors: 1}
	}
	c.errors.Add(int64(s.Errors))
	Emit(s, ch)
	ch <- prometheus.MustNewConstMetric(dBuild, prometheus.GaugeValue, 1, c.build.Version, c.build.Commit)
	ch <- prometheus.MustNewConstMetric(dDuration, prometheus.GaugeValue, time.Since(t0).Seconds())
	ch <- prometheus.MustNewConstMetric(dErrors, prometheus.CounterValue, float64(c.errors.Load()))
}

// Emit sends the metrics of a snapshot (without the build, duration and
// error metrics of the collector), in a stable order.
func Emit(s *Snapshot, ch chan<- prometheus.Metric) {
	initDescs()
	g := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	ctr := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
	}
	for _, x := range mergeSessions(s.Sessions) {
		g(dSessions, float64(x.N), x.Agent, x.Kind, x.Channel, strconv.FormatBool(x.Archived))
	}
	for _, x := range mergeAgents(s.Active) {
		g(dActive, float64(x.N), x.Agent)
	}
	for _, x := range mergeAgents(s.Busy) {
		g(dBusy, float64(x.N), x.Agent)
	}
	locks := mergeLocks(s.Locks)
	for _, x := range locks {
		g(dStale, float64(x.Stale), x.Agent, x.Kind)
	}
	for _, x := range locks {
		g(dOldest, x.OldestAge, x.Agent, x.Kind)
	}
	tok := mergeTokens(s.Tokens)
	for _, x := range tok {
		for i, v := range []int64{x.Input, x.Output, x.CacheRead, x.CacheWrite} {
			ctr(dTokens, float64(v), x.Agent, x.Provider, x.Model, tokenTypes[i])
		}
	}
	for _, x := range tok {
		ctr(dCost, float64(x.CostMicroUSD)/1e6, x.Agent, x.Provider, x.Model)
	}
	for _, x := range mergeMessages(s.Messages) {
		ctr(dMessages, float64(x.N), x.Agent, x.Role)
	}
	for _, x := range mergeRuns(s.Runs) {
		g(dRuns, float64(x.N), x.Source, x.Status)
	}
	for _, x := range mergeStore(s.Store) {
		g(dStore, float64(x.Bytes), x.Agent, x.File)
	}
	for _, x := range mergeAgents(s.Schema) {
		g(dSchema, float64(x.N), x.Agent)
	}
	for _, x := range mergeSeverity(s.Doctor) {
		g(dDoctor, float64(x.N), x.Severity)
	}
	seen := map[[2]string]bool{}
	for _, x := range s.TopSessions {
		if k := [2]string{x.Agent, x.Key}; !seen[k] {
			seen[k] = true
			g(dTop, x.Tokens, x.Agent, x.Key)
		}
	}
}

// The merges sum rows with the same labels (a registry refuses two
// series with one label set) and sort them.

func mergeSessions(in []SessionCount) []SessionCount {
	return merge(in, func(x SessionCount) [4]string {
		return [4]string{x.Agent, x.Kind, x.Channel, strconv.FormatBool(x.Archived)}
	}, func(a *SessionCount, b SessionCount) { a.N += b.N })
}

func mergeAgents(in []AgentCount) []AgentCount {
	return merge(in, func(x AgentCount) [4]string { return [4]string{x.Agent} }, func(a *AgentCount, b AgentCount) { a.N += b.N })
}

func mergeLocks(in []LockStat) []LockStat {
	return merge(in, func(x LockStat) [4]string { return [4]string{x.Agent, x.Kind} }, func(a *LockStat, b LockStat) {
		a.Stale += b.Stale
		a.OldestAge = max(a.OldestAge, b.OldestAge)
	})
}

func mergeTokens(in []TokenSum) []TokenSum {
	return merge(in, func(x TokenSum) [4]string { return [4]string{x.Agent, x.Provider, x.Model} }, func(a *TokenSum, b TokenSum) {
		a.Input += b.Input
		a.Output += b.Output
		a.CacheRead += b.CacheRead
		a.CacheWrite += b.CacheWrite
		a.CostMicroUSD += b.CostMicroUSD
	})
}

func mergeMessages(in []MessageCount) []MessageCount {
	return merge(in, func(x MessageCount) [4]string { return [4]string{x.Agent, x.Role} }, func(a *MessageCount, b MessageCount) { a.N += b.N })
}

func mergeRuns(in []RunCount) []RunCount {
	return merge(in, func(x RunCount) [4]string { return [4]string{x.Source, x.Status} }, func(a *RunCount, b RunCount) { a.N += b.N })
}

func mergeStore(in []StoreFile) []StoreFile {
	return merge(in, func(x StoreFile) [4]string { return [4]string{x.Agent, x.File} }, func(a *StoreFile, b StoreFile) { a.Bytes += b.Bytes })
}

func mergeSeverity(in []SeverityCount) []SeverityCount {
	return merge(in, func(x SeverityCount) [4]string { return [4]string{x.Severity} }, func(a *SeverityCount, b SeverityCount) { a.N += b.N })
}

func merge[T any](in []T, key func(T) [4]string, add func(*T, T)) []T {
	idx := map[[4]string]int{}
	var out []T
	for _, x := range in {
		k := key(x)
		if i, ok := idx[k]; ok {
			add(&out[i], x)
			continue
		}
		idx[k] = len(out)
		out = append(out, x)
	}
	slices.SortStableFunc(out, func(a, b T) int {
		ka, kb := key(a), key(b)
		for i := range ka {
			if c := cmp.Compare(ka[i], kb[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}
