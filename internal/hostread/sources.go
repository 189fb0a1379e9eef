package hostread

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/startheap"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
	"github.com/openclaw/sessions/internal/usage"
)

// What search and usage read: one definition of the transcripts of a
// state dir in scope, each a selection from the one enumeration of them
// (internal/transcripts), agent by agent (the agents in scope, those of an
// agent without a store too):
//
//   - live: the transcripts of the entries (a 2026.1.30 session's JSONL
//     file, a 2026.8+ session's events in the SQLite store);
//   - archived: the .reset/.deleted copies of the agent's directories (the
//     sessions dir, and the store's when it is another one; any sessionId,
//     compressed or not) and the archives a 2026.9 store keeps;
//   - orphans (transcripts.Orphan): the transcripts no entry points to — a
//     2026.1.30 <sessionId>.jsonl no entry claims, every <sessionId>.jsonl
//     of an agent without a store, a 2026.8+ store's events of a sessionId
//     no entry has.
//
// A sandboxed requester reads the live transcripts of the sessions it may
// see, and the archived copies and orphans that belong to one of them
// (transcripts.Agent.Sees). With IncludeArchived both cover all three;
// without it search reads the live transcripts only, and usage the live
// transcripts and the orphans (every token spent is counted by default:
// the sessions a /new or a crash left behind were always in its totals).
// TestSearchUsageCoverage holds search and usage to that set.

// searchSources lists what a search reads, agent by agent, each agent's
// sessions newest first. label is the label as the requester reads it
// (nil: as stored): --label matches that, so that an agent, which reads
// labels masked, cannot learn a masked label by guessing it.
func searchSources(s *state.State, q *SearchQuery, label func(string) string) ([]srch.Source, []*lazyOrphans, error) {
	return searchSourcesReusing(s, q, label, nil, nil)
}

// searchBytesPerEntry and usageBytesPerEntry are about what a search and a
// usage process allocate for each session they read (its source or unit,
// the maps that find it, its stamp, its records): ~24 MB for the
// 10,000-session store.
const (
	searchBytesPerEntry = 2400
	usageBytesPerEntry  = 2400
)

// searchSourcesReusing is searchSources with reads (nil: none), the agents
// read so far in this search, by id: those are taken as they are
// (transcripts.Options.Reuse), and those read are added. With burst (not
// nil), an agent of many sessions has the heap grown for the whole search
// (startheap.Burst), and *burst is set to what ends that.
func searchSourcesReusing(s *state.State, q *SearchQuery, label func(string) string, reads map[string]*transcripts.Agent, burst *func()) ([]srch.Source, []*lazyOrphans, error) {
	var only *state.Target
	if q.Key != "" {
		t, err := s.Resolve(q.Key, policy.OpHistory)
		if err != nil {
			return nil, nil, err
		}
		only = t
	}
	archives := q.IncludeArchived
	to := transcripts.Options{AllAgents: q.AllAgents, StoreArchives: archives, Reuse: reads}
	if only != nil {
		to.Agent = only.Agent
	}
	set, err := transcripts.Open(s, to)
	if err != nil {
		return nil, nil, err
	}
	var out []srch.Source
	var lazy []*lazyOrphans
	var seen map[string]bool // made for the first agent's size
	labelled := false
	for a := range set.All() {
		if reads != nil {
			reads[a.ID] = a
		}
		if a.Err != nil {
			if set.Multi() {
				s.Warnf(a.Err.Error())
				continue
			}
			return nil, nil, a.Err
		}
		// sized for every entry searched: grown one doubling at a time,
		// 10,000 sessions' maps were rehashed a tenth of a CLI search's time
		n := len(a.Entries)
		if only != nil {
			n = 1
		}
		startheap.BurstOnto(burst, n*searchBytesPerEntry)
		bySession := make(map[string]srch.Source, n)
		byKey := make(map[string]srch.Source, n) // the sessions searched, by stored key
		if seen == nil {
			seen = make(map[string]bool, n+len(a.Files))
		}
		var srcs []srch.Source
		srcs, labelled = searchEntries(s, a, q, only, seen, byKey, bySession, labelled, label)
		out = append(out, srcs...)
		if archives {
			if a.SQLite() {
				out = append(out, storeArchives(s, a, byKey, q, seen)...)
			}
			out = append(out, archivedFiles(s, a, bySession, q, seen)...)
			var l *lazyOrphans
			if out, l = orphanFiles(s, a, byKey, q, seen, out); l != nil {
				lazy = append(lazy, l)
			}
		}
	}
	if q.Label != "" && !labelled {
		return nil, nil, apperr.NotFoundf("No session with label: %s", q.Label)
	}
	return out, lazy, nil
}

