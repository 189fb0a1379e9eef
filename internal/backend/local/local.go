// Package local is the host of this machine's state dir (Local), one
// implementation of internal/backend's Host and of every optional read of
// a host that holds the files (search, usage, doctor, locks, runs, the
// metrics reading): the JSON-era stores and transcripts and the 2026.8+
// per-agent SQLite store, read through internal/state and written through
// internal/sessionwrite, each agent's writes routed as sessionwrite.Choose
// says. A 2026.8+ agent whose gateway is live here is written through that
// gateway: the overlay (overlay.go) is the one file that reaches the
// gateway host's package (gatewayhost.SpawnThrough).
package local

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/startheap"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// Local reads the state dir on this host (both eras) through internal/state.
type Local struct {
	// State opens the state once (the factory's); its error is the command's.
	State func() (*state.State, error)
	// Warn prints a warning (in row order: never from another goroutine).
	Warn func(string)
	// Agent is --agent as given (a label's agent for Session).
	Agent string
	// Debug logs at --log-level debug (nil: not logged).
	Debug func(msg string, kv ...any)
	// Now is the invocation's clock (nil: time.Now): the age of a lock.
	Now func() time.Time
	// Writes are the options this host's writes open with for the state
	// s (the lock timeout, the clock, and this host's live gateway —
	// looked for once per invocation — that takes a 2026.8+ agent's
	// writes): each agent's writes are routed by sessionwrite.Choose with
	// them. Nil: no gateway, the default lock timeout.
	Writes func(s *state.State) sessionwrite.Options

	// ForAgent is this host as the invocation with --agent agent opens it
	// (nil: none): a metrics reading that fails for the agents together
	// reads them one by one.
	ForAgent func(agent string) *Local
}

// writeOptions are the options of this host's writes on s (Writes).
func (l *Local) writeOptions(s *state.State) sessionwrite.Options {
	if l.Writes != nil {
		return l.Writes(s)
	}
	return sessionwrite.Options{Now: l.Now}
}

// now is the time on the invocation's clock.
func (l *Local) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Where is "" for the local state dir.
func (l *Local) Where() string { return "" }

// Close does nothing: the factory owns the state.
func (l *Local) Close() error { return nil }

// listBytesPerEntry is about what listing a session whole allocates: its
// entry decoded (~670 bytes on the 10,000-session store), its row (~390),
// the entry's bytes (~210) and its transcript's path (~90).
const listBytesPerEntry = 1400

