// Package hostmetrics is the reading of this host's state that a
// Prometheus scrape exposes (internal/metrics's Snapshot): the listing's
// counts, the locks held, usage's token sums, the runs, the store files'
// sizes and doctor's findings, read through this host's own operations.
//
// A long-lived Reader keeps the structure of the state between scrapes —
// the listing's counts, usage's files and their sessions, the
// directories' listings — keyed by the versions of the stores, the config
// and the transcripts' directories (read.go), and the usage cache in
// memory; what can change without any of those changing is read on every
// scrape. A scrape never takes a lock and never writes to the state dir.
//
// local.Local implements backend.MetricsReader with it; the operations
// layer keeps the registry, the agent boundary and the HTTP-facing API.
package hostmetrics

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// Query is what a Reader reads.
type Query struct {
	// AllAgents: every agent; else the host's agent (--agent), or the
	// requester's.
	AllAgents bool
	// Active is the window of openclaw_sessions_active.
	Active time.Duration
	// PerSessionTop: the N largest sessions by tokens (0: none).
	PerSessionTop int
	// DoctorEvery reuses doctor's findings for this long between scrapes
	// (0: every scrape checks again).
	DoctorEvery time.Duration
	// LockTimeout bounds the wait for a SQLite store's read.
	LockTimeout time.Duration
}

// Host is what a scrape reads through: this host's operations over one
// opened state, as the operations layer's own commands read it.
type Host interface {
	// State is the host's state (opened once).
	State() (*state.State, error)
	// List is the listing's rows (as sessions list --json --limit -1).
	List(ctx context.Context, all bool) ([]state.Row, error)
	Usage(ctx context.Context, q *hostread.UsageQuery) (*hostread.UsageAnswer, error)
	Doctor(ctx context.Context, q hostread.DoctorQuery) (*hostread.DoctorAnswer, error)
	OpenClawRuns(ctx context.Context, lockTimeout time.Duration) ([]*runs.Record, error)
	// ForAgent is the same host for one agent (--agent), its state opened
	// apart: a reading that fails for the agents together is read agent by
	// agent.
	ForAgent(agent string) Host
	// Now is the invocation's clock (ages, the active window).
	Now() time.Time
	// Warn says what was not read as it is (each line a scrape error);
	// Debug the rest.
	Warn(string)
	Debug(string)
}

// Reader reads the state once per scrape, keeping what it may between
// scrapes. Reads are serialised.
type Reader struct {
	q Query
	// Clock is when a reading begins (the racy rule's; default time.Now:
	// tests move it).
	Clock func() time.Time

	mu       sync.Mutex
	doctorAt time.Time
	doctor   []metrics.SeverityCount
	doctorOK bool

	// scrape serialises the readings (Read) and guards what they keep
	scrape sync.Mutex
	dirs   *dirCache      // the directories' listings
	kept   *scrapeReading // the last scrape's reading of the structure
	ucache *usage.Cache   // the usage cache, in memory once loaded
	usaved time.Time      // when ucache was last written back
	uscans int            // usage readings so far
	counts Counts         // what was reused (tests, debug)
}

// NewReader prepares the readings of q; nothing is read yet.
func NewReader(q Query) *Reader {
	return &Reader{q: q, dirs: newDirCache(), Clock: time.Now}
}

// Counts say how scrapes went (tests and the debug log).
type Counts struct {
	Kept, Read        int // structure taken again / read
	UsageKept, Rolled int // usage rows taken again / rolled up
}

// Counts are the readings so far.
func (m *Reader) Counts() Counts {
	m.scrape.Lock()
	defer m.scrape.Unlock()
	return m.counts
}

// Warnings counts the lines a reading's logger writes: each warning of
// list, locks, usage or runs is a part of the state not read as it is.
type Warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *Warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			w.lines = append(w.lines, string(l))
		}
	}
	return len(p), nil
}

// Lines are the lines written so far.
func (w *Warnings) Lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines
}

