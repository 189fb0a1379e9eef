package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/storediff"
	"github.com/openclaw/sessions/internal/transcript"
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
func (l *Local) Watch(ctx context.Context, q WatchQuery, ready func(), emit func([]watch.Event) error) error {
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
func (l *Local) startWatch(q WatchQuery, emit func([]watch.Event) error) (*localWatch, error) {
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
	q    WatchQuery
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

// jsonStore is one sessions.json and the sessions of it in the feed.
type jsonStore struct {
	path   string
	shared bool            // every agent's sessions in one file
	agents map[string]bool // the agents in scope it holds
	stamp  fsutil.Stamp
	dirty  bool
	// index is the hash of each member of the store's last version (nil:
	// the next change reads the whole file).
	index *storediff.Index
	snap  watch.Snapshot
	metas map[watch.ID]store.Meta // the entry each item was built from
	ids   map[string]watch.ID     // transcript path → session
}

// sqliteAgent is one SQLite-era agent's store in the feed.
type sqliteAgent struct {
	agent   string
	path    string
	stamps  [2]fsutil.Stamp  // the database and its -wal
	lastRow int64            // the highest transcript_events rowid read
	keys    map[string]int64 // each session's updated_at when last read (nil: read in full)
	snap    watch.Snapshot
	metas   map[watch.ID]store.Meta
	sids    map[string]watch.ID // current sessionId → session
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
	tick := time.NewTicker(w.q.tick())
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
				settle.Reset(w.q.debounce())
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

// agentOf is the agent in scope an entry of js belongs to, or "".
func (w *localWatch) agentOf(js *jsonStore, key string) string {
	if js.shared {
		a := keys.AgentOf(key, w.s.Default, config.NormalizeAgentID)
		if js.agents[a] {
			return a
		}
		return ""
	}
	for a := range js.agents {
		return a
	}
	return ""
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

// loadJSON (re)reads a JSON store and returns what changed since the last
// read. The first read's error is the feed's; later ones are retried.
func (w *localWatch) loadJSON(js *jsonStore, first bool) ([]watch.Event, error) {
	js.dirty = false
	agentOf := func(key string) string { return w.agentOf(js, key) }
	// prev and next are the sessions that may have changed, before and
	// after: every one after a full read, the changed members' after an
	// incremental one (storediff).
	var st *store.Store
	var prev, next watch.Snapshot
	var metas map[watch.ID]store.Meta
	partial := false
	if !first && js.index != nil {
		st, prev, next, metas, partial = w.readChanged(js, agentOf)
	}
	if !partial {
		var err error
		if st, err = w.readAll(js); err != nil {
			if first {
				return nil, err
			}
			w.l.debug("watch: cannot read the store; retrying at the next change", "path", js.path, "err", err)
			return nil, nil
		}
		prev = js.snap
		next, metas = w.rows(st, agentOf, js.snap, js.metas)
	}
	w.watchDir(filepath.Dir(js.path))
	var evs []watch.Event
	if !first {
		evs = watch.Diff(prev, next)
	}
	// Transcripts: where each new or moved session's transcript is (a
	// fresh resolver: a cached listing would predate new files).
	res := store.NewResolver(w.s.Dir.Path)
	resolve := func(id watch.ID, it *watch.Item) {
		e, ok := st.Lookup(it.Row.StoreKey)
		if !ok {
			return
		}
		tp, err := res.Transcript(st, e, w.s.SessionsDir(id.Agent))
		if err != nil {
			return
		}
		it.Row.TranscriptPath = tp.Path
		it.Transcript = watch.Mark{SessionID: e.SessionID, Path: tp.Path}
		if first && tp.Exists && w.q.Messages {
			if fi, err := os.Stat(tp.Path); err == nil {
				it.Transcript.Offset = fi.Size() // no events for what exists
			}
		}
	}
	if first {
		js.ids = map[string]watch.ID{}
	}
	if first && w.q.Messages {
		for id, it := range next {
			resolve(id, &it)
			next[id] = it
		}
	}
	for i := range evs {
		ev := &evs[i]
		switch ev.Kind {
		case watch.Removed:
			if p := prev[ev.ID].Transcript.Path; p != "" && js.ids[p] == ev.ID {
				delete(js.ids, p)
				delete(w.byPath, p)
			}
		case watch.Added, watch.Updated:
			it := next[ev.ID]
			old, had := prev[ev.ID]
			if had && old.Row.TranscriptPath != "" && old.Transcript.SessionID == it.Row.SessionID && metas[ev.ID].SessionFile == js.metas[ev.ID].SessionFile {
				it.Transcript = old.Transcript
				it.Row.TranscriptPath = old.Row.TranscriptPath
			} else {
				resolve(ev.ID, &it)
				if had && old.Transcript.Path != "" && old.Transcript.Path != it.Transcript.Path && js.ids[old.Transcript.Path] == ev.ID {
					delete(js.ids, old.Transcript.Path)
					delete(w.byPath, old.Transcript.Path)
				}
				// A new transcript (a new session, a reset): its messages
				// are new, from the start.
				if w.q.Messages && it.Transcript.Path != "" && (!had || old.Transcript.Path != it.Transcript.Path) {
					w.pending[it.Transcript.Path] = true
				}
			}
			next[ev.ID] = it
			r := it.Row
			ev.Row = &r
		}
	}
	for id, it := range next {
		if p := it.Transcript.Path; p != "" && w.q.Messages {
			if _, ok := js.ids[p]; !ok || first {
				js.ids[p] = id
				w.byPath[p] = js
				w.watchDir(filepath.Dir(p))
			}
		}
	}
	if partial {
		for id := range prev {
			delete(js.snap, id)
			delete(js.metas, id)
		}
		maps.Copy(js.snap, next)
		maps.Copy(js.metas, metas)
	} else {
		js.snap, js.metas = next, metas
	}
	return evs, nil
}

// readAll reads the whole store. Where the file is laid out as OpenClaw
// writes it, each member's hash is kept (storediff), so that the next
// change parses only the members that changed (readChanged); elsewhere
// (JSON5, another layout, a system without mappings) every change reads it
// all.
func (w *localWatch) readAll(js *jsonStore) (*store.Store, error) {
	js.index = nil
	if st, ok := w.readMapped(js); ok {
		return st, nil
	}
	var stamp fsutil.Stamp
	if fi, err := os.Stat(js.path); err == nil {
		stamp = fsutil.StampOf(fi)
	}
	st, err := store.LoadMeta(js.path)
	if err == nil {
		js.stamp = stamp
	}
	return st, err
}

// mapStore maps the store's file (read-only, no copy) with its stamp.
func mapStore(path string) ([]byte, fsutil.Stamp, bool) {
	if !mapfile.Mmap {
		return nil, fsutil.Stamp{}, false
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, fsutil.Stamp{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > math.MaxInt32 {
		return nil, fsutil.Stamp{}, false
	}
	data, err := mapfile.Map(f, int(fi.Size()))
	if err != nil {
		return nil, fsutil.Stamp{}, false
	}
	return data, fsutil.StampOf(fi), true
}

// readMapped parses the mapped store and indexes the same bytes.
func (w *localWatch) readMapped(js *jsonStore) (*store.Store, bool) {
	data, stamp, ok := mapStore(js.path)
	if !ok {
		return nil, false
	}
	defer mapfile.Unmap(data)
	var st *store.Store
	var ix *storediff.Index
	err := mapfile.Guard(func() error {
		var err error
		if ix, ok = storediff.Scan(data); ok {
			st, err = store.Parse(js.path, data)
		}
		return err
	})
	if err != nil || !ok || st.JSON5 || len(st.Entries) != ix.Len() {
		return nil, false
	}
	for i := range st.Entries {
		st.Entries[i].Raw = nil // nothing keeps a pointer into the mapping
	}
	js.index, js.stamp = ix, stamp
	return st, true
}

// readChanged parses only the members whose text changed since the store
// was last read (storediff: one pass over the file, hashing each member).
// prev are the sessions of the members changed or removed, next those of
// the members changed or added.
func (w *localWatch) readChanged(js *jsonStore, agentOf func(string) string) (st *store.Store, prev, next watch.Snapshot, metas map[watch.ID]store.Meta, ok bool) {
	data, stamp, ok := mapStore(js.path)
	if !ok {
		return nil, nil, nil, nil, false
	}
	if stamp.Equal(js.stamp) {
		mapfile.Unmap(data)
		return nil, nil, nil, nil, true // an event, no change
	}
	var r storediff.Region
	found := false
	err := mapfile.Guard(func() error {
		r, found = js.index.Diff(data)
		if found && !r.Same {
			// r.New is a copy: parsed after the mapping is gone.
			st, _ = store.Parse(js.path, r.New)
		}
		return nil
	})
	mapfile.Unmap(data)
	if err != nil || !found {
		return nil, nil, nil, nil, false
	}
	js.stamp = stamp
	if r.Same {
		return nil, nil, nil, nil, true
	}
	if st == nil || st.JSON5 || len(st.Entries) != len(r.Keys) {
		return nil, nil, nil, nil, false
	}
	for i, e := range st.Entries {
		if e.Key != r.Keys[i] {
			return nil, nil, nil, nil, false
		}
	}
	prev = watch.Snapshot{}
	for _, k := range append(r.Removed, r.Keys...) {
		if a := agentOf(k); a != "" {
			id := watch.ID{Agent: a, Key: w.s.DisplayKey(k)}
			if it, ok := js.snap[id]; ok {
				prev[id] = it
			}
		}
	}
	next, metas = w.rows(st, agentOf, js.snap, js.metas)
	return st, prev, next, metas, true
}

// tailJSON reads what was appended to a transcript since it was last read.
func (w *localWatch) tailJSON(path string) []watch.Event {
	js := w.byPath[path]
	if js == nil {
		return nil
	}
	id, ok := js.ids[path]
	if !ok {
		return nil
	}
	it, ok := js.snap[id]
	if !ok || it.Transcript.Path != path {
		return nil
	}
	evs, off := readAppended(path, it.Transcript.Offset, id)
	it.Transcript.Offset = off
	js.snap[id] = it
	return evs
}

// readAppended returns the messages of the complete lines of a JSONL
// transcript from off on, and where the next read starts (before a line
// still being written). A file shorter than off was replaced or
// truncated: it is read from its start.
func readAppended(path string, off int64, id watch.ID) ([]watch.Event, int64) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, off
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, off
	}
	if fi.Size() < off {
		off = 0
	}
	if fi.Size() == off {
		return nil, off
	}
	data := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, off
	}
	data = data[:n]
	var evs []watch.Event
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		line := data
		if nl >= 0 {
			line = data[:nl]
		} else if !json.Valid(line) {
			break // torn: read it once it is complete
		}
		if msg, st := transcript.Classify(line, true); st == transcript.StatusMessage {
			evs = append(evs, watch.Event{Kind: watch.Message, ID: id, Msg: append(json.RawMessage(nil), msg...),
				MsgID: gjson.GetBytes(line, "id").String()})
		}
		adv := len(line)
		if nl >= 0 {
			adv++
		}
		off += int64(adv)
		data = data[adv:]
	}
	return evs, off
}

// loadSQLite checks a SQLite-era agent's files and, when they changed
// (or first), re-reads its sessions and the transcript events added since.
func (w *localWatch) loadSQLite(a *sqliteAgent, first bool) ([]watch.Event, error) {
	var stamps [2]fsutil.Stamp
	for i, p := range []string{a.path, a.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			stamps[i] = fsutil.StampOf(fi)
		}
	}
	if !first && stamps[0].Equal(a.stamps[0]) && stamps[1].Equal(a.stamps[1]) {
		return nil, nil
	}
	db, err := sqlitestore.Open(a.path, sqlitestore.Options{Warn: w.l.Warn})
	if err != nil {
		if first {
			return nil, err
		}
		if !errors.Is(err, fs.ErrNotExist) {
			w.l.debug("watch: cannot open the SQLite store; retrying", "path", a.path, "err", err)
		}
		return nil, nil
	}
	defer db.Close()
	// prev and next: every session after a full read; the sessions whose
	// updated_at moved (or that came or went) after an incremental one.
	var st *store.Store
	var prev, next watch.Snapshot
	var metas map[watch.ID]store.Meta
	partial := false
	if !first && a.keys != nil {
		st, prev, next, metas, partial = w.readChangedSQLite(a, db)
	}
	if !partial {
		if st, err = db.StoreMeta(); err != nil {
			if first {
				return nil, err
			}
			w.l.debug("watch: cannot read the SQLite store; retrying", "path", a.path, "err", err)
			return nil, nil
		}
		// What the next commit is compared with (nil where the index is
		// missing: then every commit reads the store in full).
		a.keys, _, _ = db.Stamps()
		prev = a.snap
		next, metas = w.rows(st, func(string) string { return a.agent }, a.snap, a.metas)
	}
	after := a.lastRow
	if first {
		after = -1
	}
	var firstSeq map[string]int64
	var last int64
	if w.q.Messages {
		if firstSeq, last, err = db.EventsAfter(after); err != nil {
			if first {
				return nil, err
			}
			w.l.debug("watch: cannot read the SQLite transcript events; retrying", "path", a.path, "err", err)
			return nil, nil
		}
	}
	a.stamps = stamps
	var evs []watch.Event
	if !first {
		evs = watch.Diff(prev, next)
	}
	for i := range evs {
		if evs[i].Kind != watch.Removed {
			r := next[evs[i].ID].Row
			evs[i].Row = &r
		}
	}
	if partial {
		for id, it := range prev {
			delete(a.snap, id)
			delete(a.metas, id)
			if a.sids[it.Row.SessionID] == id {
				delete(a.sids, it.Row.SessionID)
			}
		}
		maps.Copy(a.snap, next)
		maps.Copy(a.metas, metas)
	} else {
		a.snap, a.metas = next, metas
		a.sids = make(map[string]watch.ID, len(next))
	}
	for id, it := range next {
		if it.Row.SessionID != "" {
			a.sids[it.Row.SessionID] = id
		}
	}
	if first || !w.q.Messages {
		a.lastRow = last
		return evs, nil
	}
	sids := make([]string, 0, len(firstSeq))
	for sid := range firstSeq {
		if _, ok := a.sids[sid]; ok {
			sids = append(sids, sid)
		}
	}
	slices.Sort(sids)
	for _, sid := range sids {
		id := a.sids[sid]
		err := db.EventsFrom(sid, firstSeq[sid], transcript.Options{}.MaxLine(), func(seq int64, data []byte, st transcript.Status) {
			if st != transcript.StatusMessage {
				return
			}
			if msg, st := transcript.Classify(data, true); st == transcript.StatusMessage {
				evs = append(evs, watch.Event{Kind: watch.Message, ID: id, Msg: append(json.RawMessage(nil), msg...),
					MsgID: gjson.GetBytes(data, "id").String()})
			}
		})
		if err != nil {
			w.l.debug("watch: cannot read a SQLite transcript", "session", sid, "err", err)
		}
	}
	a.lastRow = last
	return evs, nil
}

// readChangedSQLite reads again only the sessions whose updated_at moved,
// that came or went, or whose entry is not marked valid, since the last
// look (sqlitestore.Stamps: two indexes, no entry read). OpenClaw writes
// an entry with an updatedAt of at least now and marks it valid, so any
// change of an entry it makes moves the stamp; another writer's leaves the
// entry unvalidated. Many changes at once (a migration, a prune) are read
// in full.
func (w *localWatch) readChangedSQLite(a *sqliteAgent, db *sqlitestore.DB) (st *store.Store, prev, next watch.Snapshot, metas map[watch.ID]store.Meta, ok bool) {
	cur, unvalidated, err := db.Stamps()
	if err != nil {
		return nil, nil, nil, nil, false
	}
	var changed []string
	again := make(map[string]bool, len(unvalidated)) // read again at every commit until validated
	for _, k := range unvalidated {
		again[k] = true
	}
	prev = watch.Snapshot{}
	see := func(k string) {
		id := watch.ID{Agent: a.agent, Key: w.s.DisplayKey(k)}
		if it, ok := a.snap[id]; ok {
			prev[id] = it
		}
	}
	for k, u := range cur {
		if old, ok := a.keys[k]; !ok || old != u || again[k] {
			changed = append(changed, k)
			see(k)
		}
	}
	for k := range a.keys {
		if _, ok := cur[k]; !ok {
			see(k)
		}
	}
	if len(changed) > maxPartial {
		return nil, nil, nil, nil, false
	}
	slices.Sort(changed)
	entries := make([]store.Entry, 0, len(changed))
	for _, k := range changed {
		raw, ok, err := db.EntryRaw(k)
		if err != nil {
			return nil, nil, nil, nil, false
		}
		if !ok {
			continue // hidden (a placeholder, a bad row): as StoreMeta leaves it out
		}
		m, ok := store.EntryMeta(raw)
		if !ok {
			continue
		}
		entries = append(entries, store.Entry{Key: k, Meta: m})
	}
	st = store.FromEntries(a.path, entries, 0)
	next, metas = w.rows(st, func(string) string { return a.agent }, a.snap, a.metas)
	a.keys = cur
	return st, prev, next, metas, true
}

// maxPartial is how many changed sessions a SQLite store's commit may have
// before the feed reads the whole store rather than each of them.
const maxPartial = 256

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
