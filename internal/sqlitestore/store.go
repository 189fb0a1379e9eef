package sqlitestore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/store"
)

// internalEffectsSegment marks the hidden rows OpenClaw keeps for an
// internal run's suppressed effects (agent:<id>:internal-session-effects:…);
// OpenClaw's own listings never show them.
const internalEffectsSegment = "internal-session-effects:"

// IsInternalKey reports whether key is one of those hidden rows
// (isInternalSessionEffectsKey in OpenClaw 2026.9.6).
func IsInternalKey(key string) bool {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return false
	}
	i := strings.IndexByte(rest, ':')
	return i >= 0 && strings.HasPrefix(rest[i+1:], internalEffectsSegment)
}

// Store reads every session row and returns them as a store.Store, as if
// they had been read from a sessions.json whose keys are the session keys
// and whose values are the rows' entry_json (see doc.go for the mapping):
// Entry.Raw is entry_json byte for byte, Entry.Meta is what the sessions.json
// reader extracts from it plus the 2026.8+ fields it maps (delivery →
// deliveryContext/lastChannel/lastTo/channel). Rows are in session_key order
// (OpenClaw's own listing order before it sorts by updatedAt).
//
// Rows OpenClaw's listing leaves out are left out too: internal-effects rows
// (IsInternalKey) silently; rows whose entry_json is not a JSON object with
// a string sessionId and a numeric updatedAt equal to the row's updated_at
// column (OpenClaw's parseSqliteSessionEntryRecord) are counted in
// Store.Skipped and reported once through Options.Warn.
//
// Store.Path is the database file and Store.Dir its directory; there is no
// sessions.json and no transcript file: read transcripts with Messages.
func (db *DB) Store() (*store.Store, error) { return db.store(false) }

// StoreMeta is Store for readers that need only keys and Meta (listing,
// lookups), as store.LoadMeta is for a sessions.json: the entries have no
// Raw. The rows' entry_json is then scanned where it lies and nothing of it
// is kept — on a 10,000-session database, 140 MB less to copy, and to
// allocate, fault in and zero first.
func (db *DB) StoreMeta() (*store.Store, error) { return db.store(true) }

