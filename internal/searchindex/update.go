package searchindex

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
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
// new segment files, then a journal record naming them is appended, or a
// manifest naming them replaces the old one (temp file, fsync, rename); a
// crash at any point leaves the old index or the new one. An update whose
// ctx is done while it reads the sources keeps the sources it finished
// (resume.go), and of a file it was inside, the
// pieces of complete lines it added (recorded as if the file ended after
// them), and returns ctx's error: the next update goes on from there,
// reading the rest of that file as appended lines. An index found damaged is a *CorruptError (Reset, then
// Update again); a write that fails (disk full, read-only) is an error and
// leaves the index as it was.
func (ix *Index) Update(ctx context.Context, srcs []search.Source) (Stats, error) {
	return ix.UpdateStamped(ctx, srcs, Stamps{})
}

// Stamps are the stamps of sources as Backlog took them (Backlog.Stamps):
// a transcript file's (its stat), a store's (its database's and -wal's).
type Stamps struct {
	files, stores map[string]stamp
	// listed: a transcript file's stamp is the one its listing took
	// (search.Source.Stat) when it took one, files' otherwise.
	listed bool
	// clean is the manifest Backlog found every source indexed as it is
	// in, and holding no other (nil: something to do).
	clean *manifest
	// What Backlog worked out of the sources (of: the slice it was given)
	// against manifest man: the sources without duplicates (order), their
	// ids, where each one's record of its id is in man (at: -1 none; of
	// any kind; kept: how many are), and the sources (by position in
	// order) whose stamp is not the one indexed, or that it has no stamp
	// of (read). An update of the same sources against the same manifest
	// takes them as they are, and reads those only.
	of    sourcesRef
	man   *manifest
	order []int
	ids   []string
	at    []int32
	kept  int
	read  []int
}

// sourcesRef names a slice of sources: its first element and length.
type sourcesRef struct {
	first *search.Source
	n     int
}

func sliceOf(srcs []search.Source) sourcesRef {
	if len(srcs) == 0 {
		return sourcesRef{}
	}
	return sourcesRef{&srcs[0], len(srcs)}
}

// sameAs reports whether st was taken by Backlog of srcs against m.
func (st *Stamps) sameAs(srcs []search.Source, m *manifest) bool {
	return st.man != nil && st.man == m && st.of == sliceOf(srcs) && len(srcs) > 0
}

// stampOf is the stamp st holds of src.
func (st *Stamps) stampOf(src *search.Source) (stamp, bool) {
	if src.DB != nil {
		cur, ok := st.stores[src.DB.Path()]
		return cur, ok
	}
	if st.listed {
		if cur, ok := listedStamp(src); ok {
			return cur, true
		}
	}
	cur, ok := st.files[src.Path]
	return cur, ok
}

// has reports whether st holds a stamp of src.
func (st *Stamps) has(src *search.Source) bool {
	_, ok := st.stampOf(src)
	return ok
}

// unchanged reports whether st says that src has not changed since it was
// indexed (as old, in m): the very check an update's reader makes first,
// with the stamp taken a moment before.
func (st *Stamps) unchanged(src *search.Source, old *srcRec, m *manifest) bool {
	if old == nil {
		return false
	}
	cur, ok := st.stampOf(src)
	return ok && (cur == old.stamp || old.kind == kindEvents && m.storeCurrent(src.DB.Path(), cur))
}

