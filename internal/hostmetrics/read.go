package hostmetrics

import (
	"cmp"
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/storecache"
	"github.com/openclaw/sessions/internal/transcripts"
)

// What a scrape keeps for the next one.
//
// Most of a scrape depends only on the agents' stores, the config and the
// directories their transcripts are listed from: the listing's rows
// (sessions by kind and channel, their update times, the largest by
// tokens), the archived copies, the file names locks are matched to, and
// which files usage reads and whose session each is. That is the
// structure of the state (scrapeReading), read with the operations
// themselves (list, the transcripts' enumeration, usage's listing of its
// files). A long-lived Reader keeps the last one, with the versions of
// every file and directory it was read from (scrapeKey: device, inode,
// size, modification and change times; the parsed config), and the next
// scrape takes it again when one stat of each shows none changed — the
// rule of the store cache (internal/storecache), racy reads included: a
// reading that began less than RacyWindow after one of them changed is
// used once and not kept.
//
// What can change without any of them changing is read on every scrape:
// the transcripts themselves (a line appended; one lstat each, on an open
// handle of their directory, which also gives their sizes), the locks held
// now, the runs, the time the active window is measured from. Usage rolls
// up again only when a transcript's stamp changed; the files whose stamp
// changed are read again, the others come from the usage cache, kept in
// memory. A reading is kept only where it is exactly what the operations
// would read again: never for a sandboxed requester (which reads more than
// the structure: the transcripts' headers), never when a part of it failed
// (a failure may be transient), never when an entry's transcript resolves
// through a symbolic link or a directory outside the ones checked.

// scrapeReading is the structure of the state one scrape read.
type scrapeReading struct {
	key     scrapeKey
	trusted bool     // key may be relied on: the next scrape may take it again
	warns   []string // what reading it warned about, said again with it

	sessions []metrics.SessionCount // the listing's rows and the archived copies, summed
	updated  []agentUpdate          // each row's update time
	tops     []metrics.SessionTokens
	// names are the sessions' transcript file names by agent (→ the key
	// shown), which a transcript lock is matched to (state.HeldLocks)
	names map[string]map[string]string
	// sfDirs are, by agent, the other directories its entries' sessionFile
	// name (a host migrated from another home keeps those paths): what is
	// there, or that nothing is, decides where their transcripts resolve
	sfDirs map[string][]string

	// usage: the files it reads and their sessions; nil when usage had
	// to be read agent by agent (usageRows then holds its rows)
	usage     *usageReading
	usageRows []hostread.UsageRow
}

type agentUpdate struct {
	agent string
	ms    int64
}

// scrapeKey is what a reading was read from.
type scrapeKey struct {
	cfg    *config.Config
	agents []string
	eras   []era.Era
	paths  []string
	vers   []storecache.Version
}

func (k *scrapeKey) equal(o *scrapeKey) bool {
	return slices.Equal(k.agents, o.agents) && slices.Equal(k.eras, o.eras) && slices.Equal(k.paths, o.paths) &&
		slices.Equal(k.vers, o.vers) && reflect.DeepEqual(k.cfg, o.cfg)
}

func (k *scrapeKey) racy(start time.Time) bool {
	return slices.ContainsFunc(k.vers, func(v storecache.Version) bool { return v.Racy(start) })
}

// agentDirs are the directories an agent's transcripts are listed from
// (transcripts.Agent.Files): its sessions dir, then its store's.
func agentDirs(s *state.State, agent string, e era.Era) []string {
	d := []string{filepath.Clean(s.SessionsDir(agent))}
	store, _ := s.StorePath(agent)
	if e == era.SQLite {
		store = s.SQLitePath(agent)
	}
	if sd := filepath.Dir(store); sd != d[0] {
		d = append(d, sd)
	}
	return d
}

// scrapeFiles are the listings and lstats one scrape takes, each once.
type scrapeFiles struct {
	start    time.Time // when the scrape began (the racy rule's)
	dirs     *dirCache
	listings map[string]*dirListing
	lstats   map[string]*dirStats
}

func (sc *scrapeFiles) listing(dir string) *dirListing {
	dir = filepath.Clean(dir)
	if l := sc.listings[dir]; l != nil {
		return l
	}
	l := sc.dirs.get(dir, sc.start)
	sc.listings[dir] = l
	return l
}

