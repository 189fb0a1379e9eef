package searchindex

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/transcript"
)

// Update brings the index up to the sources, which are every transcript of
// the state dir (a source the index holds that is not among them is
// removed at once, as is one whose file is gone). Per source it stats
// first and reads only what changed since it was indexed: a file of the
// same inode that grew and still holds the bytes it held around the end of
// what was indexed (the prefix check) gets its appended lines indexed; a
// file rewritten, truncated or replaced, a zstd file or a store's archive
// that changed, is indexed whole; a store session whose earlier events are
// unchanged gets its newer events indexed, else is indexed whole.
//
// Update takes the index's write lock, waiting for another process's update
// until ctx is done (then ErrBusy, the index unchanged). New documents go to
// new segment files, then the manifest naming them replaces the old one
// (temp file, fsync, rename); a crash at any point leaves the old index or
// the new one. An index found damaged is a *CorruptError (Reset, then
// Update again); a write that fails (disk full, read-only) is an error and
// leaves the index as it was.
func (ix *Index) Update(ctx context.Context, srcs []search.Source) (Stats, error) {
	unlock, err := ix.lock(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.man = nil // re-read under the lock: another process may have updated it
	if err := ix.load(); err != nil {
		return Stats{}, err
	}
	u := &updater{ix: ix, old: ix.man, cur: ix.man.nextSeg}
	u.next = manifest{nextSrc: ix.man.nextSrc, segs: slices.Clone(ix.man.segs)}
	seen := map[string]bool{}
	for i := range srcs {
		if err := ctx.Err(); err != nil {
			u.abort()
			return Stats{}, err
		}
		id := SourceID(&srcs[i])
		if seen[id] {
			continue
		}
		seen[id] = true
		if err := u.source(&srcs[i], id); err != nil {
			u.abort()
			return Stats{}, err
		}
	}
	for _, r := range ix.man.srcs {
		if !seen[r.id] {
			u.st.Removed++
		}
	}
	if err := u.flush(); err != nil {
		u.abort()
		return Stats{}, err
	}
	slices.SortFunc(u.next.srcs, func(a, b srcRec) int { return strings.Compare(a.id, b.id) })
	u.next.nextSeg = u.cur
	if len(u.next.segs) > ix.maxSegs {
		if err := u.merge(); err != nil {
			u.abort()
			return Stats{}, err
		}
		u.st.Merged = true
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(ix.dir, "manifest"), u.next.encode(), 0o600); err != nil {
		u.abort()
		return Stats{}, err
	}
	u.st.Segments = len(u.next.segs)
	ix.man = nil
	if err := ix.load(); err != nil {
		return u.st, err
	}
	ix.gc()
	return u.st, nil
}

// gc removes the files no manifest names: old segments and the temp files
// of a writer that died (the lock is held).
func (ix *Index) gc() {
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if n == "manifest" || n == "lock" {
			continue
		}
		if strings.HasPrefix(n, "seg-") && !strings.HasSuffix(n, ".tmp") {
			var id uint32
			if _, ok := parseSegName(n, &id); ok && slices.Contains(ix.man.segs, id) {
				continue
			}
		}
		os.Remove(filepath.Join(ix.dir, n))
	}
}

func parseSegName(n string, id *uint32) (string, bool) {
	s, ok := strings.CutPrefix(n, "seg-")
	if !ok || len(s) != 8 {
		return "", false
	}
	var v uint32
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", false
		}
		v = v*10 + uint32(c-'0')
	}
	*id = v
	return s, true
}

// testHookSegWritten, when set (by the crash test's child), runs after
// each segment an update writes, before the manifest names it.
var testHookSegWritten func()

type updater struct {
	ix      *Index
	old     *manifest
	next    manifest
	b       builder
	cur     uint32   // the segment being built
	written []string // segment files written by this update
	st      Stats
}

// abort removes the segment files this update wrote.
func (u *updater) abort() {
	for _, p := range u.written {
		os.Remove(p)
	}
}

// flush writes the segment being built (when it holds a document).
func (u *updater) flush() error {
	if len(u.b.docs) == 0 {
		return nil
	}
	id := u.cur
	if err := u.writeSeg(id, u.b.write); err != nil {
		return err
	}
	u.next.segs = append(u.next.segs, id)
	u.cur++
	if testHookSegWritten != nil {
		testHookSegWritten()
	}
	u.b = builder{fold: u.b.fold[:0], tris: u.b.tris[:0], pairs: u.b.pairs[:0], docs: u.b.docs[:0]}
	return nil
}

// writeSeg writes segment id through write: a temp file, fsynced and
// renamed to its name.
func (u *updater) writeSeg(id uint32, write func(w io.Writer) error) error {
	path := filepath.Join(u.ix.dir, segName(id))
	tmp, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	u.written = append(u.written, path)
	return nil
}

// maybeFlush ends the segment once it holds enough text.
func (u *updater) maybeFlush() error {
	if u.b.text < u.ix.segText {
		return nil
	}
	return u.flush()
}

