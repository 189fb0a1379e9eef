package ops

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
	"github.com/prometheus/client_golang/prometheus"
)

// MetricsQuery is what a scrape of this host's state reads.
type MetricsQuery struct {
	// AllAgents: every agent (the default of sessions metrics); else
	// Config.Agent's, or the requester's.
	AllAgents bool
	// Active is the window of openclaw_sessions_active (0: 60 minutes).
	Active time.Duration
	// PerSessionTop adds the N largest sessions by tokens as
	// openclaw_session_tokens{agent,key} (0: none).
	PerSessionTop int
	// DoctorEvery reuses doctor's findings for this long between scrapes
	// (0: every scrape checks again). Doctor reads every transcript; the
	// rest of a scrape reads only what changed.
	DoctorEvery time.Duration
	// Version and Commit are the build's (sessions_build_info).
	Version, Commit string
}

// Metrics exposes this host's state to Prometheus: each scrape
// (Gatherer, Write) reads the state afresh through the operations of
// list, locks, usage, runs and doctor, reusing what an earlier scrape
// read where the files did not change (the store cache, the usage cache).
// A part that cannot be read is left out and counted in
// sessions_scrape_errors_total; a scrape never fails for it, never takes
// a lock and never writes to the state dir.
type Metrics struct {
	cfg  Config
	q    MetricsQuery
	reg  *prometheus.Registry
	warn func(string)

	mu       sync.Mutex
	doctorAt time.Time
	doctor   []metrics.SeverityCount
	doctorOK bool
}

// NewMetrics prepares the scrapes of this host's state dir; nothing is
// read yet. Through a gateway it is refused (exit 2), as usage and doctor.
func NewMetrics(c Config, q MetricsQuery) (*Metrics, error) {
	if err := New(c).CheckHostOnly("metrics"); err != nil {
		return nil, err
	}
	if c.Cache == nil {
		c.Cache = NewStoreCache()
	}
	if q.Active <= 0 {
		q.Active = time.Hour
	}
	m := &Metrics{cfg: c, q: q}
	if c.Log != nil {
		m.warn = func(s string) { c.Log.Debug("metrics: " + s) }
	} else {
		m.warn = func(string) {}
	}
	m.reg = metrics.Registry(metrics.NewCollector(metrics.Build{Version: q.Version, Commit: q.Commit}, m.Snapshot))
	return m, nil
}

// Gatherer is what a scrape gathers (for an HTTP handler).
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Write gathers once and writes the Prometheus text format (OpenMetrics
// with openMetrics).
func (m *Metrics) Write(w io.Writer, openMetrics bool) error {
	return metrics.Write(w, m.reg, openMetrics)
}

// countingWriter counts the lines a reading's logger writes: each warning
// of list, locks, usage or runs is a part of the state not read as it is.
type countingWriter struct {
	mu    sync.Mutex
	lines []string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			w.lines = append(w.lines, string(l))
		}
	}
	return len(p), nil
}

