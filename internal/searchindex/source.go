package searchindex

import (
	"bufio"
	"bytes"
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/transcript"
)

// SourceID names a source in the index: its file, or its store and session
// (or archive). Candidates are returned by it.
func SourceID(src *search.Source) string {
	switch {
	case src.Archive != nil:
		return "archive\x00" + src.DB.Path() + "\x00" + src.Archive.Name
	case src.DB != nil:
		return "events\x00" + src.DB.Path() + "\x00" + src.SessionID
	}
	return "file\x00" + src.Path
}

func kindOf(src *search.Source) uint8 {
	switch {
	case src.Archive != nil || (src.DB == nil && src.Zstd):
		return kindWhole
	case src.DB != nil:
		return kindEvents
	}
	return kindFile
}

func stampOf(fi fs.FileInfo) stamp {
	s := fsutil.StampOf(fi)
	return stamp{Size: s.Size, MTime: s.MTime.UnixNano(), Ino: s.Ino, CTime: s.CTime}
}

// dbStamp is a store's version: its database file's stamp, with its -wal's
// folded in (a commit changes one or the other).
func dbStamp(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	s := stampOf(fi)
	if wi, err := os.Stat(path + "-wal"); err == nil {
		w := stampOf(wi)
		h := fnv.New64a()
		var b [32]byte
		for i, v := range []uint64{uint64(w.Size), uint64(w.MTime), w.Ino, uint64(w.CTime)} {
			for k := range 8 {
				b[i*8+k] = byte(v >> (8 * k))
			}
		}
		h.Write(b[:])
		s.CTime ^= int64(h.Sum64())
	} else if !errors.Is(err, fs.ErrNotExist) {
		return stamp{}, err
	}
	return s, nil
}

// window is the bytes hashed on each side of a file's indexed prefix.
const window = 4096