// searchEntries are the transcripts of an agent's entries a search reads,
// newest session first; labelled says a session has the label asked for
// (as label gives it; nil: as stored).
func searchEntries(s *state.State, a *transcripts.Agent, q *SearchQuery, only *state.Target, seen map[string]bool, byKey, bySession map[string]srch.Source, labelled bool, label func(string) string) ([]srch.Source, bool) {
	sqlite := a.SQLite()
	var current map[string]bool
	if sqlite && !q.NoIndex && a.DB != nil {
		var err error
		if current, err = a.DB.FTSCurrent(); err != nil {
			s.Warnf(fmt.Sprintf("OpenClaw's search index of agent %s: %v; scanning the events", a.ID, err))
		}
	}
	entries := slices.Clone(a.Entries)
	state.SortNewestFirst(entries)
	if !sqlite && a.Store != nil {
		// the transcripts are looked up in the store's directory: listed
		// once when that is cheaper than an lstat each (the listing
		// transcripts made says how many names it holds)
		n := len(entries)
		if only != nil {
			n = 1
		}
		names := 0
		for i := range a.Files {
			if a.Files[i].Dir == a.Store.Dir {
				names++
			}
		}
		s.Resolver.ExpectIn(a.Store.Dir, n, names)
	}
	var out []srch.Source
	for _, e := range entries {
		if !s.Listable(e.Key) || !s.Visible(e) || e.SessionID == "" {
			continue
		}
		if only != nil && e != only.Entry {
			continue
		}
		r := s.Row(a.ID, a.Store, e)
		if q.Label != "" {
			l := r.Label
			if label != nil {
				l = label(l)
			}
			if l != q.Label {
				continue
			}
			labelled = true
		}
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, r.Kind) {
			continue
		}
		src := srch.Source{Agent: a.ID, Key: r.Key, Kind: r.Kind, Label: r.Label, SessionID: e.SessionID}
		byKey[e.Key] = src
		bySession[e.SessionID] = src
		if sqlite {
			src.DB = a.DB
			src.Index = current[e.SessionID]
			if id := "db:" + a.ID + ":" + e.SessionID; !seen[id] {
				seen[id] = true
				out = append(out, src)
			}
			continue
		}
		tp, err := s.Transcript(a.ID, a.Store, e)
		if err != nil {
			s.Warnf(err.Error())
			continue
		}
		if !tp.Exists || seen[tp.Path] {
			continue
		}
		seen[tp.Path] = true
		src.Path = tp.Path
		out = append(out, src)
	}
	return out, labelled
}

// storeArchives are the archived transcripts an OpenClaw 2026.9 store keeps
// (session_transcript_archives), newest first; they carry the key of their
// session, and are left out of a search restricted to sessions (--key,
// --label, --kinds) unless that session is searched. Their names are marked
// seen: the same archive published as a file is not read twice.
func storeArchives(s *state.State, a *transcripts.Agent, byKey map[string]srch.Source, q *SearchQuery, seen map[string]bool) []srch.Source {
	if a.ArchivesErr != nil {
		s.Warnf(fmt.Sprintf("transcript archives of agent %s: %v", a.ID, a.ArchivesErr))
		return nil
	}
	var out []srch.Source
	for i := range a.Archives {
		arc := &a.Archives[i]
		if !a.Sees(s, arc.SessionID, "") {
			continue
		}
		src, known := byKey[arc.SessionKey]
		if !known {
			if q.Key != "" || q.Label != "" || len(q.Kinds) > 0 || !s.Listable(arc.SessionKey) {
				continue
			}
			src = srch.Source{Agent: a.ID, Key: s.DisplayKey(arc.SessionKey), Kind: keys.Kind(arc.SessionKey, "")}
		}
		src.SessionID, src.Archived, src.Archive, src.DB, src.Index = arc.SessionID, arc.Name, arc, a.DB, false
		seen["archive:"+a.ID+":"+arc.Name] = true
		out = append(out, src)
	}
	return out
}

