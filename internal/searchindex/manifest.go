package searchindex

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"strings"
)

// The manifest file names the index's segments and, for every source, what
// of it is indexed and the stamp it had then. It is replaced whole
// (temp file + rename) after the segments it names are written, so a reader
// sees the old index or the new one:
//
//	"SXIDXMN5"  magic and format version
//	uid         the index's identity, u64 (manifest.uid)
//	body        uvarints and strings (uvarint length + bytes): its
//	            generation, next source number, next segment number, the
//	            segments, the sources
//	trailer     CRC-32C u32 of every byte before it, "SXIDXEND"
//
// An update that changed a few sources (or merged the segments of the
// catch-ups since the last merge) does not rewrite it: it appends what
// changed to the journal (journal.go), so that a catch-up writes
// O(changed) bytes, and then edits those records into the records it
// holds in place (the manifest it replaced is not read again).
// Version 5: a line longer than search.DefaultMaxLine is recorded
// (srcRec.unclean, longest) where 4 passed it over silently, and the
// manifest holds the index's identity (uid). Version 6: the body ends
// with the stores' records (storeRec), and an events source's tail is
// its session's generation (sqlitestore.TranscriptChanges) where 5 kept
// its events' stamp. An index of an older version is rebuilt, as one that
// is not of this version.
const manMagic = "SXIDXMN6"

// Source kinds.
const (
	kindFile   = iota // a plain JSONL file: appends are indexed line by line
	kindWhole         // a zstd file or a store's archive: re-indexed whole on any change
	kindEvents        // a session of a 2026.8+ store: events by seq
)

// stamp is a source's version: for a file its size, mtime, inode and ctime;
// for a store's session those of the database and its -wal.
type stamp struct {
	Size, MTime int64
	Ino         uint64
	CTime       int64
}

// srcRec is one source in the manifest.
type srcRec struct {
	num   uint32
	id    string
	kind  uint8
	stamp stamp
	// to: a file's offset up to which its complete lines are indexed, an
	// events source's last seq.
	to int64
	// head and tail: hashes of a file's first bytes and of the bytes just
	// before to (the prefix check of an append); an events source's hash
	// of every event up to to, and of its transcript generation when it
	// was read (sqlitestore.TranscriptChanges: a store that changed
	// elsewhere does not get the session read again).
	head, tail uint64
	// minSeg: documents of this source in older segments are dead (it was
	// indexed anew). lastSeg: the segment of its latest update, the only
	// one whose tail document is live.
	minSeg, lastSeg uint32
	// unclean: what the scan would warn about was met (uncleanCorrupt: a
	// corrupt or oversize line, kept while the file only grows;
	// uncleanTorn: an unreadable unterminated last line, as of this
	// reading). The index holds messages only, so a caller scans such a
	// source to say what the scan says of it (Result.Scan).
	unclean uint8
	// longest is the length of its longest line or event indexed (of a
	// file, of every line read since it was indexed whole): a search that
	// reads shorter lines only (an agent's, search.Options.MaxLine) scans
	// a source holding a longer one (Filter.MaxLine).
	longest int64
}

// storeRec is one 2026.8+ store in the manifest: the stamp at which
// every session record of it was last found current, and the highest
// rowid of its events table then. A store whose stamp is still that one
// changed in none of its sessions; one that moved is asked which
// sessions have rows above that rowid or another generation
// (sqlitestore.TranscriptChanges), and only those are read: a commit to
// one session neither reads nor rewrites the records of the others.
type storeRec struct {
	path  string
	stamp stamp
	// rowid: the events' highest rowid at stamp (-1: not known, every
	// session of the store is read when it moves).
	rowid int64
}

const (
	uncleanCorrupt uint8 = 1 << iota
	uncleanTorn
)

type manifest struct {
	gen uint64 // the manifest file's generation: its journal's
	// uid is the index's identity: random, drawn for its first manifest and
	// kept by every later one. An index removed and built again in the same
	// directory has another, so a process that held the old one open
	// drops what it mapped of it (its segments' numbers start again).
	uid              uint64
	nextSrc, nextSeg uint32
	segs             []uint32
	srcs             []srcRec   // by id
	stores           []storeRec // by path

	// pos: the position in srcs of each source number (-1: none), made
	// on first use and kept by a manifest whose records an update edited
	// in place.
	pos []int32
}

// rec is the record of source number num (nil: none).
func (m *manifest) rec(num uint32) *srcRec {
	if m.pos == nil {
		m.pos = make([]int32, m.nextSrc)
		for i := range m.pos {
			m.pos[i] = -1
		}
		for i := range m.srcs {
			if n := m.srcs[i].num; int(n) < len(m.pos) {
				m.pos[n] = int32(i)
			}
		}
	}
	if int(num) >= len(m.pos) || m.pos[num] < 0 || int(m.pos[num]) >= len(m.srcs) {
		return nil
	}
	// a record replaced in place by one of another number (a source
	// indexed anew as another kind) is not num's
	if r := &m.srcs[m.pos[num]]; r.num == num {
		return r
	}
	return nil
}