// UpdateStamped is Update with the stamps the caller took of srcs already
// (Backlog's, just before): a source whose stamp there is the one indexed
// is kept as it is without a stat or a read (a catch-up after one
// appended line does not stat every transcript again). A source changed
// since that stamp was taken is indexed by the next update, as if this
// one had run when the stamp was taken; a source st has no stamp of is
// checked as Update checks it. Given the very slice Backlog weighed (not
// changed since), against the manifest it weighed it against, the update
// takes Backlog's ids and records of the sources too, and is a no-op when
// Backlog found nothing to do.
func (ix *Index) UpdateStamped(ctx context.Context, srcs []search.Source, st Stamps) (Stats, error) {
	unlock, err := ix.lock(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// Under the lock, the manifest as another process may have left it
	// (read again only if its file changed).
	if err := ix.load(); err != nil {
		return Stats{}, err
	}
	same := st.sameAs(srcs, ix.man)
	if same && st.clean == ix.man {
		// The backlog found every source as indexed, and the index is
		// still the manifest it weighed them against: nothing to read,
		// write or rebuild (the index keeps its generation).
		return Stats{Unchanged: len(ix.man.srcs), Segments: len(ix.man.segs)}, nil
	}
	u := &updater{ix: ix, old: ix.man, cur: ix.man.nextSeg}
	ix.stamps.Clear() // a store's stamp is taken once per update
	ix.checks.Clear()
	// A store's stamp is the one the caller took, if it took one: the
	// sources it found unchanged were found so at that stamp, which is
	// the one a store's record takes (a commit since is seen next time).
	for path, st := range st.stores {
		ix.stamps.Store(path, st)
	}
	u.next = manifest{nextSrc: ix.man.nextSrc, segs: slices.Clone(ix.man.segs)}
	var read []int
	if same {
		// Backlog's work on these sources, against this manifest
		u.plan = &sourcePlan{order: st.order, ids: st.ids, man: st.man, at: st.at, kept: st.kept}
		read = st.read
	} else {
		u.plan = ix.sourcesOf(srcs)
		read = make([]int, 0, 64)
		for k := range u.plan.order {
			if !st.unchanged(&srcs[u.plan.order[k]], u.oldOf(srcs, k), u.old) {
				read = append(read, k)
			}
		}
	}
	read = u.skipUnchangedSessions(srcs, read)
	if err := u.sources(ctx, srcs, read); err != nil {
		return u.interrupted(ctx, err)
	}
	// The records no source listed has, and those of sources gone or
	// unreadable: removed.
	u.removed = append(append(u.unlisted(), u.gone...), u.failed...)
	u.st.Removed += len(ix.man.srcs) - u.plan.kept
	u.next.stores = u.storesAfter(srcs)
	if err := u.flushAll(); err != nil {
		u.abort()
		return Stats{}, err
	}
	u.b, u.spare = builder{}, builder{} // their buffers, of no use to a merge
	u.next.nextSeg = u.cur
	if len(u.next.segs) > ix.maxSegs {
		u.materialize()
		if err := u.merge(); err != nil {
			u.abort()
			return Stats{}, err
		}
		u.st.Merged = true
	}
	if err := u.commit(); err != nil {
		u.abort()
		return Stats{}, err
	}
	if u.reload {
		ix.man = nil
		ix.gen++
		return u.st, nil
	}
	u.st.Segments = len(u.next.segs)
	// The manifest just written is the index now (not decoded again);
	// the segments it no longer names are let go first.
	for id := range ix.segs {
		if !slices.Contains(u.next.segs, id) {
			ix.drop(id)
		}
	}
	for _, id := range u.next.segs {
		if ix.segs[id] == nil {
			if err := ix.mapSeg(id); err != nil {
				ix.man = nil
				ix.gen++
				return u.st, err
			}
		}
	}
	ix.man = &u.next
	ix.gen++
	if (u.inPlace || u.samePlaces) && ix.known.man == u.old {
		// its records where they were: the sources' places in it hold
		ix.known.man = ix.man
	}
	if u.full || u.st.Merged {
		ix.gc()
	}
	return u.st, nil
}

// oldOf is the record of the source at position k of the update's plan
// in the manifest it updates (nil: none of its kind).
func (u *updater) oldOf(srcs []search.Source, k int) *srcRec {
	j := u.plan.at[k]
	if j < 0 || u.old.srcs[j].kind != kindOf(&srcs[u.plan.order[k]]) {
		return nil
	}
	return &u.old.srcs[j]
}

// unlisted is the ids of the records of the old manifest that no source
// of the update's names: nothing to look for when each is named.
func (u *updater) unlisted() []string {
	if u.plan.kept == len(u.old.srcs) {
		return nil
	}
	listed := make([]bool, len(u.old.srcs))
	for _, j := range u.plan.at {
		if j >= 0 {
			listed[j] = true
		}
	}
	var out []string
	for i := range u.old.srcs {
		if !listed[i] {
			out = append(out, u.old.srcs[i].id)
		}
	}
	return out
}

// materialize makes u.next's records: the old manifest's with the
// records read put in and those removed taken out (a new slice).
func (u *updater) materialize() {
	if u.next.srcs != nil {
		return
	}
	u.next.srcs = withChanges(u.old.srcs, slices.Clone(u.changed), slices.Clone(u.removed))
	u.samePlaces = len(u.next.srcs) == len(u.old.srcs) && len(u.removed) == 0
}

// commit makes u.next the index on disk: nothing when nothing changed; a
// journal record of what changed after a catch-up or a merge of the
// segments of the catch-ups since the last; a new manifest (of the next
// generation, its journal empty) for a new index, or when the record
// would take the journal past a quarter of the manifest (a merge of
// every segment: every source's record moved). It records the files' new
// stamps in ix. A record written, u.next's records are the old
// manifest's edited in place when sources were only changed (the old
// manifest is not used again): a catch-up after one appended line
// writes, copies and compares the records of what changed, not of every
// source.
func (u *updater) commit() error {
	ix := u.ix
	if err := u.syncSegs(); err != nil {
		return err
	}
	old := ix.man
	u.next.gen, u.next.uid = old.gen, old.uid
	for u.next.uid == 0 { // a new index
		u.next.uid = rand.Uint64()
	}
	// What changed: the records read (and of a merge, those it moved)
	// that differ from the old, and the ids removed.
	var changed []srcRec
	add := func(r *srcRec) {
		if i, ok := old.find(r.id); !ok || !sameRec(&old.srcs[i], r) {
			changed = append(changed, *r)
		}
	}
	if u.next.srcs != nil {
		at := make([]int, 0, len(u.changed)+len(u.moved))
		for i := range u.changed {
			if j, ok := u.next.find(u.changed[i].id); ok {
				at = append(at, j)
			}
		}
		at = append(at, u.moved...)
		slices.Sort(at)
		for _, j := range slices.Compact(at) {
			add(&u.next.srcs[j])
		}
	} else {
		for i := range u.changed {
			add(&u.changed[i])
		}
	}
	removed := u.removed
	if len(changed) == 0 && len(removed) == 0 && slices.Equal(old.segs, u.next.segs) && slices.Equal(old.stores, u.next.stores) &&
		old.nextSrc == u.next.nextSrc && old.nextSeg == u.next.nextSeg && !ix.at.Equal(fsutil.Stamp{}) {
		if u.next.srcs == nil {
			u.next.srcs, u.next.pos = old.srcs, old.pos
		}
		return nil
	}
	var body []byte
	if !ix.at.Equal(fsutil.Stamp{}) {
		body = u.next.appendBody(nil, changed, removed, true)
	}
	if body != nil && ix.jEnd+int64(len(body)) <= max(64<<10, ix.at.Size/4) {
		end, err := appendJournal(ix.dir, old.gen, ix.jEnd, body)
		if err != nil {
			return err
		}
		// Written: from here on an error only sends the next reader to
		// the files (never removes the segments they name).
		if testHookJournaled != nil {
			testHookJournaled()
		}
		fi, err := os.Stat(filepath.Join(ix.dir, "journal"))
		ix.jEnd, ix.jat, u.reload = end, fsutil.StampOf(fi), err != nil
		if u.next.srcs == nil && u.keepOld {
			u.next.srcs = withChanges(old.srcs, changed, removed)
		} else if u.next.srcs == nil {
			u.next.srcs = editSrcs(old.srcs, changed, removed)
			if len(u.next.srcs) > 0 && len(old.srcs) > 0 && &u.next.srcs[0] == &old.srcs[0] {
				// edited in place: the old manifest is not this one's
				// records any more (nothing reads it again)
				u.inPlace = true
				u.next.pos = old.pos
				u.next.keepPos(changed)
				old.srcs, old.pos = nil, nil
			}
		}
		return nil
	}
	u.full = true
	u.next.gen = old.gen + 1
	u.materialize()
	path := filepath.Join(ix.dir, "manifest")
	if err := fsutil.WriteFileAtomic(path, u.next.encode(), 0o600); err != nil {
		return err
	}
	// Its journal is of an older generation now: ignored, removed.
	os.Remove(filepath.Join(ix.dir, "journal"))
	fi, err := os.Stat(path)
	ix.at, ix.jat, ix.jEnd, u.reload = fsutil.StampOf(fi), fsutil.Stamp{}, 0, err != nil
	return nil
}

func sameRec(a, b *srcRec) bool { return *a == *b }

// gc removes the files no manifest names: old segments and the temp files
// of a writer that died (the lock is held).
func (ix *Index) gc() {
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if n == "manifest" || n == "lock" || n == "journal" {
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

// testHookJournaled, when set (by the crash test's child), runs after an
// update's journal record is written, before the segments it merged away
// are removed.
var testHookJournaled func()

// testHookEventsRead, when set, is told each store session whose events
// an update reads.
var testHookEventsRead func(sessionID string)

type updater struct {
	ix      *Index
	old     *manifest
	next    manifest
	b       builder
	cur     uint32   // the segment being built
	written []string // segment files written by this update
	// flushing: the segment being written beside the reading (flush);
	// spare: the buffers of the one written before it.
	flushing chan flushed
	spare    builder
	// unsynced: the segments written without an fsync, synced before a
	// manifest or journal names them (syncSegs): a first build's
	// segments are merged into one before, and never synced at all.
	unsynced map[uint32]string
	st       Stats
	full     bool // a new manifest was written (not a journal record)
	reload   bool // written, but its stamp not taken: the next load reads the files
	inPlace  bool // u.next's records are the old manifest's, edited in place
	// samePlaces: u.next's records, made anew, are where the old
	// manifest's of the same ids are
	samePlaces bool
	// keepOld: the old manifest's records may still be read (by the
	// readers of an interrupted update, which are not waited for): they
	// are not edited in place
	keepOld bool
	// plan: the sources and where their records are in old. changed: the
	// records of the sources read (in the order read); gone and failed:
	// the ids of sources read that are gone or could not be read, whose
	// records are removed; removed: every id removed. next.srcs is nil
	// until it is needed whole (a merge, a new manifest: materialize) or
	// the commit makes it; moved: the records of next.srcs a merge moved.
	plan         *sourcePlan
	changed      []srcRec
	gone, failed []string
	removed      []string
	moved        []int
}

// abort removes the segment files this update wrote.
func (u *updater) abort() {
	u.wait()
	for _, p := range u.written {
		os.Remove(p)
	}
}

// flush starts writing the segment being built (when it holds a
// document) on a goroutine of its own, once the one before it is written
// (wait), and the next is built meanwhile: a segment's postings, text
// compression and write were a third of a first build's CPU, and done
// between two sources they held the reading up (both cores busy ~1.5 of
// the time). The segment is this update's once wait has it.
func (u *updater) flush() error {
	if len(u.b.docs) == 0 {
		return nil
	}
	if err := u.wait(); err != nil {
		return err
	}
	id, b := u.cur, u.b
	u.next.segs = append(u.next.segs, id)
	u.cur++
	sp := u.spare
	u.b = builder{tris: sp.tris[:0], tends: sp.tends[:0], tmp: sp.tmp, scr: sp.scr, docs: sp.docs[:0], recs: sp.recs[:0], ends: sp.ends[:0]}
	u.spare = builder{}
	done := make(chan flushed, 1)
	u.flushing = done
	go func() {
		path, err := u.ix.writeSegFile(id, b.write, false)
		done <- flushed{id: id, path: path, b: b, err: err}
	}()
	return nil
}

// flushed is a segment flush wrote: its id and file, the builder it was
// written from (its buffers for the one after next), and how it went.
type flushed struct {
	id   uint32
	path string
	b    builder
	err  error
}

// wait waits until the segment being written (flush), if any, is.
func (u *updater) wait() error {
	if u.flushing == nil {
		return nil
	}
	f := <-u.flushing
	u.flushing = nil
	if f.err != nil {
		return f.err
	}
	u.wrote(f.id, f.path, false)
	u.spare = f.b
	if testHookSegWritten != nil {
		testHookSegWritten()
	}
	return nil
}

// flushAll writes the segment being built and waits until every segment
// is written.
func (u *updater) flushAll() error {
	if err := u.flush(); err != nil {
		u.wait()
		return err
	}
	return u.wait()
}

// writeSeg writes segment id through write (writeSegFile), this update's.
func (u *updater) writeSeg(id uint32, write func(w io.Writer) error, sync bool) error {
	path, err := u.ix.writeSegFile(id, write, sync)
	if err != nil {
		return err
	}
	u.wrote(id, path, sync)
	return nil
}

// wrote records segment id, written to path by this update.
func (u *updater) wrote(id uint32, path string, sync bool) {
	u.written = append(u.written, path)
	if !sync {
		if u.unsynced == nil {
			u.unsynced = map[uint32]string{}
		}
		u.unsynced[id] = path
	}
}

// writeSegFile writes segment id through write: a temp file, fsynced
// (sync; else later, syncSegs) and renamed to its name, its path. One at
// a time (the index's buffer).
func (ix *Index) writeSegFile(id uint32, write func(w io.Writer) error, sync bool) (string, error) {
	path := filepath.Join(ix.dir, segName(id))
	tmp, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	// The segment writer's buffer of 1 MiB, kept by the index between
	// segments (a catch-up writes one of a few KiB; the lock is held):
	// it takes a bufio.Writer that large as it is.
	if ix.segBuf == nil {
		ix.segBuf = bufio.NewWriterSize(nil, 1<<20)
	}
	bw := ix.segBuf
	var aw *aheadWriter
	if sync {
		aw = newAheadWriter(tmp)
		bw.Reset(aw)
	} else {
		bw.Reset(tmp)
	}
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	if aw != nil {
		if cerr := aw.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		tmp.Close()
		return "", err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return "", err
		}
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}

// aheadWriter writes a segment that will be fsynced (a merge's: a first
// build's whole index) on a goroutine of its own, so that the kernel's
// copy of its bytes into the page cache (~1 s of a 1.8 GB segment, a fifth
// of the merge) runs beside the merge instead of inside it, and starts the
// writeback of every writeAhead bytes as they are written
// (startWriteback). Write copies its bytes (a few buffers of 1 MiB in
// flight); an error of the file is returned by Close, which waits for
// every byte to be written (the bytes after an error are dropped).
type aheadWriter struct {
	todo, free chan []byte
	done       chan error
	err        error // the file's, once known
	closed     bool
}

const aheadBuffers = 3

func newAheadWriter(f *os.File) *aheadWriter {
	a := &aheadWriter{todo: make(chan []byte, aheadBuffers), free: make(chan []byte, aheadBuffers), done: make(chan error, 1)}
	for range aheadBuffers {
		a.free <- nil
	}
	go func() {
		var off, got int64 // bytes written; where the writeback not started yet begins
		var err error
		for b := range a.todo {
			if err == nil {
				var n int
				n, err = f.Write(b)
				off += int64(n)
				if off-got >= writeAhead {
					startWriteback(f, got, off-got)
					got = off
				}
			}
			a.free <- b[:0]
		}
		a.done <- err
	}()
	return a
}

func (a *aheadWriter) Write(b []byte) (int, error) {
	if a.closed {
		return 0, os.ErrClosed
	}
	a.todo <- append(<-a.free, b...)
	return len(b), nil
}

// Close waits for the bytes written and returns the file's first error.
func (a *aheadWriter) Close() error {
	if a.closed {
		return a.err
	}
	a.closed = true
	close(a.todo)
	if err := <-a.done; a.err == nil {
		a.err = err
	}
	return a.err
}

// syncSegs fsyncs the segments written unsynced that u.next names.
func (u *updater) syncSegs() error {
	for _, id := range u.next.segs {
		path, ok := u.unsynced[id]
		if !ok {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		delete(u.unsynced, id)
	}
	return nil
}

// maybeFlush ends the segment once it holds enough text.
func (u *updater) maybeFlush() error {
	if u.b.text < u.ix.segText && len(u.b.docs) < maxSegDocs {
		return nil
	}
	return u.flush()
}

// pdoc is a document read from a source, before it is numbered.
type pdoc struct {
	d    doc
	text int // bytes of its texts
	// triEnd and recEnd: where its distinct folded trigrams (docTrigrams)
	// and its record (appendRecord) end in its readResult's tris and recs.
	triEnd, recEnd int
}

// readResult is what a worker read of one source.
type readResult struct {
	rec       srcRec // the source's new stamp, to, head and tail
	unchanged bool   // the same stamp: nothing read
	// more: a piece of a file (its complete lines up to rec.to); the next
	// pieces follow, each appended to it.
	more     bool
	appended bool  // docs are what was appended (else the source whole)
	noNew    bool  // appended, but nothing new (a store changed elsewhere)
	unclean  uint8 // what this reading met that the scan warns about (srcRec.unclean)
	longest  int64 // the longest line or event read (srcRec.longest)
	docs     []pdoc
	tris     []trigram // the documents' trigrams, one after another
	recs     []byte    // the documents' records, one after another
	err      error
}

// sources reads the sources at the positions read of the update's plan
// (srcs[order[k]], named ids[k], k in read, ascending) on every core, and
// adds what they read to the index in their order, so that segments and
// source numbers come out as one reader would make them; the others are
// unchanged by the stamps given, and keep their records.
func (u *updater) sources(ctx context.Context, srcs []search.Source, read []int) error {
	order, ids := u.plan.order, u.plan.ids
	u.st.Unchanged += len(order) - len(read)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(read)))
	results := make([]chan readResult, len(read)) // by position in read
	for n := range results {
		results[n] = make(chan readResult, 1)
	}
	// Sources read ahead of the adding: enough that the readers go on
	// while the adder writes a segment (a first build writes one per
	// 4 MiB of text; with 2*workers+2 the readers of 2 cores stood idle
	// through it, ~1.5 cores busy where they are now ~1.85, and the
	// 3.6 GB build took ~15% longer), each at most a piece of ~1 MiB of
	// lines.
	window := make(chan struct{}, 2*workers+12)
	done := make(chan struct{})
	defer close(done)
	var next atomic.Int64
	for range min(workers, len(read)) {
		go func() {
			for {
				select {
				case window <- struct{}{}:
				case <-done:
					return
				}
				n := int(next.Add(1) - 1)
				if n >= len(read) {
					return
				}
				k := read[n]
				ch := results[n]
				send := func(res readResult) bool {
					select {
					case ch <- res:
						return true
					case <-done:
						return false
					}
				}
				if err := ctx.Err(); err != nil {
					send(readResult{err: err})
					continue
				}
				send(u.ix.read(&srcs[order[k]], u.oldOf(srcs, k), send))
			}
		}()
	}
	prog := newProgress(ctx, srcs, order)
	prev := 0 // the sources before it are in the index being built
	skip := func(to int) {
		if prog != nil {
			for ; prev < to; prev++ {
				prog.done(prev) // unchanged by the stamps given
			}
		}
		prev = to
	}
	for n, k := range read {
		skip(k)
		ch := results[n]
		old := u.oldOf(srcs, k)
		// part: the source's record after the pieces added so far.
		var part *srcRec
		for {
			var res readResult
			select {
			case res = <-ch:
			case <-ctx.Done():
				u.keepPart(part)
				return ctx.Err()
			}
			if err := ctx.Err(); err != nil {
				u.keepPart(part)
				return err
			}
			var err error
			if part, err = u.add(ids[k], kindOf(&srcs[order[k]]), old, res, part); err != nil {
				return err
			}
			res.recycle()
			if !res.more {
				break
			}
		}
		<-window
		prog.done(k)
		prev = k + 1
	}
	skip(len(order))
	return nil
}

// keepPart keeps the record of a source whose reading stopped after some
// of its pieces: as if the file ended after them.
func (u *updater) keepPart(part *srcRec) {
	if part != nil {
		u.changed = append(u.changed, *part)
	}
}

// add puts one source's read, or a piece of it (res.more), into the index
// being built. part is the source's record after its pieces added before
// (nil: this is its first); it returns that record after this piece
// (nil once the source is done: its record is in u.next).
func (u *updater) add(id string, kind uint8, old *srcRec, res readResult, part *srcRec) (*srcRec, error) {
	if res.err != nil {
		// its record (of any kind) is removed
		_, held := u.old.find(id)
		if !errors.Is(res.err, fs.ErrNotExist) {
			u.st.Unreadable = append(u.st.Unreadable, sourceName(id)+": "+res.err.Error())
			u.st.Failed = append(u.st.Failed, id)
			if held {
				u.failed = append(u.failed, id)
			}
		} else if held {
			u.gone = append(u.gone, id)
		}
		return nil, nil
	}
	if res.unchanged {
		u.st.Unchanged++
		return nil, nil
	}
	if part != nil {
		// A later piece: the record moves on to its end.
		part.stamp, part.to, part.head, part.tail = res.rec.stamp, res.rec.to, res.rec.head, res.rec.tail
		part.unclean |= res.unclean
		part.longest = max(part.longest, res.longest)
		return u.addDocs(part, res)
	}
	rec := res.rec
	rec.id, rec.kind = id, kind
	rec.unclean = res.unclean
	rec.longest = res.longest
	if res.appended && old != nil {
		rec.unclean |= old.unclean & uncleanCorrupt // the lines read before are still there
		if kind == kindFile {
			rec.longest = max(rec.longest, old.longest)
		}
	}
	if old != nil {
		rec.num = old.num
	} else {
		rec.num = u.next.nextSrc
		u.next.nextSrc++
	}
	switch {
	case !res.appended:
		rec.minSeg, rec.lastSeg = u.cur, u.cur
		u.st.Whole++
	case kind == kindFile:
		// The old tail document dies (lastSeg moves on): the line at
		// old.to was read again if it is still there.
		rec.minSeg, rec.lastSeg = old.minSeg, u.cur
		u.st.Appended++
	default:
		rec.minSeg, rec.lastSeg = old.minSeg, old.lastSeg
		if res.noNew {
			u.st.Unchanged++
		} else {
			u.st.Appended++
		}
	}
	return u.addDocs(&rec, res)
}

// addDocs adds the documents of res, a read of the source of rec.
func (u *updater) addDocs(rec *srcRec, res readResult) (*srcRec, error) {
	triStart, recStart := 0, 0
	for _, p := range res.docs {
		p.d.src = rec.num
		u.b.add(p.d, res.tris[triStart:p.triEnd], p.text, res.recs[recStart:p.recEnd])
		triStart, recStart = p.triEnd, p.recEnd
		rec.lastSeg = u.cur
		if err := u.maybeFlush(); err != nil {
			return nil, err
		}
	}
	if res.more {
		return rec, nil
	}
	u.changed = append(u.changed, *rec)
	return nil, nil
}

// resBufs are a readResult's buffers, used again once the read is added.
type resBufs struct {
	docs []pdoc
	tris []trigram
	recs []byte
}

var resPool = sync.Pool{New: func() any { return new(resBufs) }}

// grab gives res buffers kept from an earlier read (before its first
// document).
// passOver records a line longer than the index reads (and the scan
// reads: search.DefaultMaxLine), passed over without a document: the scan
// warns about it, so the source is scanned within an indexed answer
// (uncleanCorrupt; uncleanTorn for an unterminated last line, as of this
// reading), and its length is the source's longest.
func (res *readResult) passOver(n int64, complete bool) {
	res.longest = max(res.longest, n)
	if complete {
		res.unclean |= uncleanCorrupt
	} else {
		res.unclean |= uncleanTorn
	}
}

func (res *readResult) grab() {
	if res.docs == nil {
		b := resPool.Get().(*resBufs)
		res.docs, res.tris, res.recs = b.docs[:0], b.tris[:0], b.recs[:0]
	}
}

// recycle keeps res's buffers for another read (res is not used after).
func (res *readResult) recycle() {
	if res.docs == nil || cap(res.recs) > 64<<20 || cap(res.tris) > 64<<20 {
		return
	}
	resPool.Put(&resBufs{docs: res.docs[:0], tris: res.tris[:0], recs: res.recs[:0]})
}

// read reads what changed in one source since old (nil: never indexed).
func (ix *Index) read(src *search.Source, old *srcRec, emit func(readResult) bool) readResult {
	switch kindOf(src) {
	case kindFile:
		return ix.readFile(src, old, emit)
	case kindWhole:
		return ix.readWhole(src, old)
	}
	return ix.readEvents(src, old)
}

// testHookFileChecked, when set, is told of each transcript file an update
// checks (its stat, then its read if it changed).
var testHookFileChecked func(path string)

// errStopped: the update stopped reading (its reading loop returned).
var errStopped = errors.New("search index: the update stopped")

// readFile reads what changed in a file since old: the pieces before the
// last (readResult.more) go to emit as they are read (false: stop).
func (ix *Index) readFile(src *search.Source, old *srcRec, emit func(readResult) bool) (res readResult) {
	if testHookFileChecked != nil {
		testHookFileChecked(src.Path)
	}
	if old != nil {
		// One stat for a file that did not change (the common case).
		if fi, err := os.Stat(src.Path); err == nil && fi.Mode().IsRegular() && stampOf(fi) == old.stamp {
			return readResult{unchanged: true}
		}
	}
	f, err := fsutil.OpenRegular(src.Path)
	if err != nil {
		return readResult{err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return readResult{err: err}
	}
	res.rec.stamp = stampOf(fi)
	from := int64(0)
	if old != nil {
		if old.stamp == res.rec.stamp {
			return readResult{unchanged: true}
		}
		if old.stamp.Ino == res.rec.stamp.Ino && res.rec.stamp.Size >= old.to && old.to > 0 {
			if head, tail, err := prefixHashes(f, old.to); err == nil && head == old.head && tail == old.tail {
				from, res.appended = old.to, true
			}
		}
	}
	if _, err := f.Seek(from, 0); err != nil {
		return readResult{err: err}
	}
	// A piece ends after the complete line that takes it past
	// ix.pieceText: it is recorded as if the file ended there (its stamp
	// of that size, its hashes of those bytes), so that an update
	// interrupted before the next piece is added leaves a record the next
	// update reads the rest of as appended lines.
	stamp, start, stopped := res.rec.stamp, from, false
	to, err := eachLineWhile(f, from, search.DefaultMaxLine, func(pos int64, line []byte, complete bool) bool {
		ix.addDoc(&res, pos, line, !complete)
		end := pos + int64(len(line)) + 1
		if !complete || end-start < int64(ix.pieceText) {
			return true
		}
		res.more, res.rec.to, res.rec.stamp = true, end, stamp
		res.rec.stamp.Size = end
		if res.rec.head, res.rec.tail, res.err = prefixHashes(f, end); res.err != nil {
			res = readResult{err: res.err}
		}
		if !emit(res) || res.err != nil {
			stopped = true
			return false
		}
		res, start = readResult{rec: srcRec{stamp: stamp}, appended: true}, end
		return true
	}, res.passOver)
	if err != nil {
		return readResult{err: err}
	}
	if stopped {
		return readResult{err: errStopped}
	}
	res.rec.to = to
	if res.rec.head, res.rec.tail, err = prefixHashes(f, to); err != nil {
		return readResult{err: err}
	}
	return res
}

func (ix *Index) readWhole(src *search.Source, old *srcRec) (res readResult) {
	var err error
	if src.Archive != nil {
		res.rec.stamp, err = ix.dbStamp(src.DB.Path())
	} else {
		var fi fs.FileInfo
		if fi, err = os.Stat(src.Path); err == nil {
			res.rec.stamp = stampOf(fi)
		}
	}
	if err != nil {
		return readResult{err: err}
	}
	if old != nil && old.stamp == res.rec.stamp {
		return readResult{unchanged: true}
	}
	r, closeFn, err := openWhole(src)
	if err != nil {
		return readResult{err: err}
	}
	defer closeFn()
	_, err = eachLine(r, 0, search.DefaultMaxLine, func(pos int64, line []byte, _ bool) {
		ix.addDoc(&res, pos, line, false)
	}, func(n int64, _ bool) { res.passOver(n, true) })
	if err != nil {
		return readResult{err: err}
	}
	return res
}

func (ix *Index) readEvents(src *search.Source, old *srcRec) (res readResult) {
	st, err := ix.dbStamp(src.DB.Path())
	if err != nil {
		return readResult{err: err}
	}
	if old != nil && ix.sessionUnchanged(src, old, st) {
		return readResult{unchanged: true}
	}
	var gen uint64
	if c := ix.storeChanges(src.DB, st); c.err == nil {
		gen = c.ch.Generation(src.SessionID)
	}
	res.rec.stamp, res.rec.tail = st, gen
	if testHookEventsRead != nil {
		testHookEventsRead(src.SessionID)
	}
	// The events are copied out (their bytes are the store's only during
	// the callback) one after another into one buffer, and indexed once
	// the store is let go: a store is read by one reader at a time
	// (sqlitestore.DB holds its lock through Events), so that indexing
	// inside the callback held the other readers up.
	type ev struct {
		seq      int64
		from, to int  // its bytes in buf
		ok       bool // it has bytes (data not nil)
	}
	var evs []ev
	bp := eventBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	// xxhash: every byte of the store's events is hashed (FNV-1a, a
	// multiply per byte, was ~3% of a both-era first build's CPU).
	prefix, all := xxhash.New(), xxhash.New()
	var last int64 = -1
	err = src.DB.Events(src.SessionID, search.DefaultMaxLine, func() {
		evs, last, buf = evs[:0], -1, buf[:0]
		res.unclean, res.longest = 0, 0
		prefix.Reset()
		all.Reset()
	}, func(seq int64, data []byte, s transcript.Status) {
		if s == transcript.StatusCorrupt || s == transcript.StatusOversize {
			res.unclean |= uncleanCorrupt
		}
		res.longest = max(res.longest, int64(len(data)))
		var h [9]byte
		for k := range 8 {
			h[k] = byte(seq >> (8 * k))
		}
		h[8] = byte(s)
		all.Write(h[:])
		all.Write(data)
		if old != nil && seq <= old.to {
			prefix.Write(h[:])
			prefix.Write(data)
		}
		evs = append(evs, ev{seq, len(buf), len(buf) + len(data), data != nil})
		buf = append(buf, data...)
		last = max(last, seq)
	})
	defer func() {
		if cap(buf) <= 64<<20 {
			*bp = buf[:0]
			eventBufs.Put(bp)
		}
	}()
	if err != nil {
		return readResult{err: err}
	}
	from := int64(-1 << 62)
	if old != nil && prefix.Sum64() == old.head && last >= old.to {
		// Its earlier events as they were: only newer ones are indexed
		// (the store changed, maybe in another session).
		from, res.appended, res.noNew = old.to, true, last == old.to
	}
	for _, e := range evs {
		if e.seq > from && e.ok {
			ix.addDoc(&res, e.seq, buf[e.from:e.to], false)
		}
	}
	res.rec.to, res.rec.head = last, all.Sum64()
	return res
}

// eventBufs keeps readEvents' buffers of a session's events between
// sessions.
var eventBufs = sync.Pool{New: func() any { return new([]byte) }}

// storeCheck is one store's TranscriptChanges, asked once per update.
type storeCheck struct {
	once sync.Once
	st   stamp // the store's stamp when it was asked (taken before)
	ch   sqlitestore.TranscriptChanges
	err  error
	// settled: the store's stamp after it was asked is still st, so
	// what it told is the store at st — the sessions found unchanged
	// before by their own stamp (st itself) hold no row above
	// ch.MaxRowID either. Else the store's record is not moved on.
	settled bool
}

// storeChanges is the store db's TranscriptChanges since the rowid its
// record in the manifest updated holds, asked once per update, after its
// stamp st was taken.
func (ix *Index) storeChanges(db *sqlitestore.DB, st stamp) *storeCheck {
	v, ok := ix.checks.Load(db.Path())
	if !ok {
		v, _ = ix.checks.LoadOrStore(db.Path(), &storeCheck{})
	}
	c := v.(*storeCheck)
	c.once.Do(func() {
		c.st = st
		// From the record's rowid, if the store is the same file (one
		// put in its place has rowids of another history).
		after := int64(-1)
		if r := ix.man.store(db.Path()); r != nil && r.stamp.Ino == st.Ino {
			after = r.rowid
		}
		c.ch, c.err = db.TranscriptChanges(after)
		now, err := dbStamp(db.Path())
		c.settled = err == nil && now == st
	})
	return c
}

// sessionUnchanged reports whether the store session src, indexed as
// old, is unchanged at the store's stamp st: the store has that stamp
// still, or it changed but the session has no row added since the
// store's record and the same generation (OpenClaw's mark of a change
// to rows already there), and its record is left as it is (the store's record says it
// is current). The stamp is taken before the store is asked, and it
// before the events are read, so a write in between is read again by
// the next update.
func (ix *Index) sessionUnchanged(src *search.Source, old *srcRec, st stamp) bool {
	if old.stamp == st || ix.man.storeCurrent(src.DB.Path(), st) {
		return true
	}
	c := ix.storeChanges(src.DB, st)
	return c.err == nil && c.ch.Added != nil && !c.ch.Added[src.SessionID] && c.ch.Generation(src.SessionID) == old.tail
}

// skipUnchangedSessions is read (positions in the update's plan) without
// the sessions of a store that changed elsewhere that are unchanged
// (sessionUnchanged): told before any source is handed to a reader.
func (u *updater) skipUnchangedSessions(srcs []search.Source, read []int) []int {
	var out []int
	for n, k := range read {
		src := &srcs[u.plan.order[k]]
		if src.DB != nil && src.Archive == nil {
			if old := u.oldOf(srcs, k); old != nil {
				if st, err := u.ix.dbStamp(src.DB.Path()); err == nil && u.ix.sessionUnchanged(src, old, st) {
					if out == nil {
						out = append(make([]int, 0, len(read)), read[:n]...)
					}
					continue
				}
			}
		}
		if out != nil {
			out = append(out, k)
		}
	}
	if out == nil {
		return read
	}
	return out
}

// storesAfter is the stores' records once an update of srcs is done: a
// store it asked for its changes, and that did not change while asked,
// is current at the stamp it asked at (every session of it was read or
// found unchanged then, or is gone from the index); any other keeps its
// record (the next update asks again from it); a store no source names
// has none.
func (u *updater) storesAfter(srcs []search.Source) []storeRec {
	var out []storeRec
	var last *sqlitestore.DB
	for i := range srcs {
		db := srcs[i].DB
		if db == nil || srcs[i].Archive != nil || db == last {
			continue
		}
		last = db
		path := db.Path()
		if slices.ContainsFunc(out, func(r storeRec) bool { return r.path == path }) {
			continue
		}
		if v, ok := u.ix.checks.Load(path); ok && v.(*storeCheck).settled {
			c := v.(*storeCheck)
			rowid := c.ch.MaxRowID
			if c.err != nil {
				rowid = -1 // every session was read: from the start next time
			}
			out = append(out, storeRec{path: path, stamp: c.st, rowid: rowid})
		} else if r := u.old.store(path); r != nil {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b storeRec) int { return strings.Compare(a.path, b.path) })
	return out
}

// dbStamp is the stamp of a store, taken once per update for all its
// sessions.
func (ix *Index) dbStamp(path string) (stamp, error) {
	if v, ok := ix.stamps.Load(path); ok {
		return v.(stamp), nil
	}
	st, err := dbStamp(path)
	if err == nil {
		ix.stamps.Store(path, st)
	}
	return st, err
}