// archivedFiles are the .deleted/.reset copies in an agent's directories
// (archivedCopies), each directory's newest name first. One whose
// sessionId is a searched session's carries its key; others have none and
// are left out when the search is restricted to sessions (--key, --label,
// --kinds).
func archivedFiles(s *state.State, a *transcripts.Agent, bySession map[string]srch.Source, q *SearchQuery, seen map[string]bool) []srch.Source {
	var out []srch.Source
	copies := archivedCopies(s, a)
	for lo := 0; lo < len(copies); {
		hi := lo
		for hi < len(copies) && copies[hi].Dir == copies[lo].Dir {
			hi++
		}
		for i := hi - 1; i >= lo; i-- {
			f := copies[i]
			sid := f.ArchiveOf()
			p := f.Path()
			if seen[p] || seen["archive:"+a.ID+":"+f.Name] {
				continue
			}
			src, known := bySession[sid]
			if !known {
				if q.Key != "" || q.Label != "" || len(q.Kinds) > 0 {
					continue
				}
				src = srch.Source{Agent: a.ID, SessionID: sid}
			}
			seen[p] = true
			src.Path, src.Archived, src.Zstd = p, f.Name, f.Zstd()
			src.DB, src.Index = nil, false
			out = append(out, src)
		}
		lo = hi
	}
	return out
}

// archivedCopies are the .reset/.deleted copies of an agent's directories
// (the sessions dir, then the store's), each directory's by name: for a
// sandboxed requester those of the sessions it may see.
func archivedCopies(s *state.State, a *transcripts.Agent) []*transcripts.File {
	var out []*transcripts.File
	for i := range a.Files {
		f := &a.Files[i]
		if sid := f.ArchiveOf(); sid != "" && a.Sees(s, sid, "") {
			out = append(out, f)
		}
	}
	return out
}

// orphansInScope are the agent's orphans (transcripts.Orphan) the
// requester reads, warning when a store's transcripts cannot be listed.
// With keys (and always for a sandboxed requester: an orphan's key says
// whether it may see it) the keys later transcripts' headers give are set
// too (transcripts.Agent.Attribute reads the start of every transcript).
func orphansInScope(s *state.State, a *transcripts.Agent, keys bool) []transcripts.Orphan {
	all := a.Orphans(s)
	if a.StoredErr != nil {
		s.Warnf(fmt.Sprintf("transcripts of agent %s: %v", a.ID, a.StoredErr))
	}
	if keys || s.Req.Restrict {
		a.Attribute(s, all)
	}
	out := all[:0:0]
	for _, o := range all {
		if a.Sees(s, "", o.Key) {
			out = append(out, o)
		}
	}
	return out
}

// orphanFiles appends the agent's orphan transcripts (transcripts.Orphan)
// to out: files by name, a 2026.8+ store's events by sessionId. One
// attributed to a searched session carries its key; the others are left
// out when the search is restricted to sessions (--key, --label, --kinds),
// and carry the key they belonged to when it is known. A search not
// restricted so needs those keys for its hits only: they are looked for
// after it (lazyOrphans), for the agents whose orphans have hits.
func orphanFiles(s *state.State, a *transcripts.Agent, byKey map[string]srch.Source, q *SearchQuery, seen map[string]bool, out []srch.Source) ([]srch.Source, *lazyOrphans) {
	restricted := q.Key != "" || q.Label != "" || len(q.Kinds) > 0
	orphans := orphansInScope(s, a, restricted)
	var lazy *lazyOrphans
	if !restricted && !s.Req.Restrict {
		lazy = &lazyOrphans{a: a, orphans: orphans, src: make([]int, len(orphans)), byKey: byKey}
	}
	for i, o := range orphans {
		if lazy != nil {
			lazy.src[i] = -1
		}
		p := o.Path()
		if o.File == nil {
			p = "db:" + a.ID + ":" + o.SessionID
		}
		if seen[p] {
			continue
		}
		src, known := byKey[o.Key]
		if !known {
			if restricted {
				continue
			}
			src = orphanSource(s, a.ID, o.Key)
		}
		seen[p] = true
		src.SessionID, src.Path, src.Orphan = o.SessionID, o.Path(), true
		src.DB, src.Archive, src.Index, src.Archived, src.Zstd = nil, nil, false, "", false
		if o.File == nil {
			src.DB = a.DB // its events, never the index (OpenClaw indexes sessions)
		}
		if lazy != nil {
			lazy.src[i] = len(out)
		}
		out = append(out, src)
	}
	return out, lazy
}

