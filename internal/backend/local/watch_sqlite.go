package local

// The SQLite era's side (OpenClaw 2026.8+) of the local change feed
// (watch.go): the per-agent database read again when it or its
// -wal changed, only the sessions whose stamps moved, the transcript
// events from the last rowid read on.

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/watch"
	"github.com/tidwall/gjson"
)

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
