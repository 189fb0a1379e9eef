package local

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/watch"
)

// Watch feeds the changes of the state dir's sessions in the listing's
// scope (the agents AgentsInScope picks).
//
// JSON era: file events on each store's directory and the transcripts'
// directories wake it; after Debounce it re-reads only the store that
// changed (rows rebuilt only for the entries whose fields changed) and
// reads only what was appended to the transcripts that changed. A Tick
// compares each store's stamp (one stat), in case an event was missed.
//
// SQLite era (OpenClaw 2026.8+): every Tick it stats the database and its
// -wal; only when one of them changed does it open the store (read-only,
// as every reader here does), re-read the session rows and read the
// transcript events added since (by rowid).
func (l *Local) Watch(ctx context.Context, q backend.WatchQuery, ready func(), emit func([]watch.Event) error) error {
	w, err := l.startWatch(q, emit)
	if err != nil {
		return err
	}
	defer w.close()
	if ready != nil {
		ready()
	}
	return w.run(ctx)
}

// startWatch sets the watches up and takes the first snapshot.
func (l *Local) startWatch(q backend.WatchQuery, emit func([]watch.Event) error) (*localWatch, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	agents, err := s.AgentsInScope(q.AllAgents)
	if err != nil {
		return nil, err
	}
	w := &localWatch{l: l, s: s, q: q, emit: emit, stores: map[string]*jsonStore{}, dirs: map[string]bool{},
		byPath: map[string]*jsonStore{}, pending: map[string]bool{}}
	if fw, err := fsnotify.NewWatcher(); err == nil {
		w.fw = fw
	} else {
		l.debug("watch: no file events; checking the stores' stamps every tick", "err", err)
	}
	for _, agent := range agents {
		if s.Era(agent) == era.SQLite {
			w.dbs = append(w.dbs, &sqliteAgent{agent: agent, path: s.SQLitePath(agent)})
			continue
		}
		p, shared := s.StorePath(agent)
		js := w.stores[p]
		if js == nil {
			js = &jsonStore{path: p, shared: shared, agents: map[string]bool{}}
			w.stores[p] = js
			w.order = append(w.order, js)
		}
		js.agents[agent] = true
	}
	fail := func(err error) (*localWatch, error) {
		w.close()
		return nil, err
	}
	for _, js := range w.order {
		w.watchDir(filepath.Dir(js.path))
		if _, err := w.loadJSON(js, true); err != nil {
			return fail(err)
		}
	}
	for _, a := range w.dbs {
		if _, err := w.loadSQLite(a, true); err != nil {
			return fail(err)
		}
	}
	return w, nil
}

// close releases the file watches and the stores' mappings.
func (w *localWatch) close() {
	if w.fw != nil {
		w.fw.Close()
	}
}

func (l *Local) debug(msg string, kv ...any) {
	if l.Debug != nil {
		l.Debug(msg, kv...)
	}
}

type localWatch struct {
	l    *Local
	s    *state.State
	q    backend.WatchQuery
	emit func([]watch.Event) error

	fw     *fsnotify.Watcher
	dirs   map[string]bool // directories watched
	stores map[string]*jsonStore
	order  []*jsonStore
	dbs    []*sqliteAgent

	// byPath: the store whose session a transcript file is (JSON era).
	byPath map[string]*jsonStore
	// pending: transcripts with file events not read yet.
	pending map[string]bool
}

func (w *localWatch) watchDir(dir string) {
	if w.fw == nil || w.dirs[dir] {
		return
	}
	if err := w.fw.Add(dir); err != nil {
		w.l.debug("watch: cannot watch a directory; its store is checked every tick", "dir", dir, "err", err)
		return
	}
	w.dirs[dir] = true
}

func (w *localWatch) run(ctx context.Context) error {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fw != nil {
		events, errs = w.fw.Events, w.fw.Errors
	}
	tick := time.NewTicker(w.q.TickOrDefault())
	defer tick.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	armed := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if w.note(ev) && !armed {
				settle.Reset(w.q.DebounceOrDefault())
				armed = true
			}
		case err := <-errs:
			w.l.debug("watch: file event error; the stores are checked every tick", "err", err)
		case <-settle.C:
			armed = false
			if err := w.flush(ctx); err != nil {
				return err
			}
		case <-tick.C:
			for _, js := range w.order {
				if fi, err := os.Stat(js.path); err == nil && !fsutil.StampOf(fi).Equal(js.stamp) ||
					err != nil && js.stamp != (fsutil.Stamp{}) {
					js.dirty = true
				}
			}
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
}