// orphanSource is the source of an orphan of no searched session: its key
// when it is known.
func orphanSource(s *state.State, agent, key string) srch.Source {
	src := srch.Source{Agent: agent}
	if key != "" && s.Listable(key) {
		src.Key, src.Kind = s.DisplayKey(key), keys.Kind(key, "")
	}
	return src
}

// lazyOrphans are an agent's orphan files a search read before the keys
// later transcripts' headers give were looked for.
type lazyOrphans struct {
	a       *transcripts.Agent
	orphans []transcripts.Orphan
	src     []int // each orphan's source (-1: not read)
	byKey   map[string]srch.Source
}

// orphanKeys sets the keys of the orphan sources with hits that have none
// yet, reading the headers of the transcripts of their agents only.
func orphanKeys(s *state.State, srcs []srch.Source, hits []srch.Found, lazy []*lazyOrphans) {
	if len(lazy) == 0 {
		return
	}
	hit := map[int]bool{}
	for _, h := range hits {
		if src := &srcs[h.Src]; src.Orphan && src.Key == "" && src.DB == nil {
			hit[h.Src] = true
		}
	}
	for _, l := range lazy {
		needed := false
		for _, i := range l.src {
			needed = needed || i >= 0 && hit[i]
		}
		if !needed {
			continue
		}
		l.a.Attribute(s, l.orphans)
		for j, o := range l.orphans {
			i := l.src[j]
			if i < 0 || o.Key == "" || srcs[i].Key != "" {
				continue
			}
			src, known := l.byKey[o.Key]
			if !known {
				src = orphanSource(s, l.a.ID, o.Key)
			}
			src.SessionID, src.Path, src.Orphan = srcs[i].SessionID, srcs[i].Path, true
			src.DB, src.Archive, src.Index, src.Archived, src.Zstd = nil, nil, false, "", false
			srcs[i] = src
		}
	}
}

// usageSession is what the store says about a sessionId.
type usageSession struct {
	key, kind, channel, cron string
	storeKey                 string // the key as stored
	visible                  bool
}

// usageUnitInfo is what the listing knows about a unit.
type usageUnitInfo struct {
	agent     string
	sessionID string // JSONL units
	key       string // an orphan's key when it is known (as stored)
	archived  bool
}

// usageCatalog maps units to their agent and sessions to their store
// entries.
type usageCatalog struct {
	units    []usageUnitInfo
	sessions map[string]map[string]usageSession // agent → sessionId → info
	// orphans are the keys of a 2026.8+ store's orphans (agent → sessionId
	// → key as stored), when known.
	orphans map[string]map[string]string
}

func (c *usageCatalog) orphanKey(agent, sessionID, key string) {
	if c.orphans == nil {
		c.orphans = map[string]map[string]string{}
	}
	if c.orphans[agent] == nil {
		c.orphans[agent] = map[string]string{}
	}
	c.orphans[agent][sessionID] = key
}

