package usage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// Unit is one file the scan reads as a whole or takes from the cache: a
// JSONL transcript (or a .reset/.deleted copy, plain or .zst) or an agent's
// SQLite store.
type Unit struct {
	Path  string // absolute; the cache key
	Stamp Stamp  // taken before the read
	Read  func() ([]Part, error)
}

// Stats says how a collection went.
type Stats struct {
	Units  int // files considered
	Read   int // read (not in the cache, or changed)
	Cached int // taken from the cache
	Failed int // unreadable (warned, left out)
}

// Collect returns the parts of every unit, in unit order: from the cache
// when a unit's stamp is unchanged, else read by up to workers goroutines
// (0: GOMAXPROCS, at most 8) and put in the cache. A unit that cannot be read
// is reported through warn and has no parts. Entries of files no longer
// present are dropped from the cache.
func Collect(units []Unit, c *Cache, workers int, warn func(string)) ([][]Part, Stats) {
	out := make([][]Part, len(units))
	st := Stats{Units: len(units)}
	keep := make(map[string]bool, len(units))
	var todo []int
	for i, u := range units {
		keep[u.Path] = true
		if parts, ok := c.get(u.Path, u.Stamp); ok {
			out[i] = parts
			st.Cached++
			continue
		}
		todo = append(todo, i)
	}
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	workers = max(1, min(workers, len(todo)))
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = units[i].Read()
				for j := range out[i] {
					out[i][j].index = nil // only needed while adding
				}
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, i := range todo {
		if errs[i] != nil {
			warn(errs[i].Error())
			out[i] = nil
			st.Failed++
			continue
		}
		st.Read++
		c.put(units[i].Path, units[i].Stamp, out[i])
	}
	c.prune(keep)
	return out, st
}

// FileUnit is a transcript file of sessionID: JSONL, or zstd-compressed
// JSONL when its name ends in .zst. Archived marks a .reset/.deleted copy.
func FileUnit(path string, fi os.FileInfo, sessionID string, archived bool) Unit {
	return Unit{Path: path, Stamp: StampOf(fi), Read: func() ([]Part, error) {
		f, err := fsutil.OpenRegular(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var r io.Reader = f
		if strings.HasSuffix(path, ".zst") {
			d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
			if err != nil {
				return nil, err
			}
			defer d.Close()
			r = d
		}
		p := Part{SessionID: sessionID, Archived: archived}
		p.Skips, err = Scan(r, p.Add)
		if err != nil {
			return nil, fmt.Errorf("transcript %s: %v", path, err)
		}
		return []Part{p}, nil
	}}
}

// SQLiteUnit is an agent's 2026.8+ SQLite store: every session's events (hot
// and cold), and, with archives, its reset/deleted transcript archives. The
// stamp covers the database and its -wal (where a live writer's commits sit
// until a checkpoint).
func SQLiteUnit(path string, fi os.FileInfo, archives bool, busyTimeout time.Duration, warn func(string)) Unit {
	opts := sqlitestore.Options{BusyTimeout: busyTimeout, Warn: warn}
	st := StampOf(fi)
	if wfi, err := os.Stat(path + "-wal"); err == nil {
		w := StampOf(wfi)
		st.Extra = fmt.Sprintf("wal:%d:%d:%d", w.Ino, w.Size, w.MtimeNano)
	}
	if archives {
		st.Extra += ";archives" // a different content: never mixed up with a run without them
	}
	return Unit{Path: path, Stamp: st, Read: func() ([]Part, error) {
		db, err := sqlitestore.Open(path, opts)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		var parts []Part
		idx := map[string]int{}
		bad, err := db.ScanEvents(wanted, func(sid string, body []byte) {
			i, ok := idx[sid]
			if !ok {
				i = len(parts)
				idx[sid] = i
				parts = append(parts, Part{SessionID: sid})
			}
			addLine(&parts[i], body, true)
		})
		if err != nil {
			return nil, err
		}
		if bad > 0 && len(parts) > 0 {
			parts[0].Skips.Corrupt += bad
		} else if bad > 0 {
			parts = append(parts, Part{Skips: Skips{Corrupt: bad}})
		}
		for i := range parts {
			parts[i].Records = dedupe(parts[i].Records)
		}
		if archives {
			err = db.ScanArchives(func(a sqlitestore.Archive, jsonl []byte) {
				p := Part{SessionID: a.SessionID, Key: a.SessionKey, Archived: true}
				p.Skips, _ = Scan(bytes.NewReader(jsonl), p.Add)
				parts = append(parts, p)
			})
			if err != nil {
				return nil, err
			}
		}
		return parts, nil
	}}
}

// addLine counts one event (a complete line).
func addLine(p *Part, line []byte, terminated bool) {
	if !wanted(line) {
		return
	}
	rec, st := Extract(line)
	switch st {
	case lineRecord:
		p.Add(rec)
	case lineBadUTF8:
		p.Skips.InvalidUTF8++
	case lineCorrupt:
		if terminated {
			p.Skips.Corrupt++
		} else {
			p.Skips.Torn++
		}
	}
}

// dedupe drops the repeats of an entry id within one session's events (a
// hot row and its cold-archive copy during an archiving).
func dedupe(recs []Record) []Record {
	seen := make(map[uint64]bool, len(recs))
	out := recs[:0]
	for _, r := range recs {
		if r.ID != 0 {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
		}
		out = append(out, r)
	}
	return out
}