// Snapshot reads the state once (one scrape) with a fresh Ops sharing the
// store cache.
func (m *Metrics) Snapshot() *metrics.Snapshot {
	ctx := context.Background()
	cw := &countingWriter{}
	c := m.cfg
	c.Log = log.NewWithOptions(cw, log.Options{Level: log.WarnLevel})
	o := New(c)
	snap := &metrics.Snapshot{}
	fail := func(what string, err error) {
		snap.Errors++
		m.warn(what + ": " + err.Error())
	}
	all := m.q.AllAgents && c.Agent == ""
	s, err := o.openState()
	if err != nil {
		fail("state", err)
		return snap
	}
	defer s.Close() // the SQLite handles of this scrape (the parsed stores stay cached)
	agents, err := s.AgentsInScope(all)
	if err != nil {
		fail("agents", err)
		return snap
	}
	inScope := map[string]bool{}
	for _, a := range agents {
		inScope[a] = true
	}
	now := o.Now()

	// sessions: the listing's rows, as sessions list --json --all-agents
	active := map[string]int{}
	rows, lerrs := metricsEach(o, c, all, agents, func(o *Ops) ([]state.Row, error) {
		lr, err := o.List(ctx, ListQuery{Limit: -1, AllAgents: all})
		if err != nil {
			return nil, err
		}
		return lr.Sessions, nil
	})
	for _, err := range lerrs {
		fail("list", err)
	}
	{
		type top struct {
			agent, key string
			tokens     float64
		}
		var tops []top
		for _, r := range rows {
			snap.Sessions = append(snap.Sessions, metrics.SessionCount{Agent: r.AgentID, Kind: r.Kind, Channel: r.Channel, N: 1})
			if r.UpdatedAt != nil && now.Sub(time.UnixMilli(int64(*r.UpdatedAt))) <= m.q.Active {
				active[r.AgentID]++
			}
			if m.q.PerSessionTop > 0 && r.TotalTokens != nil {
				tops = append(tops, top{r.AgentID, r.Key, *r.TotalTokens})
			}
		}
		slices.SortStableFunc(tops, func(a, b top) int { return cmp.Compare(b.tokens, a.tokens) })
		for _, t := range tops[:min(len(tops), m.q.PerSessionTop)] {
			snap.TopSessions = append(snap.TopSessions, metrics.SessionTokens{Agent: t.agent, Key: t.key, Tokens: t.tokens})
		}
	}
	for _, a := range agents {
		snap.Active = append(snap.Active, metrics.AgentCount{Agent: a, N: active[a]})
	}

	// archived copies (reset and deleted transcripts, a 2026.9 store's
	// archives), each one archived session
	if set, err := transcripts.Open(s, transcripts.Options{AllAgents: all, StoreArchives: true}); err != nil {
		fail("transcripts", err)
	} else {
		for a := range set.All() {
			if a.Err != nil {
				continue // the listing counted it
			}
			for i := range a.Files {
				if a.Files[i].ArchiveOf() != "" {
					snap.Sessions = append(snap.Sessions, metrics.SessionCount{Agent: a.ID, Kind: "unknown", Channel: "unknown", Archived: true, N: 1})
				}
			}
			if a.ArchivesErr != nil {
				fail("archives of "+a.ID, a.ArchivesErr)
			}
			for _, ar := range a.Archives {
				kind, channel := "unknown", "unknown"
				if ar.SessionKey != "" {
					kind = keys.Kind(ar.SessionKey, "")
					channel = keys.Channel(kind, ar.SessionKey, "", "", "")
				}
				snap.Sessions = append(snap.Sessions, metrics.SessionCount{Agent: a.ID, Kind: kind, Channel: channel, Archived: true, N: 1})
			}
		}
	}

	// locks: busy sessions, stale locks, the oldest lock
	busy := map[string]map[string]bool{}
	lockStat := map[[2]string]*metrics.LockStat{}
	for _, a := range agents {
		busy[a] = map[string]bool{}
		for _, k := range []string{LockStore, LockTranscript, LockRunner} {
			lockStat[[2]string{a, k}] = &metrics.LockStat{Agent: a, Kind: k}
		}
	}
	if lr, err := o.Locks(ctx); err != nil {
		fail("locks", err)
	} else {
		for _, l := range lr.Locks {
			if !inScope[l.AgentID] {
				continue
			}
			ls := lockStat[[2]string{l.AgentID, l.Kind}]
			if ls == nil {
				continue
			}
			if l.Stale || !l.Alive {
				ls.Stale++
			}
			if !l.Alive {
				continue // a dead holder's lock is only stale
			}
			// held by a live process now: its age is how long the turn
			// (or the store write) has been going on, past the stale age
			// too (a stuck session)
			ls.OldestAge = max(ls.OldestAge, float64(l.AgeSeconds))
			if l.Kind == LockTranscript {
				busy[l.AgentID][cmp.Or(l.SessionKey, l.Path)] = true
			}
		}
	}
	for _, a := range agents {
		snap.Busy = append(snap.Busy, metrics.AgentCount{Agent: a, N: len(busy[a])})
		for _, k := range []string{LockStore, LockTranscript, LockRunner} {
			snap.Locks = append(snap.Locks, *lockStat[[2]string{a, k}])
		}
	}

	// usage: the same reading as sessions usage --by agent,provider,model
	urows, uerrs := metricsEach(o, c, all, agents, func(o *Ops) ([]UsageRow, error) {
		ur, err := o.Usage(ctx, UsageQuery{By: []string{"agent", "provider", "model"}, AllAgents: all})
		if err != nil {
			return nil, err
		}
		return ur.Rows, nil
	})
	for _, err := range uerrs {
		fail("usage", err)
	}
	{
		msgs := map[string]int64{}
		for _, r := range urows {
			t := r.Totals
			snap.Tokens = append(snap.Tokens, metrics.TokenSum{Agent: r.Keys[0], Provider: r.Keys[1], Model: r.Keys[2],
				Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, CostMicroUSD: t.CostMicroUSD})
			msgs[r.Keys[0]] += t.Messages
		}
		for _, a := range agents {
			snap.Messages = append(snap.Messages, metrics.MessageCount{Agent: a, Role: "assistant", N: msgs[a]})
		}
	}

	// runs: ours by status as sessions runs shows them (a run whose runner
	// died counts as the error it is ended with there, but its record is
	// not rewritten: a scrape writes nothing), and OpenClaw's sub-agent
	// runs as sessions runs --source openclaw lists them
	if rs, err := o.runStore(); err != nil {
		fail("runs", err)
	} else if recs, err := rs.List(); err != nil {
		fail("runs", err)
	} else {
		for _, r := range recs {
			st := r.Status
			if !runs.Terminal(st) && !rs.RunnerAlive(r.RunID) && (st != runs.StatusAccepted || now.Sub(time.UnixMilli(r.CreatedAt)) >= 10*time.Second) {
				st = runs.StatusError
			}
			snap.Runs = append(snap.Runs, metrics.RunCount{Source: RunsSourceSessions, Status: st, N: 1})
		}
	}
	if rr, err := o.Runs(ctx, RunsQuery{Source: RunsSourceOpenClaw, Limit: -1}); err != nil {
		fail("runs", err)
	} else {
		for _, r := range rr.Runs {
			snap.Runs = append(snap.Runs, metrics.RunCount{Source: RunsSourceOpenClaw, Status: r.Status, N: 1})
		}
	}

	// store files
	for _, a := range agents {
		f := hoststat.Agent(s, a)
		for _, e := range f.Errs {
			fail("store files of "+a, e)
		}
		for _, x := range []struct {
			file string
			n    int64
		}{{"db", f.DB}, {"wal", f.WAL}, {"sessions_json", f.SessionsJSON}, {"transcripts", f.Transcripts}} {
			if x.n >= 0 {
				snap.Store = append(snap.Store, metrics.StoreFile{Agent: a, File: x.file, Bytes: x.n})
			}
		}
		if f.DB >= 0 && f.Schema > 0 {
			snap.Schema = append(snap.Schema, metrics.AgentCount{Agent: a, N: f.Schema})
		}
	}

	snap.Doctor = m.doctorCounts(ctx, o, fail)

	for _, l := range cw.lines {
		snap.Errors++
		m.warn(l)
	}
	return snap
}