// source brings one source up to date into u.next.
func (u *updater) source(src *search.Source, id string) error {
	var old *srcRec
	if i, ok := u.old.find(id); ok {
		old = &u.old.srcs[i]
	}
	kind := kindOf(src)
	rec := srcRec{id: id, kind: kind}
	if old != nil && old.kind == kind {
		rec.num = old.num
	} else {
		rec.num = u.next.nextSrc
		u.next.nextSrc++
		old = nil
	}
	var err error
	switch kind {
	case kindFile:
		err = u.file(src, old, &rec)
	case kindWhole:
		err = u.whole(src, old, &rec)
	default:
		err = u.events(src, old, &rec)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone: removed
		}
		if isWriteErr(err) {
			return err
		}
		u.st.Unreadable = append(u.st.Unreadable, sourceName(id)+": "+err.Error())
		return nil
	}
	u.next.srcs = append(u.next.srcs, rec)
	return nil
}

// writeErr marks an error of the index's own writes (as opposed to a
// source that cannot be read).
type writeErr struct{ error }

func (e writeErr) Unwrap() error { return e.error }

func isWriteErr(err error) bool {
	var w writeErr
	return errors.As(err, &w)
}

// begin starts (re)indexing rec from scratch in the current segment.
func (u *updater) begin(rec *srcRec) {
	rec.minSeg, rec.lastSeg = u.cur, u.cur
	u.st.Whole++
}

// add indexes a line of rec, flushing full segments.
func (u *updater) add(rec *srcRec, pos int64, line []byte, tail bool) error {
	u.ix.addLine(&u.b, rec.num, pos, line, tail)
	rec.lastSeg = u.cur
	if err := u.maybeFlush(); err != nil {
		return writeErr{err}
	}
	return nil
}

func (u *updater) file(src *search.Source, old *srcRec, rec *srcRec) error {
	f, err := fsutil.OpenRegular(src.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	rec.stamp = stampOf(fi)
	from := int64(0)
	if old != nil {
		if old.stamp == rec.stamp {
			*rec = *old
			u.st.Unchanged++
			return nil
		}
		if old.stamp.Ino == rec.stamp.Ino && rec.stamp.Size >= old.to {
			if head, tail, err := prefixHashes(f, old.to); err == nil && head == old.head && tail == old.tail {
				// The old tail document dies (lastSeg moves on): the line
				// at old.to is read again below if it is still there.
				from = old.to
				rec.minSeg, rec.lastSeg = old.minSeg, u.cur
				u.st.Appended++
			}
		}
	}
	if from == 0 {
		u.begin(rec)
	}
	if _, err := f.Seek(from, 0); err != nil {
		return err
	}
	var werr error
	to, err := eachLine(f, from, search.DefaultMaxLine, func(pos int64, line []byte, complete bool) {
		if werr == nil {
			werr = u.add(rec, pos, line, !complete)
		}
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	rec.to = to
	rec.head, rec.tail, err = prefixHashes(f, to)
	return err
}

func (u *updater) whole(src *search.Source, old *srcRec, rec *srcRec) error {
	var st stamp
	var err error
	if src.Archive != nil {
		st, err = dbStamp(src.DB.Path())
	} else {
		var fi fs.FileInfo
		if fi, err = os.Stat(src.Path); err == nil {
			st = stampOf(fi)
		}
	}
	if err != nil {
		return err
	}
	if old != nil && old.stamp == st {
		*rec = *old
		u.st.Unchanged++
		return nil
	}
	rec.stamp = st
	u.begin(rec)
	r, closeFn, err := openWhole(src)
	if err != nil {
		return err
	}
	defer closeFn()
	var werr error
	_, err = eachLine(r, 0, search.DefaultMaxLine, func(pos int64, line []byte, complete bool) {
		if werr == nil {
			werr = u.add(rec, pos, line, false)
		}
	})
	if werr != nil {
		return werr
	}
	return err
}

func (u *updater) events(src *search.Source, old *srcRec, rec *srcRec) error {
	st, err := dbStamp(src.DB.Path())
	if err != nil {
		return err
	}
	if old != nil && old.stamp == st {
		*rec = *old
		u.st.Unchanged++
		return nil
	}
	rec.stamp = st
	type ev struct {
		seq  int64
		data []byte
	}
	var evs []ev
	prefix, all := fnv.New64a(), fnv.New64a()
	var last int64 = -1
	err = src.DB.Events(src.SessionID, search.DefaultMaxLine, func() {
		evs, last = evs[:0], -1
		prefix.Reset()
		all.Reset()
	}, func(seq int64, data []byte, s transcript.Status) {
		var h [9]byte
		for k := range 8 {
			h[k] = byte(seq >> (8 * k))
		}
		h[8] = byte(s)
		for _, w := range []interface{ Write([]byte) (int, error) }{all, prefix} {
			if w == prefix && (old == nil || seq > old.to) {
				continue
			}
			w.Write(h[:])
			w.Write(data)
		}
		evs = append(evs, ev{seq, bytes.Clone(data)})
		last = max(last, seq)
	})
	if err != nil {
		return err
	}
	from := int64(-1 << 62)
	if old != nil && prefix.Sum64() == old.head && last >= old.to {
		// Its earlier events as they were: only newer ones are read (the
		// store changed, maybe in another session).
		from = old.to
		rec.minSeg, rec.lastSeg = old.minSeg, old.lastSeg
		if last == old.to {
			u.st.Unchanged++
		} else {
			u.st.Appended++
		}
	} else {
		u.begin(rec)
	}
	for _, e := range evs {
		if e.seq > from && e.data != nil {
			if err := u.add(rec, e.seq, e.data, false); err != nil {
				return err
			}
		}
	}
	rec.to, rec.head = last, all.Sum64()
	return nil
}
