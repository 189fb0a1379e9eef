package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// usageReading is usage's listing of the files it reads (usageUnits) as a
// scrape's reading keeps it, and the last roll-up of them.
type usageReading struct {
	units  []usage.Unit
	cat    *usageCatalog
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
	rows   []UsageRow
	warns  []string // what the roll-up warned about, said again with its rows
}

// newUsageReading keeps usage's listing of its files.
func newUsageReading(s *state.State, units []usage.Unit, cat *usageCatalog) *usageReading {
	u := &usageReading{units: units, cat: cat, sqlite: make([]bool, len(units)),
		dir: make([]int, len(units)), name: make([]string, len(units)), pos: make([]int, len(units))}
	dirs := map[string]int{}
	for i := range units {
		info := cat.units[i]
		u.sqlite[i] = info.sessionID == "" && s.Era(info.agent) == era.SQLite && units[i].Path == s.SQLitePath(info.agent)
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

// usageSaveEvery is how often a long-lived Metrics writes the usage cache
// back (when something was read since): the next process to read usage
// (sessions usage, the next metrics) then reads only what changed since.
const usageSaveEvery = 5 * time.Minute

// usageRows are the rows of sessions usage --by agent,provider,model of
// the reading's files as they are now: each file is stat'ed again (from
// the scrape's lstats of its directory) and, when no stamp changed since
// the last roll-up, its rows are taken again; else the files that changed
// are read and every part rolled up again (what Usage does, from the
// usage cache this Metrics keeps in memory).
func (m *Metrics) usageRows(o *Ops, s *state.State, r *scrapeReading, sc *scrapeFiles, cw *countingWriter) []UsageRow {
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
				un := usage.SQLiteUnit(u.units[i].Path, fi, false, o.cfg.LockTimeout, s.Warnf)
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
	cat := *u.cat
	cat.units = nil
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
		cat.units = append(cat.units, u.cat.units[i])
	}
	mark := len(cw.lines)
	rows, stats := m.rollUsage(o, s, present, &cat)
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
func (m *Metrics) rollUsage(o *Ops, s *state.State, units []usage.Unit, cat *usageCatalog) ([]UsageRow, usage.Stats) {
	if m.uscans == 0 && os.Getenv("GOMEMLIMIT") == "" {
		// the first reading (every file, when there is no usage cache yet)
		// under usage's soft heap limit, as sessions usage reads them
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(usageMemoryLimit))
	}
	m.uscans++
	if m.ucache == nil {
		if dir, err := usage.CacheDir(); err == nil {
			m.ucache = usage.OpenCache(dir, s.Dir.Path)
			if m.ucache.Ignored != "" {
				o.debug(fmt.Sprintf("usage: cache %s ignored: %s", m.ucache.Path(), m.ucache.Ignored))
			}
		} else {
			o.debug("usage: no cache dir: " + err.Error())
			m.ucache = usage.MemoryCache(s.Dir.Path)
		}
	}
	ropts := usage.Options{By: metricsUsageBy, Loc: time.Local, Price: pricer(s.Cfg)}
	parts, stats := usage.Collect(units, m.ucache, 0, o.warn)
	o.debug(fmt.Sprintf("usage: %d of %d files read, %d from cache", stats.Read, stats.Units, stats.Cached))
	if now := time.Now(); m.ucache.Changed() && (m.usaved.IsZero() || now.Sub(m.usaved) >= usageSaveEvery) {
		if err := m.ucache.Save(); err != nil {
			o.debug("usage: cache not saved: " + err.Error())
		}
		m.usaved = now
	}
	srcs, skips, skipFiles := cat.sources(s, parts)
	if skips.Total() > 0 {
		o.warn(fmt.Sprintf("usage: skipped %d transcript line(s) in %d file(s): %s", skips.Total(), skipFiles, describeSkips(skips)))
	}
	rep := usage.Rollup(srcs, ropts)
	return usageResult(rep, ropts, stats).Rows, stats
}