// metricsEach reads fn over every agent in scope at once; when that
// fails (one agent's store cannot be read) it reads agent by agent, so
// the others are still counted, and returns the agents' errors.
func metricsEach[T any](o *Ops, c Config, all bool, agents []string, fn func(*Ops) ([]T, error)) ([]T, []error) {
	out, err := fn(o)
	if err == nil || !all || len(agents) < 2 {
		if err != nil {
			return nil, []error{err}
		}
		return out, nil
	}
	var errs []error
	for _, a := range agents {
		ac := c
		ac.Agent = a
		ao := New(ac)
		part, err := fn(ao)
		if st, serr := ao.openState(); serr == nil {
			st.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %s: %w", a, err))
			continue
		}
		out = append(out, part...)
	}
	return out, errs
}

// doctorCounts are doctor's open findings by severity, checked again once
// DoctorEvery has passed since the last check.
func (m *Metrics) doctorCounts(ctx context.Context, o *Ops, fail func(string, error)) []metrics.SeverityCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.doctorOK && m.q.DoctorEvery > 0 && time.Since(m.doctorAt) < m.q.DoctorEvery {
		return m.doctor
	}
	res, err := o.Doctor(ctx, DoctorRequest{})
	if err != nil {
		fail("doctor", err)
		return nil
	}
	m.doctor = []metrics.SeverityCount{{Severity: DoctorSevError, N: res.Counts.Errors},
		{Severity: DoctorSevWarning, N: res.Counts.Warnings}, {Severity: "info", N: res.Counts.Infos}}
	m.doctorAt, m.doctorOK = time.Now(), true
	return m.doctor
}