// keepPos keeps m.pos (made for these records before changed were put in
// their places) when it still holds every changed record's number, else
// lets it be made again.
func (m *manifest) keepPos(changed []srcRec) {
	if m.pos == nil {
		return
	}
	for i := range changed {
		if m.rec(changed[i].num) == nil {
			m.pos = nil
			return
		}
	}
}

// store is the record of the store at path (nil: none).
func (m *manifest) store(path string) *storeRec {
	i, ok := slices.BinarySearchFunc(m.stores, path, func(r storeRec, p string) int { return strings.Compare(r.path, p) })
	if !ok {
		return nil
	}
	return &m.stores[i]
}

// storeCurrent reports whether the store at path has stamp cur, the one
// at which every session record of it was found current.
func (m *manifest) storeCurrent(path string, cur stamp) bool {
	r := m.store(path)
	return r != nil && r.stamp == cur
}

func (m *manifest) find(id string) (int, bool) {
	return slices.BinarySearchFunc(m.srcs, id, func(r srcRec, id string) int { return strings.Compare(r.id, id) })
}

// findFrom is the position of the record of id (-1: none), looked for
// at hint first (sources come mostly in the order of their ids: a search
// of every source is then one comparison each), then by bisection. Its
// comparisons of id make no string of it.
func findFrom[T string | []byte](m *manifest, hint int, id T) int {
	if hint >= 0 && hint < len(m.srcs) && m.srcs[hint].id == string(id) {
		return hint
	}
	lo, hi := 0, len(m.srcs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.srcs[mid].id < string(id) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.srcs) && m.srcs[lo].id == string(id) {
		return lo
	}
	return -1
}

// withChanges is srcs (sorted by id) without the ids removed and with the
// records changed put in (in place of the record of the same id, or
// added), as a journal record is applied: a new slice, srcs as it was.
// changed and removed are sorted here.
func withChanges(srcs, changed []srcRec, removed []string) []srcRec {
	byID := func(a, b srcRec) int { return strings.Compare(a.id, b.id) }
	slices.SortStableFunc(changed, byID)
	slices.Sort(removed)
	out := make([]srcRec, 0, len(srcs)+len(changed))
	i, j, k := 0, 0, 0
	for i < len(srcs) || j < len(changed) {
		if j == len(changed) || (i < len(srcs) && srcs[i].id < changed[j].id) {
			r := &srcs[i]
			i++
			for k < len(removed) && removed[k] < r.id {
				k++
			}
			if k == len(removed) || removed[k] != r.id {
				out = append(out, *r)
			}
			continue
		}
		// A record changed replaces the one of its id (removed or not,
		// as a journal record is applied); the last of one id counts.
		if i < len(srcs) && srcs[i].id == changed[j].id {
			i++
		}
		for j+1 < len(changed) && changed[j+1].id == changed[j].id {
			j++
		}
		out = append(out, changed[j])
		j++
	}
	return out
}

func (m *manifest) encode() []byte {
	b := []byte(manMagic)
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	u(m.gen)
	b = binary.LittleEndian.AppendUint64(b, m.uid)
	b = m.appendBody(b, m.srcs, nil, false)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return append(b, endMagic...)
}

// appendBody appends the counters, the segments, the sources srcs and,
// for a journal record, the ids of the sources removed.
func (m *manifest) appendBody(b []byte, srcs []srcRec, removed []string, journal bool) []byte {
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	i := func(v int64) { b = binary.AppendVarint(b, v) }
	u(uint64(m.nextSrc))
	u(uint64(m.nextSeg))
	u(uint64(len(m.segs)))
	for _, s := range m.segs {
		u(uint64(s))
	}
	u(uint64(len(srcs)))
	for _, r := range srcs {
		u(uint64(r.num))
		u(uint64(len(r.id)))
		b = append(b, r.id...)
		b = append(b, r.kind)
		i(r.stamp.Size)
		i(r.stamp.MTime)
		u(r.stamp.Ino)
		i(r.stamp.CTime)
		i(r.to)
		b = binary.LittleEndian.AppendUint64(b, r.head)
		b = binary.LittleEndian.AppendUint64(b, r.tail)
		u(uint64(r.minSeg))
		u(uint64(r.lastSeg))
		b = append(b, r.unclean)
		i(r.longest)
	}
	if journal {
		u(uint64(len(removed)))
		for _, id := range removed {
			u(uint64(len(id)))
			b = append(b, id...)
		}
	}
	// every store's record, in a journal's record too (a few: one per
	// agent)
	u(uint64(len(m.stores)))
	for _, r := range m.stores {
		u(uint64(len(r.path)))
		b = append(b, r.path...)
		i(r.stamp.Size)
		i(r.stamp.MTime)
		u(r.stamp.Ino)
		i(r.stamp.CTime)
		i(r.rowid)
	}
	return b
}

