package local

// The JSON era's side of the local change feed (watch.go): each
// sessions.json read again where it changed, the JSONL transcripts read
// from where the last read ended.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/storediff"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/watch"
	"github.com/tidwall/gjson"
)

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
	res.SingleLink = w.s.Resolver.SingleLink
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