// usageUnits lists the files usage reads (the coverage above): per agent,
// its SQLite store (2026.8+: its events, orphans included, and with
// IncludeArchived its archives) or the JSONL transcripts of its entries,
// its orphan transcripts and, with IncludeArchived, its archived copies.
// With burst (not nil), an agent of many sessions has the heap grown for
// the whole count (startheap.BurstOnto onto *burst).
func usageUnits(s *state.State, q *UsageQuery, lockTimeout time.Duration, burst *func()) ([]usage.Unit, *usageCatalog, error) {
	set, err := transcripts.Open(s, transcripts.Options{AllAgents: q.AllAgents})
	if err != nil {
		return nil, nil, err
	}
	l := &usageListing{cat: &usageCatalog{sessions: map[string]map[string]usageSession{}}, seen: map[string]bool{}}
	for a := range set.All() {
		if a.Err != nil {
			if set.Multi() {
				s.Warnf(a.Err.Error())
				continue
			}
			return nil, nil, a.Err
		}
		if a.DirErr != nil {
			return nil, nil, a.DirErr
		}
		startheap.BurstOnto(burst, (len(a.Entries)+len(a.Files))*usageBytesPerEntry)
		if err := l.agent(s, a, q, lockTimeout); err != nil {
			return nil, nil, err
		}
	}
	return l.units, l.cat, nil
}

// usageListing is the units found so far, each path once.
type usageListing struct {
	units []usage.Unit
	cat   *usageCatalog
	seen  map[string]bool
}

func (l *usageListing) add(u usage.Unit, info usageUnitInfo) {
	if l.seen[u.Path] {
		return
	}
	l.seen[u.Path] = true
	l.units = append(l.units, u)
	l.cat.units = append(l.cat.units, info)
}

// addFile adds a transcript file of the agent's directories.
func (l *usageListing) addFile(f *transcripts.File, info usageUnitInfo) {
	if fi, err := f.Entry.Info(); err == nil {
		l.add(usage.FileUnit(f.Path(), fi, info.sessionID, info.archived), info)
	}
}

// agent adds one agent's units.
func (l *usageListing) agent(s *state.State, a *transcripts.Agent, q *UsageQuery, lockTimeout time.Duration) error {
	infos := map[string]usageSession{}
	l.cat.sessions[a.ID] = infos
	// The sessions dir first: most transcripts are <sessionId>.jsonl there,
	// found without resolving each entry's path.
	dir := a.SessionsDir
	inDir := make(map[string]*transcripts.File, len(a.Files))
	for i := range a.Files {
		if f := &a.Files[i]; f.Dir == dir {
			inDir[f.Name] = f
		}
	}
	for _, e := range a.Entries {
		sid := e.Meta.SessionID
		if sid == "" || !s.Listable(e.Key) {
			continue
		}
		row := s.Row(a.ID, a.Store, e)
		in := usageSession{key: row.Key, kind: row.Kind, channel: row.Channel, cron: cronJob(e.Key), storeKey: e.Key, visible: s.Visible(e)}
		if prev, ok := infos[sid]; ok && prev.visible && !in.visible {
			continue
		}
		infos[sid] = in
		if a.Era != era.JSON || !in.visible {
			continue
		}
		sf := e.Meta.SessionFile
		if name := sid + ".jsonl"; (sf == "" || filepath.Dir(sf) == dir) && inDir[name] != nil && (sf == "" || filepath.Base(sf) == name) {
			l.addFile(inDir[name], usageUnitInfo{agent: a.ID, sessionID: sid})
			continue
		}
		tr, err := s.Transcript(a.ID, a.Store, e)
		if err != nil || !tr.Exists {
			continue
		}
		if fi, err := os.Stat(tr.Path); err == nil && fi.Mode().IsRegular() {
			l.add(usage.FileUnit(tr.Path, fi, sid, false), usageUnitInfo{agent: a.ID, sessionID: sid})
		}
	}
	if a.Era == era.SQLite {
		p := s.SQLitePath(a.ID)
		fi, err := os.Stat(p)
		if err != nil {
			return apperr.Statef("cannot read OpenClaw SQLite store %s: %v", p, err)
		}
		l.add(usage.SQLiteUnit(p, fi, q.IncludeArchived, lockTimeout, s.Warnf), usageUnitInfo{agent: a.ID})
	}
	for _, o := range orphansInScope(s, a, q.orphanKeys()) {
		if o.File == nil { // in the SQLite unit: its key, for the parts of its sessionId
			if o.Key != "" {
				l.cat.orphanKey(a.ID, o.SessionID, o.Key)
			}
			continue
		}
		l.addFile(o.File, usageUnitInfo{agent: a.ID, sessionID: o.SessionID, key: o.Key})
	}
	if q.IncludeArchived {
		for _, f := range archivedCopies(s, a) {
			l.addFile(f, usageUnitInfo{agent: a.ID, sessionID: f.ArchiveOf(), archived: true})
		}
	}
	return nil
}