func (db *DB) store(lean bool) (*store.Store, error) {
	defer relaxGC()()
	var entries []store.Entry
	var skipped int
	var firstBad, why string
	err := db.read("read sessions", func(tx *sql.Tx) error {
		entries, skipped, firstBad, why = nil, 0, "", ""
		var outs [][]parsed
		if db.direct != nil && directOn() {
			var ok bool
			if outs, ok = db.storeDirect(tx, lean); ok {
				entries, skipped, firstBad, why = collect(outs)
				return db.attach(tx, entries, lean)
			}
		}
		var n int
		if err := tx.QueryRow("SELECT count(*) FROM session_nodes").Scan(&n); err != nil {
			return err
		}
		// CAST AS BLOB hands entry_json over as bytes the driver copied out
		// of SQLite for this row alone; sql.RawBytes then keeps that copy
		// instead of copying it again (entry_json is most of the 14 KB of a
		// 2026.9 row: skillsSnapshot, systemPromptReport).
		//
		// The rows come in table (rowid) order, the order their pages lie in
		// the file, and are sorted by key here: ORDER BY session_key would
		// walk the key index and seek into the table once per row.
		rows, err := tx.Query("SELECT session_key, CAST(entry_json AS BLOB), updated_at FROM session_nodes")
		if err != nil {
			return err
		}
		defer rows.Close()
		p := newParser(n, lean)
		defer p.stop()
		var prev *byte
		for rows.Next() {
			var r rawRow
			var raw sql.RawBytes
			if err := rows.Scan(&r.key, &raw, &r.updated); err != nil {
				return err
			}
			if hidden(r.key, raw) {
				continue
			}
			// A driver that reused its buffer would hand over the same
			// memory again: then (and only then) copy.
			if ptr := unsafe.SliceData(raw); ptr != nil && ptr == prev {
				raw = bytes.Clone(raw)
			} else {
				prev = ptr
			}
			r.raw = raw
			p.add(r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		entries, skipped, firstBad, why = collect([][]parsed{p.wait()})
		return db.attach(tx, entries, lean)
	})
	if err != nil {
		return nil, err
	}
	if skipped > 0 && db.opts.Warn != nil {
		more := ""
		if skipped > 1 {
			more = fmt.Sprintf(" (and %d more)", skipped-1)
		}
		db.opts.Warn(fmt.Sprintf("OpenClaw SQLite store %s: left out session %q%s: %s", db.path, firstBad, more, why))
	}
	return store.FromEntries(db.path, entries, skipped), nil
}

// hidden reports the rows OpenClaw's listing leaves out silently: the
// internal-effects rows, and entry_json {} — OpenClaw's placeholder of a
// deleted session whose transcript windows stay (2026.9.6
// clearSqliteSessionEntryPreservingWindows, entry_valid -1): no session,
// and nothing to warn about.
func hidden(key string, raw []byte) bool {
	return IsInternalKey(key) || string(raw) == "{}"
}

// collect splits parsed rows (in parts) into entries in session_key order (SQLite's
// BINARY collation compares bytes, as Go's string comparison does; keys
// are unique) and the rows left out: how many, and the first by key with
// why.
func collect(parts [][]parsed) (entries []store.Entry, skipped int, firstBad, why string) {
	// Sort positions, then move each entry once: an Entry is several
	// hundred bytes, and sorting 10,000 of them in place moves each many
	// times over.
	type at struct{ p, i int32 }
	n := 0
	for _, outs := range parts {
		n += len(outs)
	}
	order := make([]at, 0, n)
	for p, outs := range parts {
		for i, out := range outs {
			if out.problem != "" {
				if skipped == 0 || out.e.Key < firstBad {
					firstBad, why = out.e.Key, out.problem
				}
				skipped++
				continue
			}
			order = append(order, at{int32(p), int32(i)})
		}
	}
	if len(order) == 0 {
		return nil, skipped, firstBad, why
	}
	slices.SortFunc(order, func(a, b at) int {
		return strings.Compare(parts[a.p][a.i].e.Key, parts[b.p][b.i].e.Key)
	})
	entries = make([]store.Entry, len(order))
	for j, o := range order {
		entries[j] = parts[o.p][o.i].e
	}
	return entries, skipped, firstBad, why
}

// parse turns one row into its entry, or says why it is not one.
func parse(key string, raw []byte, updated sql.NullFloat64) parsed {
	var out parsed
	out.e, out.problem = entryOf(key, raw, updated)
	if out.problem != "" {
		out.e.Key = key
	}
	return out
}

// rawRow is one session_nodes row as read.
type rawRow struct {
	key     string
	raw     []byte
	updated sql.NullFloat64
}

// parsed is a row turned into an entry, or why it is not one.
type parsed struct {
	e       store.Entry
	problem string
}

// parser turns rows into entries on other goroutines while SQLite steps to
// the next rows (a 10k-session store is ~140 MB of entry JSON: reading it
// out of SQLite and scanning it cost about the same, so they overlap).
// Batches keep their order.
type parser struct {
	cur     []rawRow
	work    chan int
	batches [][]rawRow
	outs    [][]parsed
	wg      sync.WaitGroup
	mu      sync.Mutex
	stopped bool
}

const parseBatch = 256

func newParser(n int, lean bool) *parser {
	p := &parser{work: make(chan int, 8)}
	p.batches = make([][]rawRow, 0, n/parseBatch+1)
	workers := max(1, min(runtime.GOMAXPROCS(0)-1, 4))
	for range workers {
		p.wg.Go(func() {
			for i := range p.work {
				p.mu.Lock()
				in := p.batches[i]
				p.mu.Unlock()
				out := make([]parsed, len(in))
				for j, r := range in {
					out[j] = parse(r.key, r.raw, r.updated)
					if lean {
						out[j].e.Raw = nil
					}
				}
				p.mu.Lock()
				p.outs[i] = out
				p.mu.Unlock()
			}
		})
	}
	return p
}

func (p *parser) add(r rawRow) {
	if p.cur == nil {
		p.cur = make([]rawRow, 0, parseBatch)
	}
	p.cur = append(p.cur, r)
	if len(p.cur) == parseBatch {
		p.flush()
	}
}

func (p *parser) flush() {
	if len(p.cur) == 0 {
		return
	}
	p.mu.Lock()
	p.batches = append(p.batches, p.cur)
	p.outs = append(p.outs, nil)
	i := len(p.batches) - 1
	p.mu.Unlock()
	p.cur = nil
	p.work <- i
}

// wait returns every row's result in row order.
func (p *parser) wait() []parsed {
	p.flush()
	p.stop()
	var all []parsed
	for _, out := range p.outs {
		all = append(all, out...)
	}
	return all
}

// stop ends the workers (idempotent; deferred for the error paths).
func (p *parser) stop() {
	if !p.stopped {
		p.stopped = true
		close(p.work)
		p.wg.Wait()
	}
}

// entryOf builds the store entry of one row, or says why the row is not a
// valid session (OpenClaw 2026.9.6 parseSqliteSessionEntryRecord).
func entryOf(key string, raw []byte, updated sql.NullFloat64) (store.Entry, string) {
	m, ok := store.EntryMeta(raw)
	if !ok {
		return store.Entry{}, "entry_json is not a JSON object"
	}
	if m.SessionID == "" {
		// Meta.SessionID is "" for a missing or non-string sessionId; an
		// empty string is no id either.
		return store.Entry{}, "entry_json has no sessionId"
	}
	if m.UpdatedAt == nil || math.IsInf(*m.UpdatedAt, 0) || math.IsNaN(*m.UpdatedAt) {
		return store.Entry{}, "entry_json has no numeric updatedAt"
	}
	if !updated.Valid || updated.Float64 != *m.UpdatedAt {
		return store.Entry{}, "entry_json's updatedAt differs from the row's updated_at"
	}
	mapEra(&m, raw)
	return store.Entry{Key: key, Raw: json.RawMessage(raw), Meta: m}, ""
}

// mapEra fills the Meta fields a sessions.json entry has and a 2026.8+ row
// keeps elsewhere (doc.go):
//
//   - sessionFile is a retired locator in 2026.8+ (OpenClaw strips it on
//     read; the transcript is in SQLite): cleared.
//   - delivery {kind:"external", context, origin, route} is the canonical
//     form of deliveryContext/lastChannel/lastTo/lastAccountId/channel;
//     OpenClaw projects it back (projectSessionDeliveryFields) as
//     deliveryContext = context, lastChannel = context.channel,
//     lastTo = context.to, lastAccountId = context.accountId,
//     channel = context.channel ?? origin.provider. Fields the entry itself
//     carries win. kind "none" and "internal" project nothing.
//   - chatType falls back to delivery.origin.chatType, then
//     delivery.route.target.chatType.
func mapEra(m *store.Meta, raw []byte) {
	m.SessionFile = ""
	d := gjson.GetBytes(raw, "delivery")
	if !d.IsObject() || d.Get("kind").Str != "external" {
		return
	}
	ctx, origin := d.Get("context"), d.Get("origin")
	str := func(r gjson.Result, path string) string {
		if v := r.Get(path); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	cChannel, cTo, cAccount := str(ctx, "channel"), str(ctx, "to"), str(ctx, "accountId")
	if m.DC == nil && ctx.IsObject() && (cChannel != "" || cTo != "" || cAccount != "") {
		m.DC = &store.DeliveryContext{Channel: cChannel, To: cTo, AccountID: cAccount}
	}
	if m.LastChannel == "" {
		m.LastChannel = cChannel
	}
	if m.LastTo == "" {
		m.LastTo = cTo
	}
	if m.LastAccountID == "" {
		m.LastAccountID = cAccount
	}
	if m.Channel == "" {
		m.Channel = cChannel
		if m.Channel == "" {
			m.Channel = str(origin, "provider")
		}
	}
	if m.ChatType == "" {
		m.ChatType = str(origin, "chatType")
		if m.ChatType == "" {
			m.ChatType = str(d, "route.target.chatType")
		}
	}
}

// EntryRaw is one session's entry JSON exactly as Store would keep it in
// Entry.Raw, read by key in a single-row query: the readers that need an
// entry's full JSON (show, a lifecycle dry run, spawn's requester fields)
// beside a StoreMeta that kept none. ok is false when the row is gone, is
// hidden, or is a row Store leaves out.
func (db *DB) EntryRaw(key string) (raw []byte, ok bool, err error) {
	err = db.read("read session", func(tx *sql.Tx) error {
		raw, ok = nil, false
		var b []byte
		var updated sql.NullFloat64
		e := tx.QueryRow("SELECT CAST(entry_json AS BLOB), updated_at FROM session_nodes WHERE session_key = ?", key).Scan(&b, &updated)
		if errors.Is(e, sql.ErrNoRows) {
			return nil
		}
		if e != nil {
			return e
		}
		if hidden(key, b) {
			return nil
		}
		if p := parse(key, b, updated); p.problem == "" {
			raw, ok = p.e.Raw, true
			if db.snapshots {
				snaps, err := readSnapshots(tx, key)
				if err != nil {
					return err
				}
				if s := snaps[key]; s != nil {
					raw = attachSnapshots(raw, s)
				}
			}
		}
		return nil
	})
	return raw, ok, err
}

// attach puts session_entry_snapshots back into the entries' Raw (agent
// schema 24), in the read transaction the rows came from; a lean read keeps
// no Raw and needs none.
func (db *DB) attach(tx *sql.Tx, entries []store.Entry, lean bool) error {
	if !db.snapshots || lean || len(entries) == 0 {
		return nil
	}
	snaps, err := readSnapshots(tx, "")
	if err != nil {
		return err
	}
	attachAll(entries, snaps)
	return nil
}