func hashOf(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// prefixHashes hashes the first bytes of f and those just before to.
func prefixHashes(f *os.File, to int64) (head, tail uint64, err error) {
	buf := make([]byte, min(window, to))
	if _, err := f.ReadAt(buf, 0); err != nil {
		return 0, 0, err
	}
	head = hashOf(buf)
	if _, err := f.ReadAt(buf, to-int64(len(buf))); err != nil {
		return 0, 0, err
	}
	return head, hashOf(buf), nil
}

// eachLine calls fn for every line of r from offset base: its offset, its
// bytes without the '\n' (valid until fn returns) and whether it is
// complete ('\n'-terminated). Lines longer than maxLine are passed over,
// as the scan passes them over, and told to over (nil: not told) with
// their length without the '\n' and whether they are complete: the scan
// warns about them, so the index records that it met one. It returns the
// offset after the last complete line.
func eachLine(r io.Reader, base int64, maxLine int, fn func(pos int64, line []byte, complete bool), over func(n int64, complete bool)) (int64, error) {
	return eachLineWhile(r, base, maxLine, func(pos int64, line []byte, complete bool) bool {
		fn(pos, line, complete)
		return true
	}, over)
}

// readers are eachLine's buffered readers, kept between sources (a
// build reads thousands of small files).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}

// eachLineWhile is eachLine stopping, once fn returns false, after that
// line: it then returns the offset after that line.
func eachLineWhile(r io.Reader, base int64, maxLine int, fn func(pos int64, line []byte, complete bool) bool, over func(n int64, complete bool)) (int64, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	start, end := base, base
	var acc []byte
	var n int
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if !long {
			switch {
			case len(acc)+len(chunk) > maxLine+1:
				long, acc = true, acc[:0]
			case err == bufio.ErrBufferFull || len(acc) > 0:
				acc = append(acc, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line := chunk
		if len(acc) > 0 {
			line = acc
		}
		switch {
		case err == nil:
			more := true
			switch {
			case !long && len(line)-1 <= maxLine:
				more = fn(start, line[:len(line)-1], true)
			case over != nil:
				over(int64(n-1), true)
			}
			start += int64(n)
			end = start
			n, acc, long = 0, acc[:0], false
			if !more {
				return end, nil
			}
		case errors.Is(err, io.EOF):
			switch {
			case n > 0 && !long && len(line) <= maxLine:
				fn(start, line, false)
			case n > 0 && over != nil:
				over(int64(n), false)
			}
			return end, nil
		default:
			return end, err
		}
	}
}

// openWhole opens the JSONL bytes of a zstd file or a store's archive,
// as the scan opens them (search.OpenTranscript).
func openWhole(src *search.Source) (io.Reader, func(), error) { return search.OpenTranscript(src) }

// Lines calls fn with the line (or event) of src at each of pos
// (ascending), in that order: what a search verifies its candidates on. A
// position that holds no line, or a line longer than search.DefaultMaxLine,
// is passed over.
func Lines(src *search.Source, pos []int64, fn func(pos int64, line []byte)) error {
	return Read([]search.Source{*src}, map[int][]int64{0: pos}, func(_ int, p int64, line []byte) { fn(p, line) })[0]
}

// Read is Lines for many sources at once: want holds, by index in srcs, the
// positions to read (ascending). The events of one store are read in one
// read of it. It returns, by index in srcs, the sources that could not be
// read (nil: none); fn is called in source order, then position order.
func Read(srcs []search.Source, want map[int][]int64, fn func(i int, pos int64, line []byte)) map[int]error {
	var errs map[int]error
	fail := func(i int, err error) {
		if errs == nil {
			errs = map[int]error{}
		}
		errs[i] = err
	}
	idx := make([]int, 0, len(want))
	for i, pos := range want {
		if len(pos) > 0 {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	// The events of each store, read together.
	type key struct {
		db  *sqlitestore.DB
		sid string
	}
	byDB := map[*sqlitestore.DB]map[string][]int64{}
	for _, i := range idx {
		if src := &srcs[i]; kindOf(src) == kindEvents {
			if byDB[src.DB] == nil {
				byDB[src.DB] = map[string][]int64{}
			}
			byDB[src.DB][src.SessionID] = want[i]
		}
	}
	dbErr := map[*sqlitestore.DB]error{}
	got := map[key]map[int64][]byte{}
	for db, w := range byDB {
		// A redone read starts this store's events afresh; the events of
		// the stores read before it stay.
		restart := func() {
			for k := range got {
				if k.db == db {
					delete(got, k)
				}
			}
		}
		dbErr[db] = db.EventsAt(w, search.DefaultMaxLine, restart, func(sid string, seq int64, data []byte, st transcript.Status) {
			if st != transcript.StatusMessage {
				return
			}
			k := key{db, sid}
			if got[k] == nil {
				got[k] = map[int64][]byte{}
			}
			got[k][seq] = bytes.Clone(data)
		})
	}
	buf := make([]byte, 64<<10)
	for _, i := range idx {
		src, pos := &srcs[i], want[i]
		switch kindOf(src) {
		case kindEvents:
			if err := dbErr[src.DB]; err != nil {
				fail(i, err)
				continue
			}
			lines := got[key{src.DB, src.SessionID}]
			for _, p := range pos {
				if line, ok := lines[p]; ok {
					fn(i, p, line)
				}
			}
		case kindWhole:
			set := make(map[int64]bool, len(pos))
			for _, p := range pos {
				set[p] = true
			}
			r, closeFn, err := openWhole(src)
			if err != nil {
				fail(i, err)
				continue
			}
			_, err = eachLine(r, 0, search.DefaultMaxLine, func(p int64, line []byte, _ bool) {
				if set[p] {
					fn(i, p, line)
				}
			}, nil)
			closeFn()
			if err != nil {
				fail(i, err)
			}
		default:
			f, err := fsutil.OpenRegular(src.Path)
			if err != nil {
				fail(i, err)
				continue
			}
			for _, p := range pos {
				line, err := lineAt(f, p, buf)
				if err != nil {
					fail(i, err)
					break
				}
				if line != nil {
					fn(i, p, line)
				}
			}
			f.Close()
		}
	}
	return errs
}

// lineAt reads the line at offset p of f (nil when it is longer than the
// scan reads).
func lineAt(f *os.File, p int64, buf []byte) ([]byte, error) {
	var line []byte
	for {
		n, err := f.ReadAt(buf, p+int64(len(line)))
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			line = append(line, buf[:i]...)
			break
		}
		line = append(line, buf[:n]...)
		if len(line) > search.DefaultMaxLine {
			return nil, nil
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(line) > search.DefaultMaxLine {
		return nil, nil
	}
	return line, nil
}
