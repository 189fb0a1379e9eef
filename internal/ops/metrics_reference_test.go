package ops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/hostmetrics"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// referenceSnapshot is a scrape as it was read before a Metrics kept
// anything between scrapes (ops.Metrics.Snapshot of 99eda64, verbatim but
// for doctor, checked every time): every part read afresh through the
// operations — list, the transcripts' enumeration, locks, usage (with the
// usage cache on disk), runs, hoststat.Agent, doctor. The tests hold a
// Metrics's scrapes, cold and warm, to it.
func referenceSnapshot(c Config, q MetricsQuery) *metrics.Snapshot {
	if q.Active <= 0 {
		q.Active = time.Hour
	}
	m := struct {
		q    MetricsQuery
		warn func(string)
	}{q, func(string) {}}
	ctx := context.Background()
	cw := &hostmetrics.Warnings{}
	c.Log = log.NewWithOptions(cw, log.Options{Level: log.WarnLevel})
	o := New(c)
	snap := &metrics.Snapshot{}
	fail := func(what string, err error) {
		snap.Errors++
		m.warn(what + ": " + err.Error())
	}
	all := m.q.AllAgents && c.Agent == ""
	s, err := o.where.State()
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
	rows, lerrs := refEach(o, c, all, agents, func(o *Ops) ([]state.Row, error) {
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
	urows, uerrs := refEach(o, c, all, agents, func(o *Ops) ([]UsageRow, error) {
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

	if res, err := o.Doctor(ctx, DoctorRequest{}); err != nil {
		fail("doctor", err)
	} else {
		snap.Doctor = []metrics.SeverityCount{{Severity: DoctorSevError, N: res.Counts.Errors},
			{Severity: DoctorSevWarning, N: res.Counts.Warnings}, {Severity: "info", N: res.Counts.Infos}}
	}

	for _, l := range cw.Lines() {
		snap.Errors++
		m.warn(l)
	}
	return snap
}

// refEach reads fn over every agent in scope at once; when that fails
// (one agent's store cannot be read) it reads agent by agent, so the
// others are still counted (the reading of 99eda64).
func refEach[T any](o *Ops, c Config, all bool, agents []string, fn func(*Ops) ([]T, error)) ([]T, []error) {
	out, err := fn(o)
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
		if st, serr := ao.where.State(); serr == nil {
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