// note records what a file event touched; true when something is to be
// read.
func (w *localWatch) note(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	if js := w.stores[ev.Name]; js != nil {
		js.dirty = true
		return true
	}
	if w.q.Messages && strings.HasSuffix(ev.Name, ".jsonl") && w.byPath[ev.Name] != nil {
		w.pending[ev.Name] = true
		return true
	}
	return false
}

// flush reads what changed and emits it: the stores first (added, updated,
// removed), then the messages appended.
func (w *localWatch) flush(ctx context.Context) error {
	var out []watch.Event
	for _, js := range w.order {
		if !js.dirty {
			continue
		}
		evs, err := w.loadJSON(js, false)
		if err != nil {
			return err
		}
		out = append(out, evs...)
	}
	if len(w.pending) > 0 {
		paths := make([]string, 0, len(w.pending))
		for p := range w.pending {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		clear(w.pending)
		for _, p := range paths {
			out = append(out, w.tailJSON(p)...)
		}
	}
	for _, a := range w.dbs {
		evs, err := w.loadSQLite(a, false)
		if err != nil {
			return err
		}
		out = append(out, evs...)
	}
	if len(out) == 0 || ctx.Err() != nil {
		return nil
	}
	return w.emit(out)
}

// rows builds the feed's snapshot of a loaded store: rows are rebuilt only
// for entries whose fields differ from the ones prev was built from.
func (w *localWatch) rows(st *store.Store, agentOf func(key string) string, prev watch.Snapshot, metas map[watch.ID]store.Meta) (watch.Snapshot, map[watch.ID]store.Meta) {
	s := w.s
	next := make(watch.Snapshot, len(st.Entries))
	nmetas := make(map[watch.ID]store.Meta, len(st.Entries))
	for i := range st.Entries {
		e := &st.Entries[i]
		agent := agentOf(e.Key)
		if agent == "" || !s.Listable(e.Key) || !s.Visible(e) {
			continue
		}
		id := watch.ID{Agent: agent, Key: s.DisplayKey(e.Key)}
		if p, ok := prev[id]; ok && p.Row.StoreKey == e.Key && SameMeta(metas[id], e.Meta) {
			next[id] = p
			nmetas[id] = e.Meta
			continue
		}
		r := s.Row(agent, st, e)
		if len(w.q.Kinds) > 0 && !slices.Contains(w.q.Kinds, r.Kind) {
			continue
		}
		// A row holds no pointer into the store: an old store is freed
		// once the next one is read.
		next[id] = watch.Item{Row: r, Transcript: watch.Mark{SessionID: e.SessionID}}
		nmetas[id] = e.Meta
	}
	return next, nmetas
}

// SameMeta reports whether two entries have the same fields (what a row is
// built from).
func SameMeta(a, b store.Meta) bool {
	return a.SessionID == b.SessionID && eqp(a.UpdatedAt, b.UpdatedAt) && a.SessionFile == b.SessionFile &&
		a.SpawnedBy == b.SpawnedBy && a.Label == b.Label && a.DisplayName == b.DisplayName &&
		a.Channel == b.Channel && a.ChatType == b.ChatType && a.LastChannel == b.LastChannel &&
		a.LastTo == b.LastTo && a.LastAccountID == b.LastAccountID && eqp(a.DC, b.DC) &&
		a.Model == b.Model && a.ModelProvider == b.ModelProvider && a.ModelOverride == b.ModelOverride &&
		a.ProviderOverride == b.ProviderOverride && eqp(a.ContextTokens, b.ContextTokens) &&
		eqp(a.TotalTokens, b.TotalTokens) && eqp(a.InputTokens, b.InputTokens) &&
		eqp(a.OutputTokens, b.OutputTokens) && a.ThinkingLevel == b.ThinkingLevel &&
		a.VerboseLevel == b.VerboseLevel && a.SendPolicy == b.SendPolicy &&
		eqp(a.SystemSent, b.SystemSent) && eqp(a.AbortedLastRun, b.AbortedLastRun)
}

func eqp[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
