package hostmetrics

import (
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/hoststat"
	"github.com/openclaw/sessions/internal/storecache"
)

// dirListing is a directory's entries as one read found them, kept while
// the directory is that version.
type dirListing struct {
	ver     storecache.Version
	trusted bool  // ver may be relied on: stable during the read, not racy
	err     error // the directory exists but cannot be read (nothing listed)
	names   []string
	// transcripts are the names of the regular transcript files
	// (hoststat.IsTranscript), by name, prepared for hoststat.StatNames;
	// index maps a name to its position there (made on first use).
	transcripts *hoststat.Names
	index       map[string]int
	// locks are the names a transcript lock's glob (*.jsonl.lock) matches,
	// of any type, by name.
	locks []string
	// symlinks: some entry is a symbolic link (an entry's transcript
	// resolved through it depends on more than this directory).
	symlinks bool
}

// dirCache keeps the listings of the directories a Reader reads, each
// checked again (one stat) on every use.
type dirCache struct {
	entries map[string]*dirListing
}

func newDirCache() *dirCache {
	return &dirCache{entries: map[string]*dirListing{}}
}

// get is dir's listing as it is now: the kept one when dir is still the
// version it was listed at, else listed again (and kept when it can be
// trusted: start is when the reading began).
func (c *dirCache) get(dir string, start time.Time) *dirListing {
	v, err := storecache.VersionOf(dir)
	if err != nil {
		delete(c.entries, dir)
		return &dirListing{err: err, transcripts: hoststat.NewNames(nil)}
	}
	if l := c.entries[dir]; l != nil && l.trusted && l.ver == v {
		return l
	}
	if !v.Exists() {
		l := &dirListing{ver: v, trusted: true, transcripts: hoststat.NewNames(nil)}
		c.entries[dir] = l
		return l
	}
	ents, err := fsutil.ReadDir(dir)
	after, aerr := storecache.VersionOf(dir)
	l := &dirListing{ver: v, trusted: err == nil && aerr == nil && after == v && !v.Racy(start)}
	if errors.Is(err, fs.ErrNotExist) {
		l.ver, ents, err = storecache.Version{}, nil, nil
	}
	if err != nil {
		l.err = err
		ents = nil
	}
	l.names = make([]string, len(ents))
	var trs []string
	for i, de := range ents {
		name, t := de.Name(), de.Type()
		l.names[i] = name
		if t&fs.ModeSymlink != 0 {
			l.symlinks = true
		}
		if t.IsRegular() && hoststat.IsTranscript(name) {
			trs = append(trs, name)
		}
		if strings.HasSuffix(name, ".jsonl.lock") {
			l.locks = append(l.locks, name)
		}
	}
	l.transcripts = hoststat.NewNames(trs)
	if l.trusted {
		c.entries[dir] = l
	} else {
		delete(c.entries, dir)
	}
	return l
}

// pos is the position of the transcript file name in the listing's
// transcripts, -1 when it is not one of them.
func (l *dirListing) pos(name string) int {
	if l.index == nil {
		list := l.transcripts.List()
		l.index = make(map[string]int, len(list))
		for i, n := range list {
			l.index[n] = i
		}
	}
	if i, ok := l.index[name]; ok {
		return i
	}
	return -1
}

// dirStats are the lstats of one listing's transcript files, taken once
// per scrape and shared by what needs them (the transcripts' sizes, the
// usage units' stamps).
type dirStats struct {
	l     *dirListing
	stats []hoststat.Stat
	err   error
}

// sum is hoststat.SumTranscripts over the listing: -1 for a missing dir,
// -1 and the error for one that cannot be read. A file that cannot be
// stat'ed is left out, as one gone since the listing.
func (d *dirStats) sum() (int64, error) {
	switch {
	case d.l.err != nil:
		return -1, d.l.err
	case !d.l.ver.Exists():
		return -1, nil
	}
	var n int64
	for _, st := range d.stats {
		if st.OK && st.Mode.IsRegular() {
			n += st.Size
		}
	}
	return n, nil
}
