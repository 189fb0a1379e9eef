package hostmetrics

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// usageReading is usage's listing of the files it reads
// (hostread.ListUsageFiles) as a scrape's reading keeps it, and the last
// roll-up of them.
type usageReading struct {
	units  []usage.Unit
	files  *hostread.UsageFiles
	sqlite []bool // units[i] is an agent's SQLite store

	// where each file unit's lstat is found in the scrape's lstats: its
	// directory (dirs[dir[i]]) and name, and its position in that
	// directory's listing (listed[dir[i]]) of transcripts, -1 when it is
	// not one of them (a sessionFile of another name: stat'ed by path)
	dirs   []string
	dir    []int
	name   []string
	pos    []int
	listed []*dirListing

	rolled bool          // rows are the roll-up of the units at stamps
	stamps []usage.Stamp // each unit's stamp then
	have   []bool        // which units were there then
	rows   []hostread.UsageRow
	warns  []string // what the roll-up warned about, said again with its rows
}

// newUsageReading keeps usage's listing of its files.
func newUsageReading(s *state.State, files *hostread.UsageFiles) *usageReading {
	units := files.Units
	u := &usageReading{units: units, files: files, sqlite: make([]bool, len(units)),
		dir: make([]int, len(units)), name: make([]string, len(units)), pos: make([]int, len(units))}
	dirs := map[string]int{}
	for i := range units {
		agent, sessionID := files.Unit(i)
		u.sqlite[i] = sessionID == "" && s.Era(agent) == era.SQLite && units[i].Path == s.SQLitePath(agent)
		d := filepath.Dir(units[i].Path)
		j, ok := dirs[d]
		if !ok {
			j = len(u.dirs)
			dirs[d] = j
			u.dirs = append(u.dirs, d)
		}
		u.dir[i], u.name[i] = j, filepath.Base(units[i].Path)
	}
	u.listed = make([]*dirListing, len(u.dirs))
	return u
}

// usageSaveEvery is how often a long-lived Reader writes the usage cache
// back (when something was read since): the next process to read usage
// (sessions usage, the next metrics) then reads only what changed since.
const usageSaveEvery = 5 * time.Minute

// usageRows are the rows of sessions usage --by agent,provider,model of
// the reading's files as they are now: each file is stat'ed again (from
// the scrape's lstats of its directory) and, when no stamp changed since
// the last roll-up, its rows are taken again; else the files that changed
// are read and every part rolled up again (what Usage does, from the
// usage cache this Reader keeps in memory).
func (m *Reader) usageRows(h Host, s *state.State, r *scrapeReading, sc *scrapeFiles, cw *Warnings) []hostread.UsageRow {
	u := r.usage
	n := len(u.units)
	stamps := make([]usage.Stamp, n)
	have := make([]bool, n)
	sqlite := map[int]usage.Unit{}
	lstats := make([]*dirStats, len(u.dirs))
	for j, d := range u.dirs {
		lstats[j] = sc.stats(d)
		if l := lstats[j].l; l != u.listed[j] {
			// another listing of the directory: the positions again
			u.listed[j] = l
			for i := range n {
				if u.dir[i] == j {
					u.pos[i] = l.pos(u.name[i])
				}
			}
		}
	}
	for i := range n {
		switch {
		case u.sqlite[i]:
			if fi, err := os.Stat(u.units[i].Path); err == nil {
				un := usage.SQLiteUnit(u.units[i].Path, fi, false, m.q.LockTimeout, s.Warnf)
				sqlite[i] = un
				stamps[i], have[i] = un.Stamp, true
			}
		case u.pos[i] >= 0:
			if st := lstats[u.dir[i]].stats[u.pos[i]]; st.OK && st.Mode.IsRegular() {
				stamps[i] = usage.Stamp{Dev: st.Dev, Ino: st.Ino, Size: st.Size, MtimeNano: st.MtimeNano}
				have[i] = true
			}
		default:
			// not one of its directory's transcript files: stat'ed as
			// usage's listing stats it
			if fi, err := os.Stat(u.units[i].Path); err == nil && fi.Mode().IsRegular() {
				stamps[i], have[i] = usage.StampOf(fi), true
			}
		}
	}
	if u.rolled && slices.Equal(have, u.have) && slices.Equal(stamps, u.stamps) {
		m.counts.UsageKept++
		cw.lines = append(cw.lines, u.warns...)
		return u.rows
	}
	m.counts.Rolled++
	// the units still there, with their stamps now and their sessions
	var keep []int
	var present []usage.Unit
	for i := range n {
		if !have[i] {
			continue
		}
		un := u.units[i]
		if sq, ok := sqlite[i]; ok {
			un = sq
		}
		un.Stamp = stamps[i]
		present = append(present, un)
		keep = append(keep, i)
	}
	mark := len(cw.lines)
	rows, stats := m.rollUsage(h, s, u.files.Only(keep, present))
	u.rows, u.warns = rows, slices.Clone(cw.lines[mark:])
	u.have, u.stamps = have, stamps
	// a file that could not be read is read again next time, as usage
	// does (its failure may not change its stamp)
	u.rolled = stats.Failed == 0
	return rows
}

// rollUsage is what Usage does with the files its listing found (the
// tests hold the two equal): each read or taken from the usage cache,
// attached to its session, rolled up. The cache is loaded from the user's
// cache dir once, then kept in memory and written back at most every
// usageSaveEvery.
func (m *Reader) rollUsage(h Host, s *state.State, files *hostread.UsageFiles) ([]hostread.UsageRow, usage.Stats) {
	if m.uscans == 0 && os.Getenv("GOMEMLIMIT") == "" {
		// the first reading (every file, when there is no usage cache yet)
		// under usage's soft heap limit, as sessions usage reads them
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(hostread.UsageMemoryLimit))
	}
	m.uscans++
	if m.ucache == nil {
		if dir, err := usage.CacheDir(); err == nil {
			m.ucache = usage.OpenCache(dir, s.Dir.Path)
			if m.ucache.Ignored != "" {
				h.Debug(fmt.Sprintf("usage: cache %s ignored: %s", m.ucache.Path(), m.ucache.Ignored))
			}
		} else {
			h.Debug("usage: no cache dir: " + err.Error())
			m.ucache = usage.MemoryCache(s.Dir.Path)
		}
	}
	parts, stats := usage.Collect(files.Units, m.ucache, 0, h.Warn)
	h.Debug(fmt.Sprintf("usage: %d of %d files read, %d from cache", stats.Read, stats.Units, stats.Cached))
	if now := time.Now(); m.ucache.Changed() && (m.usaved.IsZero() || now.Sub(m.usaved) >= usageSaveEvery) {
		if err := m.ucache.Save(); err != nil {
			h.Debug("usage: cache not saved: " + err.Error())
		}
		m.usaved = now
	}
	return files.Roll(s, parts, &hostread.UsageQuery{By: usageBy, Loc: time.Local}, h.Warn), stats
}