// List reads the stores of the agents the requester may see.
func (l *Local) List(_ context.Context, q backend.ListQuery) (*backend.ListResult, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	agents, err := s.AgentsInScope(q.AllAgents)
	if err != nil {
		return nil, err
	}
	// Candidates in file order; rows are built (and filtered) only for the
	// newest ones, up to the limit: a 10,000-entry store listed with the
	// default limit builds 200 rows, not 10,000.
	var srcs []listSrc
	var cands []listCand
	var lastErr error
	read := 0
	endBurst := func() {}
	defer func() { endBurst() }()
	for _, agent := range agents {
		ls, err := s.Listing(agent)
		if err != nil {
			if len(agents) > 1 && s.Era(agent) == era.SQLite {
				l.Warn(err.Error())
				lastErr = err
				continue
			}
			return nil, err
		}
		read++
		if q.Limit < 0 || q.Limit >= ls.Len()/4 || len(q.Kinds) > 0 {
			// the entries, their rows and paths, kept to the end
			startheap.BurstOnto(&endBurst, ls.Len()*listBytesPerEntry)
			ls.Prefetch() // most entries will be read whole: at once is cheaper
		}
		srcs = append(srcs, listSrc{agent, ls})
		src := int32(len(srcs) - 1)
		cands = slices.Grow(cands, ls.Len())
		ls.Scan(func(i int, key, spawnedBy string) {
			if s.Listable(key) && s.SeesSpawnedBy(spawnedBy) {
				cands = append(cands, listCand{src, int32(i), ls.Updated(i)})
			}
		})
	}
	if read == 0 && lastErr != nil {
		return nil, lastErr
	}
	slices.SortFunc(cands, func(a, b listCand) int { // newest first; ties keep file order
		if c := cmp.Compare(b.updated, a.updated); c != 0 {
			return c
		}
		if c := cmp.Compare(a.src, b.src); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	cutoff := q.Now.Add(-time.Duration(q.Active) * time.Minute).UnixMilli()
	reached := func(n int) bool { return q.Limit >= 0 && n >= q.Limit }
	// Rows are built for the newest matching sessions up to the limit; the
	// others are only counted (Total), from the entry alone unless Kinds
	// needs the row's kind.
	// the rows' room made once: a Row is 344 bytes, and 10,000 of them
	// grown by appends were copied, faulted in and scanned about twice
	room := len(cands)
	if q.Limit >= 0 {
		room = min(room, q.Limit)
	}
	rows := make([]state.Row, 0, room)
	from := make([]listRef, 0, room) // each row's entry and store
	total := 0
	for _, cand := range cands {
		c := listRef{srcs[cand.src], int(cand.i)}
		if q.Active > 0 && !(c.has() && cand.updated >= cutoff) {
			continue
		}
		if !reached(len(rows)) {
			e := c.e()
			if r := s.Row(c.agent, c.ls.St, e); keep(r, e, q, cutoff) {
				rows = append(rows, r)
				from = append(from, c)
				total++
			}
			continue
		}
		if len(q.Kinds) == 0 {
			total++
		} else if e := c.e(); keep(s.Row(c.agent, c.ls.St, e), e, q, cutoff) {
			total++
		}
	}
	// Transcript paths, then the last messages on all CPUs (each transcript
	// read is independent). Warnings are printed afterwards in row order,
	// exactly as a sequential loop would print them.
	warns := make([][]string, len(rows))
	var withMsgs []int
	s.Resolver.Expect(len(rows))
	for i := range rows {
		r, c := &rows[i], from[i]
		if state.IsSQLite(c.ls.St) {
			// OpenClaw 2026.8+: no transcript file; messages come from the store.
			if q.Messages > 0 {
				withMsgs = append(withMsgs, i)
			}
			continue
		}
		tp, err := s.Transcript(r.AgentID, c.ls.St, c.e())
		if err != nil {
			warns[i] = append(warns[i], err.Error())
			continue
		}
		r.TranscriptPath = tp.Path
		if q.Messages > 0 && tp.Exists {
			withMsgs = append(withMsgs, i)
		}
	}
	dbs := map[string]*sqlitestore.DB{} // opened here: SQLiteDB is not for concurrent use
	for _, i := range withMsgs {
		if a := rows[i].AgentID; state.IsSQLite(from[i].ls.St) && dbs[a] == nil {
			dbs[a] = s.SQLiteDB(a)
		}
	}
	parallel(len(withMsgs), func(j int) {
		i := withMsgs[j]
		r, c := &rows[i], from[i]
		warn := func(msg string) { warns[i] = append(warns[i], msg) }
		if state.IsSQLite(c.ls.St) {
			r.Messages = lastMessagesSQLite(dbs[r.AgentID], c.e().SessionID, q.Messages, warn)
		} else {
			r.Messages = lastMessages(r.TranscriptPath, q.Messages, warn)
		}
	})
	for _, w := range warns {
		for _, msg := range w {
			l.Warn(msg)
		}
	}
	return &backend.ListResult{Rows: rows, Total: total, MultiAgent: len(agents) > 1}, nil
}

// listSrc is an agent whose store a listing reads, and that store's listing.
type listSrc struct {
	agent string
	ls    *store.Listing
}

// listCand is a session a listing may show: its store (an index into the
// listing's listSrcs), its index there, and its updatedAt in ms (the sort
// key). 16 bytes: a list of a 10,000-entry store keeps one for every entry.
// Its entry is read whole only when needed — a row built, or Kinds asked —
// so a page of 50 rows of a store read from its cache file decodes about 50
// entries (store.Listing).
type listCand struct {
	src, i  int32
	updated int64
}

// listRef is a candidate with its store: where a row comes from.
type listRef struct {
	listSrc
	i int
}

// e is the candidate's whole entry.
func (c listRef) e() *store.Entry { return c.ls.Entry(c.i) }

// has reports whether the entry has an updatedAt.
func (c listRef) has() bool { _, ok := c.ls.UpdatedAt(c.i); return ok }

// parallel calls fn(0), …, fn(n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// keep applies Kinds and Active (cutoff: the oldest updatedAt kept, in ms)
// to a local row.
func keep(r state.Row, e *store.Entry, q backend.ListQuery, cutoff int64) bool {
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, r.Kind) {
		return false
	}
	return q.Active == 0 || (r.UpdatedAt != nil && e.Updated() >= cutoff)
}

// lastMessages returns the last n messages, tool results removed, prepared
// like `history`'s default output. It may run on any goroutine, so warn
// must not print: the caller prints the warnings in row order.
func lastMessages(path string, n int, warn func(string)) []json.RawMessage {
	res, err := transcript.ReadMessages(path, transcript.Options{Limit: n, Warn: warn})
	if err != nil {
		warn(fmt.Sprintf("transcript %s: %v", path, err))
		return nil
	}
	return backend.Prepare(res.Messages)
}

// lastMessagesSQLite is lastMessages for a session of the SQLite era.
func lastMessagesSQLite(db *sqlitestore.DB, sessionID string, n int, warn func(string)) []json.RawMessage {
	if db == nil {
		return nil
	}
	res, err := db.Messages(sessionID, transcript.Options{Limit: n, Warn: warn})
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("session %s: %v", sessionID, err))
		}
		return nil
	}
	return backend.Prepare(res.Messages)
}

// Local implements the whole operations of a host and every optional read
// of one that holds the files.
var (
	_ backend.Host              = (*Local)(nil)
	_ backend.Transcripts       = (*Local)(nil)
	_ backend.Exporter          = (*Local)(nil)
	_ backend.Watcher           = (*Local)(nil)
	_ backend.Searcher          = (*Local)(nil)
	_ backend.UsageReader       = (*Local)(nil)
	_ backend.Doctor            = (*Local)(nil)
	_ backend.SearchIndexKeeper = (*Local)(nil)
	_ backend.LockLister        = (*Local)(nil)
	_ backend.RunLister         = (*Local)(nil)
	_ backend.SubagentRegistry  = (*Local)(nil)
	_ backend.MetricsReader     = (*Local)(nil)
	_ backend.Completer         = (*Local)(nil)
	_ backend.ArchiveSweeper    = (*Local)(nil)
	_ backend.RunExecutor       = (*Local)(nil)
)