// decoder reads a manifest body, remembering the first error. s, when
// set, is the body's bytes as one string, ending where b ends: the
// sources' ids are cut from it (one string for all, not one each).
type decoder struct {
	b   []byte
	s   string
	bad bool
}

// str reads n bytes as a string.
func (d *decoder) str(n uint64) string {
	if d.s == "" || n > uint64(len(d.b)) {
		return string(d.bytes(n))
	}
	off := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[off : off+int(n)]
}

func (d *decoder) u() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) u32() uint32 {
	v := d.u()
	if v > 1<<32-1 {
		d.bad = true
	}
	return uint32(v)
}

func (d *decoder) i() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func decodeManifest(data []byte) (*manifest, error) {
	bad := func(why string) error { return &CorruptError{File: "manifest", Why: why} }
	if len(data) < len(manMagic)+12 || string(data[:len(manMagic)]) != manMagic {
		return nil, bad("not a manifest of this version")
	}
	if string(data[len(data)-8:]) != endMagic {
		return nil, bad("no end mark (torn or truncated)")
	}
	body := data[:len(data)-12]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-12:]) {
		return nil, bad("checksum mismatch")
	}
	d := &decoder{b: body[len(manMagic):], s: string(body[len(manMagic):])}
	m := &manifest{gen: d.u()}
	if id := d.bytes(8); len(id) == 8 {
		m.uid = binary.LittleEndian.Uint64(id)
	}
	srcs, _, ok := d.body(m, false)
	m.srcs = srcs
	if !ok || len(d.b) != 0 {
		return nil, bad("body does not decode")
	}
	if !slices.IsSortedFunc(m.srcs, func(a, b srcRec) int { return strings.Compare(a.id, b.id) }) {
		return nil, bad("entries out of order")
	}
	if why := m.check(); why != "" {
		return nil, bad(why)
	}
	return m, nil
}

// body decodes what appendBody wrote into m's counters and segments,
// returning the sources and (journal) the removed ids.
func (d *decoder) body(m *manifest, journal bool) (srcs []srcRec, removed []string, ok bool) {
	m.nextSrc, m.nextSeg = d.u32(), d.u32()
	n := d.u()
	if n > uint64(len(d.b)) {
		return nil, nil, false
	}
	m.segs = nil
	for range n {
		m.segs = append(m.segs, d.u32())
	}
	n = d.u()
	if n > uint64(len(d.b)) {
		return nil, nil, false
	}
	srcs = make([]srcRec, 0, min(n, uint64(len(d.b)/16))) // a record takes 16 bytes or more
	for range n {
		r := srcRec{num: d.u32()}
		r.id = d.str(d.u())
		if k := d.bytes(1); len(k) == 1 {
			r.kind = k[0]
		}
		r.stamp = stamp{Size: d.i(), MTime: d.i(), Ino: d.u(), CTime: d.i()}
		r.to = d.i()
		if h := d.bytes(16); len(h) == 16 {
			r.head, r.tail = binary.LittleEndian.Uint64(h), binary.LittleEndian.Uint64(h[8:])
		}
		r.minSeg, r.lastSeg = d.u32(), d.u32()
		if f := d.bytes(1); len(f) == 1 {
			r.unclean = f[0]
		}
		r.longest = d.i()
		srcs = append(srcs, r)
	}
	if journal {
		n = d.u()
		if n > uint64(len(d.b)) {
			return nil, nil, false
		}
		for range n {
			removed = append(removed, string(d.bytes(d.u())))
		}
	}
	n = d.u()
	if n > uint64(len(d.b)) {
		return nil, nil, false
	}
	m.stores = make([]storeRec, 0, min(n, uint64(len(d.b))/6)) // a record takes 6 bytes or more
	for range n {
		r := storeRec{path: string(d.bytes(d.u()))}
		r.stamp = stamp{Size: d.i(), MTime: d.i(), Ino: d.u(), CTime: d.i()}
		r.rowid = d.i()
		m.stores = append(m.stores, r)
	}
	return srcs, removed, !d.bad
}

// check is why m is not a manifest this version writes ("" when it is).
func (m *manifest) check() string {
	if !slices.IsSorted(m.segs) || !slices.IsSortedFunc(m.stores, func(a, b storeRec) int { return strings.Compare(a.path, b.path) }) {
		return "entries out of order"
	}
	for _, r := range m.srcs {
		if r.num >= m.nextSrc || r.kind > kindEvents {
			return "a source out of range"
		}
	}
	for _, s := range m.segs {
		if s >= m.nextSeg {
			return "a segment out of range"
		}
	}
	return ""
}
