package ops

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/usage"
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
// read where the files did not change (the store cache, the usage cache,
// and the reading a scrape keeps: metrics_read.go).
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

	// scrape serialises the readings (Snapshot) and guards what they keep
	scrape sync.Mutex
	dirs   *dirCache      // the directories' listings
	kept   *scrapeReading // the last scrape's reading of the structure
	ucache *usage.Cache   // the usage cache, in memory once loaded
	usaved time.Time      // when ucache was last written back
	uscans int            // usage readings so far
	now    func() time.Time
	counts readingCounts // what was reused (tests, debug)
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
	m := &Metrics{cfg: c, q: q, dirs: newDirCache(), now: time.Now}
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
	snap := m.snapshot()
	// a requester's scrape goes out through the agent boundary: the
	// model, provider and channel strings read from transcripts and
	// entries, and the keys of the top sessions, masked
	out, err := deliver(New(m.cfg), snap, nil)
	if err != nil {
		m.warn(err.Error())
		return &metrics.Snapshot{Errors: snap.Errors + 1}
	}
	return out
}

// snapshot is Snapshot before the agent boundary.
func (m *Metrics) snapshot() *metrics.Snapshot {
	m.scrape.Lock()
	defer m.scrape.Unlock()
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

	// what depends only on the stores, the config and the transcripts'
	// directories: kept from the last scrape when none of them changed
	r, sc := m.reading(ctx, o, s, all, agents, cw, snap, fail)

	// sessions: the listing's rows (as sessions list --json --all-agents)
	// and the archived copies
	snap.Sessions = append(snap.Sessions, r.sessions...)
	active := map[string]int{}
	for _, u := range r.updated {
		if now.Sub(time.UnixMilli(u.ms)) <= m.q.Active {
			active[u.agent]++
		}
	}
	for _, a := range agents {
		snap.Active = append(snap.Active, metrics.AgentCount{Agent: a, N: active[a]})
	}
	snap.TopSessions = append(snap.TopSessions, r.tops...)

	// locks: busy sessions, stale locks, the oldest lock
	busy := map[string]map[string]bool{}
	lockStat := map[[2]string]*metrics.LockStat{}
	for _, a := range agents {
		busy[a] = map[string]bool{}
		for _, k := range []string{LockStore, LockTranscript, LockRunner} {
			lockStat[[2]string{a, k}] = &metrics.LockStat{Agent: a, Kind: k}
		}
	}
	for _, l := range m.heldLocks(s, r.names, sc, now) {
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
	for _, a := range agents {
		snap.Busy = append(snap.Busy, metrics.AgentCount{Agent: a, N: len(busy[a])})
		for _, k := range []string{LockStore, LockTranscript, LockRunner} {
			snap.Locks = append(snap.Locks, *lockStat[[2]string{a, k}])
		}
	}

	// usage: the same reading as sessions usage --by agent,provider,model
	urows := r.usageRows
	if r.usage != nil {
		urows = m.usageRows(o, s, r, sc, cw)
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
	if rr, err := o.runs(ctx, RunsQuery{Source: RunsSourceOpenClaw, Limit: -1}); err != nil {
		fail("runs", err)
	} else {
		for _, r := range rr.Runs {
			snap.Runs = append(snap.Runs, metrics.RunCount{Source: RunsSourceOpenClaw, Status: r.Status, N: 1})
		}
	}

	// store files (the transcripts' sizes from this scrape's lstats)
	for _, a := range agents {
		f := hoststat.AgentWith(s, a, func(dir string) (int64, error) { return sc.stats(dir).sum() })
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

	m.warn(fmt.Sprintf("scrape: structure kept %d, read %d; usage kept %d, rolled up %d (so far)",
		m.counts.Kept, m.counts.Read, m.counts.UsageKept, m.counts.Rolled))
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
	return metricsEachAfter(c, all, agents, out, err, fn)
}

// metricsEachAfter is metricsEach once the reading of every agent at once
// gave out and err.
func metricsEachAfter[T any](c Config, all bool, agents []string, out []T, err error, fn func(*Ops) ([]T, error)) ([]T, []error) {
	if err == nil || !all || len(agents) < 2 {
		if err != nil {
			return nil, []error{err}
		}
		return out, nil
	}
	out = nil
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
	res, err := o.doctor(ctx, DoctorRequest{})
	if err != nil {
		fail("doctor", err)
		return nil
	}
	m.doctor = []metrics.SeverityCount{{Severity: DoctorSevError, N: res.Counts.Errors},
		{Severity: DoctorSevWarning, N: res.Counts.Warnings}, {Severity: "info", N: res.Counts.Infos}}
	m.doctorAt, m.doctorOK = time.Now(), true
	return m.doctor
}