// stats are the lstats of dir's transcript files, taken once per scrape.
func (sc *scrapeFiles) stats(dir string) *dirStats {
	dir = filepath.Clean(dir)
	if d := sc.lstats[dir]; d != nil {
		return d
	}
	l := sc.listing(dir)
	d := &dirStats{l: l}
	d.stats, d.err = hoststat.StatNames(dir, l.transcripts)
	sc.lstats[dir] = d
	return d
}

// keyOf is the key of the agents' structure as the files are now, the
// directories listed (and kept in sc), sfDirs those of the entries'
// sessionFiles; ok is false when it cannot be relied on (a file that
// cannot be stat'ed, a listing read while its directory changed).
func keyOf(s *state.State, agents []string, sfDirs map[string][]string, sc *scrapeFiles) (k scrapeKey, ok bool) {
	k = scrapeKey{cfg: s.Cfg, agents: agents}
	ok = true
	for _, a := range agents {
		e := s.Era(a)
		k.eras = append(k.eras, e)
		js, _ := s.StorePath(a)
		db := s.SQLitePath(a)
		for _, p := range []string{js, db, db + "-wal"} {
			v, err := storecache.VersionOf(p)
			ok = ok && err == nil
			k.paths, k.vers = append(k.paths, p), append(k.vers, v)
		}
		for _, d := range append(agentDirs(s, a, e), sfDirs[a]...) {
			l := sc.listing(d)
			ok = ok && l.err == nil && l.trusted
			k.paths, k.vers = append(k.paths, d), append(k.vers, l.ver)
		}
	}
	return k, ok
}

// reading is the structure of the state for this scrape: the kept one
// when the files it was read from are unchanged, else read now (and kept
// when it can be).
func (m *Reader) reading(ctx context.Context, h Host, s *state.State, all bool, agents []string, cw *Warnings,
	snap *metrics.Snapshot, fail func(string, error)) (*scrapeReading, *scrapeFiles) {
	start := m.Clock()
	sc := &scrapeFiles{start: start, dirs: m.dirs, listings: map[string]*dirListing{}, lstats: map[string]*dirStats{}}
	if r := m.kept; r != nil && r.trusted {
		if key, ok := keyOf(s, agents, r.sfDirs, sc); ok && r.key.equal(&key) {
			m.counts.Kept++
			cw.lines = append(cw.lines, r.warns...)
			return r, sc
		}
	}
	m.counts.Read++
	mark, errs := len(cw.lines), snap.Errors
	r, clean := m.read(ctx, h, s, all, agents, cw, fail)
	r.warns = slices.Clone(cw.lines[mark:])
	// The key is taken after the reading, every directory listed again: a
	// file or directory that changed since the reading began carries a
	// change time after start (a program cannot set the ctime back; where
	// the platform has none, the modification time a write sets), so the
	// racy rule refuses it: a reading of a version older than its key's is
	// never kept.
	sc.listings = map[string]*dirListing{}
	key, ok := keyOf(s, agents, r.sfDirs, sc)
	r.key = key
	r.trusted = ok && clean && snap.Errors == errs && !key.racy(start) && plain(s, agents, r.sfDirs, sc)
	m.kept = r
	return r, sc
}