// Read reads the state of h once (one scrape). cw is where h's warnings
// are written (its logger's writer): each of its lines, and each part not
// read, is a scrape error, said to say with what went on.
func (m *Reader) Read(ctx context.Context, h Host, cw *Warnings, say func(string)) *metrics.Snapshot {
	m.scrape.Lock()
	defer m.scrape.Unlock()
	snap := &metrics.Snapshot{}
	failed := func(what string, err error) {
		snap.Errors++
		say(what + ": " + err.Error())
	}
	all := m.q.AllAgents
	s, err := h.State()
	if err != nil {
		failed("state", err)
		return snap
	}
	defer s.Close() // the SQLite handles of this scrape (the parsed stores stay cached)
	agents, err := s.AgentsInScope(all)
	if err != nil {
		failed("agents", err)
		return snap
	}
	inScope := map[string]bool{}
	for _, a := range agents {
		inScope[a] = true
	}
	now := h.Now()

	// what depends only on the stores, the config and the transcripts'
	// directories: kept from the last scrape when none of them changed
	r, sc := m.reading(ctx, h, s, all, agents, cw, snap, failed)

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

	m.readLocks(s, r, sc, agents, inScope, now, snap)

	// usage: the same reading as sessions usage --by agent,provider,model
	urows := r.usageRows
	if r.usage != nil {
		urows = m.usageRows(h, s, r, sc, cw)
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

	m.readRuns(ctx, h, s, now, snap, failed)

	// store files (the transcripts' sizes from this scrape's lstats)
	for _, a := range agents {
		f := hoststat.AgentWith(s, a, func(dir string) (int64, error) { return sc.stats(dir).sum() })
		for _, e := range f.Errs {
			failed("store files of "+a, e)
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

	snap.Doctor = m.doctorCounts(ctx, h, failed)

	say(fmt.Sprintf("scrape: structure kept %d, read %d; usage kept %d, rolled up %d (so far)",
		m.counts.Kept, m.counts.Read, m.counts.UsageKept, m.counts.Rolled))
	for _, l := range cw.lines {
		snap.Errors++
		say(l)
	}
	return snap
}

// readLocks counts the locks: busy sessions, stale locks, the oldest lock.
func (m *Reader) readLocks(s *state.State, r *scrapeReading, sc *scrapeFiles, agents []string, inScope map[string]bool, now time.Time, snap *metrics.Snapshot) {
	kinds := []string{hostread.LockStore, hostread.LockTranscript, hostread.LockRunner}
	busy := map[string]map[string]bool{}
	lockStat := map[[2]string]*metrics.LockStat{}
	for _, a := range agents {
		busy[a] = map[string]bool{}
		for _, k := range kinds {
			lockStat[[2]string{a, k}] = &metrics.LockStat{Agent: a, Kind: k}
		}
	}
	for _, l := range heldLocks(s, r.names, sc, now) {
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
		if l.Kind == hostread.LockTranscript {
			busy[l.AgentID][cmp.Or(l.SessionKey, l.Path)] = true
		}
	}
	for _, a := range agents {
		snap.Busy = append(snap.Busy, metrics.AgentCount{Agent: a, N: len(busy[a])})
		for _, k := range kinds {
			snap.Locks = append(snap.Locks, *lockStat[[2]string{a, k}])
		}
	}
}

// readRuns counts ours by status as sessions runs shows them (a run whose
// runner died counts as the error it is ended with there, but its record
// is not rewritten: a scrape writes nothing), and OpenClaw's sub-agent
// runs as sessions runs --source openclaw lists them.
func (m *Reader) readRuns(ctx context.Context, h Host, s *state.State, now time.Time, snap *metrics.Snapshot, fail func(string, error)) {
	rs := runs.Open(s.Dir.Path)
	if recs, err := rs.List(); err != nil {
		fail("runs", err)
	} else {
		for _, r := range recs {
			st := r.Status
			if !runs.Terminal(st) && !rs.RunnerAlive(r.RunID) && (st != runs.StatusAccepted || now.Sub(time.UnixMilli(r.CreatedAt)) >= 10*time.Second) {
				st = runs.StatusError
			}
			snap.Runs = append(snap.Runs, metrics.RunCount{Source: runs.SourceSessions, Status: st, N: 1})
		}
	}
	if recs, err := h.OpenClawRuns(ctx, m.q.LockTimeout); err != nil {
		fail("runs", err)
	} else {
		for _, r := range recs {
			snap.Runs = append(snap.Runs, metrics.RunCount{Source: runs.SourceOpenClaw, Status: r.Status, N: 1})
		}
	}
}

// each reads fn over every agent in scope at once; when that fails (one
// agent's store cannot be read) it reads agent by agent, so the others
// are still counted, and returns the agents' errors.
func each[T any](h Host, all bool, agents []string, fn func(Host) ([]T, error)) ([]T, []error) {
	out, err := fn(h)
	return eachAfter(h, all, agents, out, err, fn)
}

// eachAfter is each once the reading of every agent at once gave out and
// err.
func eachAfter[T any](h Host, all bool, agents []string, out []T, err error, fn func(Host) ([]T, error)) ([]T, []error) {
	if err == nil || !all || len(agents) < 2 {
		if err != nil {
			return nil, []error{err}
		}
		return out, nil
	}
	out = nil
	var errs []error
	for _, a := range agents {
		ah := h.ForAgent(a)
		part, err := fn(ah)
		if st, serr := ah.State(); serr == nil {
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
func (m *Reader) doctorCounts(ctx context.Context, h Host, fail func(string, error)) []metrics.SeverityCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.doctorOK && m.q.DoctorEvery > 0 && time.Since(m.doctorAt) < m.q.DoctorEvery {
		return m.doctor
	}
	res, err := h.Doctor(ctx, hostread.DoctorQuery{Now: h.Now(), LockTimeout: m.q.LockTimeout})
	if err != nil {
		fail("doctor", err)
		return nil
	}
	m.doctor = []metrics.SeverityCount{{Severity: hostread.DoctorSevError, N: res.Counts.Errors},
		{Severity: hostread.DoctorSevWarning, N: res.Counts.Warnings}, {Severity: "info", N: res.Counts.Infos}}
	m.doctorAt, m.doctorOK = time.Now(), true
	return m.doctor
}