// sources attaches each part to its session (key, kind, channel, cron job
// from the store), leaving out what the requester may not see, and sums the
// skipped lines.
func (c *usageCatalog) sources(s *state.State, parts [][]usage.Part) ([]usage.Source, usage.Skips, int) {
	var srcs []usage.Source
	var sk usage.Skips
	files := 0
	for i, ps := range parts {
		ui := c.units[i]
		var fileSkips usage.Skips
		for _, p := range ps {
			fileSkips.Add(p.Skips)
			if p.SessionID == "" && len(p.Records) == 0 {
				continue
			}
			sess, ok := c.session(s, ui, p)
			if !ok {
				continue
			}
			srcs = append(srcs, usage.Source{Session: sess, Models: p.Models, Records: p.Records})
		}
		if fileSkips.Total() > 0 {
			files++
			sk.Add(fileSkips)
		}
	}
	return srcs, sk, files
}

// orphanKeys: the rows need the key an orphan belonged to (its session,
// kind, channel or cron job), not only its messages' times, models or agent.
func (q *UsageQuery) orphanKeys() bool {
	return slices.ContainsFunc(q.By, func(d string) bool {
		return d == "session" || d == "kind" || d == "channel" || d == "cron"
	})
}

// session is the session a part of unit ui is counted as, ok false when
// the requester may not see it: the entry of its sessionId, else the key
// it is known to belong to (a 2026.9 archive's, an orphan's), else none.
func (c *usageCatalog) session(s *state.State, ui usageUnitInfo, p usage.Part) (usage.Session, bool) {
	in, known := c.sessions[ui.agent][p.SessionID]
	key := cmp.Or(p.Key, ui.key, c.orphans[ui.agent][p.SessionID])
	switch {
	case known && !in.visible:
		return usage.Session{}, false
	case !known && s.Req.Restrict:
		// an orphan or archive of a session the requester may see
		if of, ok := c.byKey(ui.agent, key); key == "" || !ok || !of.visible {
			return usage.Session{}, false
		}
	}
	sess := usage.Session{SessionID: p.SessionID, Agent: ui.agent, Archived: ui.archived || p.Archived}
	switch {
	case known:
		sess.Key, sess.Kind, sess.Channel, sess.CronJob = in.key, in.kind, in.channel, in.cron
	case key != "":
		row := keyInfo(s, key)
		sess.Key, sess.Kind, sess.Channel, sess.CronJob = row.key, row.kind, row.channel, row.cron
	}
	return sess, true
}

// byKey is the session of a stored key in the agent's store, if any.
func (c *usageCatalog) byKey(agent, key string) (usageSession, bool) {
	for _, in := range c.sessions[agent] {
		if in.storeKey == key {
			return in, true
		}
	}
	return usageSession{}, false
}

// keyInfo describes the key of a transcript no entry's sessionId names (a
// 2026.8+ archive, an orphan whose key is known), from the key alone.
func keyInfo(s *state.State, key string) usageSession {
	kind := keys.Kind(key, "")
	return usageSession{
		key:     s.DisplayKey(key),
		kind:    kind,
		channel: keys.Channel(kind, key, "", "", ""),
		cron:    cronJob(key),
	}
}

// cronJob is the job id of a cron session key (agent:<id>:cron:<jobId>, also
// …:cron:<jobId>:run:<runId>), "" for any other key.
func cronJob(key string) string {
	rest := keys.Rest(key)
	if !strings.HasPrefix(rest, "cron:") {
		return ""
	}
	job := strings.TrimPrefix(rest, "cron:")
	if i := strings.IndexByte(job, ':'); i >= 0 {
		job = job[:i]
	}
	return job
}