// read reads the structure with the operations; clean is false when a
// part of it failed in a way the errors counted do not show.
func (m *Reader) read(ctx context.Context, h Host, s *state.State, all bool, agents []string, cw *Warnings,
	fail func(string, error)) (r *scrapeReading, clean bool) {
	r = &scrapeReading{names: map[string]map[string]string{}, sfDirs: map[string][]string{}}
	clean = true

	// the listing's rows, as sessions list --json --all-agents
	rows, lerrs := each(h, all, agents, func(h Host) ([]state.Row, error) { return h.List(ctx, all) })
	for _, err := range lerrs {
		fail("list", err)
	}
	for _, a := range agents {
		// a 2026.8+ store that could not be read is a warning of the
		// listing (it lists the others): its database is then not open
		if s.Era(a) == era.SQLite && s.SQLiteDB(a) == nil {
			clean = false
		}
	}
	counts := map[metrics.SessionCount]int{}
	{
		type top struct {
			agent, key string
			tokens     float64
		}
		var tops []top
		for _, r1 := range rows {
			counts[metrics.SessionCount{Agent: r1.AgentID, Kind: r1.Kind, Channel: r1.Channel}]++
			if r1.UpdatedAt != nil {
				r.updated = append(r.updated, agentUpdate{r1.AgentID, int64(*r1.UpdatedAt)})
			}
			if m.q.PerSessionTop > 0 && r1.TotalTokens != nil {
				tops = append(tops, top{r1.AgentID, r1.Key, *r1.TotalTokens})
			}
		}
		slices.SortStableFunc(tops, func(a, b top) int { return cmp.Compare(b.tokens, a.tokens) })
		for _, t := range tops[:min(len(tops), m.q.PerSessionTop)] {
			r.tops = append(r.tops, metrics.SessionTokens{Agent: t.agent, Key: t.key, Tokens: t.tokens})
		}
	}

	// archived copies (reset and deleted transcripts, a 2026.9 store's
	// archives), each one archived session
	if set, err := transcripts.Open(s, transcripts.Options{AllAgents: all, StoreArchives: true}); err != nil {
		fail("transcripts", err)
	} else {
		for a := range set.All() {
			if a.Err != nil {
				clean = false
				continue // the listing counted it
			}
			if a.DirErr != nil {
				clean = false
			}
			for i := range a.Files {
				if a.Files[i].ArchiveOf() != "" {
					counts[metrics.SessionCount{Agent: a.ID, Kind: "unknown", Channel: "unknown", Archived: true}]++
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
				counts[metrics.SessionCount{Agent: a.ID, Kind: kind, Channel: channel, Archived: true}]++
			}
		}
	}
	for sc, n := range counts {
		sc.N = n
		r.sessions = append(r.sessions, sc)
	}

	// the names a transcript lock is matched to, as state.HeldLocks has
	// them, for the agents in scope (only their locks are counted), and the
	// directories the entries' sessionFiles name
	for _, a := range agents {
		names := map[string]string{}
		if st, entries, err := s.Entries(a); err == nil {
			files := make([]string, len(entries))
			for i, e := range entries {
				files[i] = e.SessionFile
			}
			r.sfDirs[a] = sessionFileDirs(s, a, st.Path, files)
			names = s.TranscriptNames(entries)
		} else {
			clean = false
		}
		r.names[a] = names
	}

	// usage's files and their sessions, as sessions usage --by
	// agent,provider,model lists them (each read, or taken from the usage
	// cache, on every scrape: usageRows); agent by agent when that fails
	q := hostread.UsageQuery{By: usageBy, AllAgents: all, Loc: time.Local, LockTimeout: m.q.LockTimeout}
	mark := len(cw.lines)
	files, err := hostread.ListUsageFiles(s, &q)
	if len(cw.lines) > mark {
		clean = false // an agent's store or its transcripts' listing failed
	}
	if err != nil {
		clean = false
		urows, uerrs := eachAfter(h, all, agents, nil, err, func(h Host) ([]hostread.UsageRow, error) {
			ur, err := h.Usage(ctx, &q)
			if err != nil {
				return nil, err
			}
			return ur.Rows, nil
		})
		for _, err := range uerrs {
			fail("usage", err)
		}
		r.usageRows = urows
	} else {
		r.usage = newUsageReading(s, files)
	}
	return r, clean
}

// usageBy is what a scrape rolls usage up by.
var usageBy = []string{"agent", "provider", "model"}

// sessionFileDirs are the directories an agent's entries' sessionFiles
// (files) name (each resolved as state.Transcript resolves it) other than
// the agent's own (agentDirs), by name.
func sessionFileDirs(s *state.State, agent, storePath string, files []string) []string {
	own := agentDirs(s, agent, s.Era(agent))
	storeDir := filepath.Dir(storePath)
	var out []string
	for _, f := range files {
		sf := strings.TrimSpace(f)
		if sf == "" {
			continue
		}
		if !filepath.IsAbs(sf) {
			sf = filepath.Join(storeDir, sf)
		}
		if d := filepath.Dir(sf); !slices.Contains(own, d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// plain reports whether the structure read of the agents depends on
// nothing but the files and directories of its key: no sandboxed
// requester (whose reading looks into the transcripts' headers), and no
// entry of a sessions.json whose transcript may resolve through a
// symbolic link (one in its agent's directories or those its sessionFile
// names: where it leads is not in the key).
func plain(s *state.State, agents []string, sfDirs map[string][]string, sc *scrapeFiles) bool {
	if s.Req.Restrict {
		return false
	}
	for _, a := range agents {
		e := s.Era(a)
		switch e {
		case era.SQLite:
			continue // its transcripts are the database's
		case era.JSON, era.None:
		default:
			return false
		}
		for _, d := range append(agentDirs(s, a, e), sfDirs[a]...) {
			if sc.listing(d).symlinks {
				return false
			}
		}
	}
	return true
}
