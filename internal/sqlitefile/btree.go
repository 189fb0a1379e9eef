package sqlitefile

import (
	"encoding/binary"
	"math"
	"slices"
)

// B-tree page types (file format §1.6).
const (
	pageTableInterior = 0x05
	pageTableLeaf     = 0x0d
)

// maxDepth bounds a b-tree's depth (SQLite's own BTCURSOR_MAX_DEPTH is 20).
const maxDepth = 20

// Kind is a value's storage class.
type Kind uint8

const (
	// Missing: the record has fewer columns than asked for (a column added
	// by ALTER TABLE after the row was written takes the column's default,
	// which only the schema knows).
	Missing Kind = iota
	Null
	Int
	Float
	Text
	Blob
)

// Value is one column of a record. Bytes (Text, Blob) is a copy in the
// caller's Arena.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Bytes []byte
}

// Arena hands out the memory values are copied into: chunks that grow to
// 16 MB, so a scan of 140 MB of text is a few allocations, not one per
// value, and a scan of a few rows a small one. The zero Arena is ready to
// use; an Arena is for one goroutine.
type Arena struct {
	buf     []byte
	next    int  // the size of the next chunk
	scratch bool // memory reused row after row (NewScratch)
}

// NewScratch returns an Arena whose memory is reused for every row: the
// Bytes of a value are then valid only during the ScanLeaves callback that
// receives it, and a scan of any size touches about one row's worth of
// memory (no copy kept, no page to fault in and zero).
func NewScratch() *Arena { return &Arena{scratch: true} }

const (
	arenaFirst = 64 << 10
	arenaMax   = 16 << 20
)

func (a *Arena) alloc(n int) []byte {
	if a.scratch && cap(a.buf)-len(a.buf) < n {
		// The row's earlier values keep the old buffer alive; the next
		// rows use the new one.
		a.buf = make([]byte, 0, max(2*cap(a.buf), n, arenaFirst))
	}
	if cap(a.buf)-len(a.buf) < n {
		size := max(a.next, arenaFirst)
		a.next = min(2*size, arenaMax)
		if n > size/4 {
			return make([]byte, n)
		}
		a.buf = make([]byte, 0, size)
		if size >= 4<<20 {
			adviseHuge(a.buf[:size])
		}
	}
	l := len(a.buf)
	a.buf = a.buf[:l+n]
	return a.buf[l : l+n : l+n]
}

// NewArena returns an Arena that hands out buf first (see PayloadSize),
// then allocates as the zero Arena does.
func NewArena(buf []byte) *Arena { return &Arena{buf: buf[:0:len(buf)], next: arenaMax} }

// Buffer allocates n bytes for NewArena in one piece, with transparent huge
// pages asked for (a 140 MB copy then costs a few dozen page faults
// instead of 35,000, and one allocation, not a garbage collection every
// few chunks).
func Buffer(n int) []byte {
	b := make([]byte, n)
	adviseHuge(b)
	return b
}

// Count returns how many rows the given leaf pages hold and the total size
// of their records (an upper bound of what ScanLeaves copies out of them).
func (s *Snapshot) Count(leaves []uint32) (rows, total int, err error) {
	err = s.protect(func() error {
		for _, pg := range leaves {
			p, h, n, err := s.leaf(pg)
			if err != nil {
				return err
			}
			for i := range n {
				c := int(binary.BigEndian.Uint16(p[h+8+2*i:]))
				if c < h+8+2*n || c >= len(p) {
					return corruptf("page %d: cell %d at %d out of the page", pg, i, c)
				}
				size, m := varint(p[c:])
				if m == 0 || size > maxPayload {
					return corruptf("page %d: cell payload size", pg)
				}
				total += int(size)
				if total > 1<<40 {
					return corruptf("payloads too large")
				}
			}
			rows += n
		}
		return nil
	})
	return rows, total, err
}

// leaf returns table leaf page pg, its header's offset and its cell count.
func (s *Snapshot) leaf(pg uint32) (p []byte, h, n int, err error) {
	if p, err = s.page(pg); err != nil {
		return nil, 0, 0, err
	}
	if pg == 1 {
		h = 100
	}
	if p[h] != pageTableLeaf {
		return nil, 0, 0, corruptf("page %d has type %#x, not a table leaf", pg, p[h])
	}
	n = int(binary.BigEndian.Uint16(p[h+3:]))
	if h+8+2*n > len(p) {
		return nil, 0, 0, corruptf("page %d: %d cells do not fit", pg, n)
	}
	return p, h, n, nil
}

// Subtrees splits the table b-tree rooted at root into at least want
// subtrees where it can: the pages of the shallowest level of the tree
// that has want pages or more (or its leaves, when no level has), in key
// order. Their Leaves, one after the other, are the tree's — each can be
// walked on its own goroutine.
func (s *Snapshot) Subtrees(root uint32, want int) (pages []uint32, err error) {
	err = s.protect(func() error {
		pages = []uint32{root}
		for depth := 0; len(pages) < want; depth++ {
			if depth > maxDepth {
				return corruptf("b-tree deeper than %d", maxDepth)
			}
			var next []uint32
			interior := false
			for _, pg := range pages {
				kids, err := s.children(pg)
				if err != nil {
					return err
				}
				if kids == nil {
					next = append(next, pg) // a leaf stays
					continue
				}
				interior = true
				next = append(next, kids...)
			}
			pages = next
			if !interior {
				break
			}
		}
		return nil
	})
	return pages, err
}

// children returns the child pages of interior table page pg in key order,
// or nil for a leaf.
func (s *Snapshot) children(pg uint32) ([]uint32, error) {
	p, err := s.page(pg)
	if err != nil {
		return nil, err
	}
	h := 0
	if pg == 1 {
		h = 100
	}
	switch p[h] {
	case pageTableLeaf:
		return nil, nil
	case pageTableInterior:
	default:
		return nil, corruptf("page %d has type %#x, not a table b-tree page", pg, p[h])
	}
	n := int(binary.BigEndian.Uint16(p[h+3:]))
	ptrs := h + 12
	if ptrs+2*n > len(p) {
		return nil, corruptf("page %d: %d cells do not fit", pg, n)
	}
	kids := make([]uint32, 0, n+1)
	for i := range n {
		c := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
		if c < ptrs+2*n || c+4 > len(p) {
			return nil, corruptf("page %d: cell %d at %d out of the page", pg, i, c)
		}
		kids = append(kids, binary.BigEndian.Uint32(p[c:]))
	}
	return append(kids, binary.BigEndian.Uint32(p[h+8:])), nil
}

// Leaves returns the leaf pages of the table b-tree rooted at root, in key
// (rowid) order. A page reached twice, a tree deeper than SQLite allows or
// a page that is not a table b-tree page is ErrCorrupt.
func (s *Snapshot) Leaves(root uint32) (leaves []uint32, err error) {
	err = s.protect(func() error {
		return s.walk(root, func(pg uint32, leaf bool) error {
			if leaf {
				leaves = append(leaves, pg)
			}
			return nil
		})
	})
	return leaves, err
}

// walk calls fn for every page of the table b-tree rooted at root, depth
// first in key order, each interior page before its children (see Leaves
// for what is ErrCorrupt).
func (s *Snapshot) walk(root uint32, fn func(pg uint32, leaf bool) error) error {
	seen := make([]uint64, s.nPages/64+1)
	var walk func(pg uint32, depth int) error
	walk = func(pg uint32, depth int) error {
		if depth > maxDepth {
			return corruptf("b-tree deeper than %d", maxDepth)
		}
		if pg == 0 || pg > s.nPages {
			return corruptf("child page %d out of range", pg)
		}
		if seen[pg/64]&(1<<(pg%64)) != 0 {
			return corruptf("page %d reached twice", pg)
		}
		seen[pg/64] |= 1 << (pg % 64)
		kids, err := s.children(pg)
		if err != nil {
			return err
		}
		if err := fn(pg, kids == nil); err != nil {
			return err
		}
		for _, k := range kids {
			if err := walk(k, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, 0)
}

// TreeStamp returns what tells this snapshot's version of the table b-tree
// rooted at root from another's: the -wal's header and the main file's
// stamp, then, for every page of the tree — interior, leaf and overflow —
// its number and where its bytes come from (its newest committed frame in
// the -wal, or the main file). Two snapshots of one database whose stamps
// of a tree are equal hold the same rows in it: within one log (one
// header) a committed frame is never written again, the main file does
// not change without its stamp changing, and SQLite changes a row only by
// writing a page of its tree — an overflow page alone, when only that part
// of a row changed in place. It reads the tree's interior pages and its
// leaves' cell headers, not its records.
func (s *Snapshot) TreeStamp(root uint32) (string, error) {
	b := append([]byte(nil), s.walHdr...)
	b = binary.AppendVarint(b, s.dbStamp.Size)
	b = binary.AppendVarint(b, s.dbStamp.MTime.UnixNano())
	b = binary.AppendUvarint(b, s.dbStamp.Ino)
	b = binary.AppendVarint(b, s.dbStamp.CTime)
	page := func(pg uint32) {
		b = binary.AppendUvarint(b, uint64(pg))
		off, ok := s.walPages[pg]
		if !ok {
			off = -1
		}
		b = binary.AppendVarint(b, int64(off))
	}
	err := s.protect(func() error {
		return s.walk(root, func(pg uint32, leaf bool) error {
			page(pg)
			if !leaf {
				return nil
			}
			p, h, n, err := s.leaf(pg)
			if err != nil {
				return err
			}
			for i := range n {
				c := int(binary.BigEndian.Uint16(p[h+8+2*i:]))
				if c < h+8+2*n || c >= len(p) {
					return corruptf("page %d: cell %d at %d out of the page", pg, i, c)
				}
				_, r, err := s.cell(p, c, pg)
				if err != nil {
					return err
				}
				for r.left > 0 {
					page(r.next)
					if err := r.advance(); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	return string(b), err
}

// ScanLeaves calls fn with the rowid and the columns cols (record column
// numbers, in increasing order) of every row on the given leaf pages, in
// order. vals is only valid during the call; the Bytes of its values are
// copies in a, and stay valid unless a is a NewScratch arena.
func (s *Snapshot) ScanLeaves(leaves []uint32, cols []int, a *Arena, fn func(rowid int64, vals []Value) error) error {
	for i := 1; i < len(cols); i++ {
		if cols[i] <= cols[i-1] {
			panic("sqlitefile: ScanLeaves columns not in increasing order")
		}
	}
	return s.protect(func() error {
		vals := make([]Value, len(cols))
		var hdr []byte
		for _, pg := range leaves {
			p, h, n, err := s.leaf(pg)
			if err != nil {
				return err
			}
			ptrs := h + 8
			for i := range n {
				c := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
				if c < ptrs+2*n || c >= len(p) {
					return corruptf("page %d: cell %d at %d out of the page", pg, i, c)
				}
				rowid, r, err := s.cell(p, c, pg)
				if err != nil {
					return err
				}
				if a.scratch {
					a.buf = a.buf[:0]
				}
				if hdr, err = r.record(cols, vals, hdr, a); err != nil {
					return err
				}
				if err := fn(rowid, vals); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// cell parses the table leaf cell at offset c of page p: its rowid and a
// reader over its payload.
func (s *Snapshot) cell(p []byte, c int, pg uint32) (int64, payload, error) {
	size, n := varint(p[c:])
	if n == 0 || size > maxPayload || size > uint64(s.nPages)*uint64(s.usable) {
		return 0, payload{}, corruptf("page %d: cell payload size", pg)
	}
	c += n
	rowid, n := varint(p[c:])
	if n == 0 {
		return 0, payload{}, corruptf("page %d: cell rowid", pg)
	}
	c += n
	P := int(size)
	local := s.localSize(P)
	end := c + local
	if local < P {
		end += 4
	}
	if end > len(p) {
		return 0, payload{}, corruptf("page %d: cell overflows the page", pg)
	}
	r := payload{s: s, seg: p[c : c+local], size: P, left: P - local}
	if local < P {
		r.next = binary.BigEndian.Uint32(p[c+local:])
	}
	return int64(rowid), r, nil
}

// localSize is how much of a table leaf cell's payload of P bytes is on the
// page itself (file format §1.6: X = U-35, M = ((U-12)*32/255)-23).
func (s *Snapshot) localSize(P int) int {
	U := s.usable
	X := U - 35
	if P <= X {
		return P
	}
	M := ((U-12)*32/255 - 23)
	K := M + (P-M)%(U-4)
	if K <= X {
		return K
	}
	return M
}

// payload reads a cell's payload front to back: the local part, then the
// overflow chain (each page: the next page's number, then U-4 bytes).
type payload struct {
	s    *Snapshot
	seg  []byte // the current segment's unread bytes
	pos  int    // payload offset of seg[0]
	size int
	left int    // payload bytes after the current segment
	next uint32 // the next overflow page
	hops uint32
}

func (r *payload) advance() error {
	if r.left == 0 || r.next == 0 {
		return corruptf("payload ends early")
	}
	r.hops++
	if r.hops > r.s.nPages {
		return corruptf("overflow chain loops")
	}
	p, err := r.s.page(r.next)
	if err != nil {
		return err
	}
	r.next = binary.BigEndian.Uint32(p)
	take := min(r.left, len(p)-4)
	r.seg = p[4 : 4+take]
	r.left -= take
	return nil
}

// skipTo moves to payload offset off (≥ the current one).
func (r *payload) skipTo(off int) error {
	for off-r.pos >= len(r.seg) && off-r.pos > 0 {
		r.pos += len(r.seg)
		r.seg = nil
		if err := r.advance(); err != nil {
			return err
		}
	}
	r.seg = r.seg[off-r.pos:]
	r.pos = off
	return nil
}

// read fills dst from the current offset.
func (r *payload) read(dst []byte) error {
	for len(dst) > 0 {
		if len(r.seg) == 0 {
			if err := r.advance(); err != nil {
				return err
			}
		}
		n := copy(dst, r.seg)
		dst, r.seg, r.pos = dst[n:], r.seg[n:], r.pos+n
	}
	return nil
}

// maxHeader bounds a record header (SQLite allows 32,767 columns of at most
// 9 bytes of serial type each).
const maxHeader = 9*32768 + 9

// record decodes columns cols of the record into vals, copying text and
// blobs into a. hdr is a scratch buffer, returned for reuse.
func (r *payload) record(cols []int, vals []Value, hdr []byte, a *Arena) ([]byte, error) {
	// The header size varint, byte by byte: nothing past it is consumed.
	var first [9]byte
	k := 0
	for k < 9 {
		if err := r.read(first[k : k+1]); err != nil {
			return hdr, err
		}
		k++
		if first[k-1] < 0x80 {
			break
		}
	}
	hsize, n := varint(first[:k])
	if n == 0 || hsize < uint64(n) || hsize > uint64(r.size) || hsize > maxHeader {
		return hdr, corruptf("record header size")
	}
	hdr = slices.Grow(hdr[:0], int(hsize))[:hsize]
	copy(hdr, first[:k])
	if err := r.read(hdr[k:]); err != nil {
		return hdr, err
	}
	// Walk the serial types, the body offset growing with each column.
	off := int(hsize)
	h := n
	col, want := 0, 0
	for want < len(cols) {
		if h >= len(hdr) {
			for ; want < len(cols); want++ {
				vals[want] = Value{Kind: Missing}
			}
			break
		}
		t, m := varint(hdr[h:])
		if m == 0 || h+m > len(hdr) {
			return hdr, corruptf("record serial type")
		}
		h += m
		size, ok := serialSize(t)
		if !ok || off+size > r.size {
			return hdr, corruptf("record serial type %d", t)
		}
		if col == cols[want] {
			v, err := r.value(t, off, size, a)
			if err != nil {
				return hdr, err
			}
			vals[want] = v
			want++
		}
		off += size
		col++
	}
	return hdr, nil
}

// value reads the value of serial type t at body offset off.
func (r *payload) value(t uint64, off, size int, a *Arena) (Value, error) {
	switch t {
	case 0:
		return Value{Kind: Null}, nil
	case 8:
		return Value{Kind: Int}, nil
	case 9:
		return Value{Kind: Int, Int: 1}, nil
	}
	if t >= 12 && size == 0 {
		if t&1 == 1 {
			return Value{Kind: Text, Bytes: []byte{}}, nil
		}
		return Value{Kind: Blob, Bytes: []byte{}}, nil
	}
	if err := r.skipTo(off); err != nil {
		return Value{}, err
	}
	if t >= 12 {
		b := a.alloc(size)
		if err := r.read(b); err != nil {
			return Value{}, err
		}
		if t&1 == 1 {
			return Value{Kind: Text, Bytes: b}, nil
		}
		return Value{Kind: Blob, Bytes: b}, nil
	}
	var buf [8]byte
	if err := r.read(buf[8-size:]); err != nil {
		return Value{}, err
	}
	u := binary.BigEndian.Uint64(buf[:])
	if t == 7 {
		return Value{Kind: Float, Float: math.Float64frombits(u)}, nil
	}
	// Sign-extend the big-endian two's complement integer of size bytes.
	shift := uint(64 - 8*size)
	return Value{Kind: Int, Int: int64(u<<shift) >> shift}, nil
}

// serialSize is the body size of serial type t (file format §2.1).
func serialSize(t uint64) (int, bool) {
	switch {
	case t <= 4:
		return int(t), true
	case t == 5:
		return 6, true
	case t == 6, t == 7:
		return 8, true
	case t == 8, t == 9:
		return 0, true
	case t >= 12:
		if t > 2*maxPayload+13 {
			return 0, false
		}
		return int((t - 12) / 2), true
	}
	return 0, false // 10, 11: reserved
}

// varint decodes SQLite's big-endian varint (1-9 bytes, the ninth with all
// 8 bits). n is 0 when b ends first.
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// RowReader reads rows of one table b-tree by rowid: see Snapshot.Rows.
type RowReader struct {
	s    *Snapshot
	root uint32
	cols []int
	vals []Value
	hdr  []byte
	a    *Arena
	// leaf: the leaf page the last row was on (0: none), which held the
	// rowids lo..hi: a row read after its neighbour (a session's events)
	// is looked for there first, without the descent.
	leaf   uint32
	lo, hi int64
}

// Rows returns a reader of the columns cols (record column numbers, in
// increasing order) of rows of the table b-tree rooted at root, looked up
// by rowid. The Bytes of the values are in a, as for ScanLeaves.
func (s *Snapshot) Rows(root uint32, cols []int, a *Arena) *RowReader {
	for i := 1; i < len(cols); i++ {
		if cols[i] <= cols[i-1] {
			panic("sqlitefile: Rows columns not in increasing order")
		}
	}
	return &RowReader{s: s, root: root, cols: cols, vals: make([]Value, len(cols)), a: a}
}

// Row returns the columns of the row whose rowid is rowid; found is false
// when the table holds none. vals is valid until the next call.
func (r *RowReader) Row(rowid int64) (vals []Value, found bool, err error) {
	err = r.s.protect(func() error {
		var err error
		found, err = r.row(rowid)
		return err
	})
	if err != nil || !found {
		return nil, false, err
	}
	return r.vals, true, nil
}

func (r *RowReader) row(rowid int64) (bool, error) {
	s := r.s
	pg := r.root
	if r.leaf != 0 && r.lo <= rowid && rowid <= r.hi {
		pg = r.leaf // a table b-tree holds a rowid in one leaf only
	}
	for depth := 0; ; depth++ {
		if depth > maxDepth {
			return false, corruptf("b-tree deeper than %d", maxDepth)
		}
		if pg == 0 || pg > s.nPages {
			return false, corruptf("child page %d out of range", pg)
		}
		p, err := s.page(pg)
		if err != nil {
			return false, err
		}
		h := 0
		if pg == 1 {
			h = 100
		}
		typ := p[h]
		if typ != pageTableInterior && typ != pageTableLeaf {
			return false, corruptf("page %d has type %#x, not a table b-tree page", pg, typ)
		}
		n := int(binary.BigEndian.Uint16(p[h+3:]))
		ptrs := h + 8
		if typ == pageTableInterior {
			ptrs += 4
		}
		if ptrs+2*n > len(p) {
			return false, corruptf("page %d: %d cells do not fit", pg, n)
		}
		// key returns cell i's rowid (after its child pointer, or its
		// payload size).
		var cerr error
		key := func(i int) int64 {
			c := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			if c < ptrs+2*n || c >= len(p) {
				cerr = corruptf("page %d: cell %d at %d out of the page", pg, i, c)
				return 0
			}
			if typ == pageTableInterior {
				c += 4
			} else {
				_, m := varint(p[c:])
				if m == 0 {
					cerr = corruptf("page %d: cell payload size", pg)
					return 0
				}
				c += m
			}
			if c > len(p) {
				cerr = corruptf("page %d: cell %d out of the page", pg, i)
				return 0
			}
			v, m := varint(p[c:])
			if m == 0 {
				cerr = corruptf("page %d: cell rowid", pg)
			}
			return int64(v)
		}
		lo, hi := 0, n // the first cell whose key is ≥ rowid
		for lo < hi && cerr == nil {
			mid := int(uint(lo+hi) >> 1)
			if key(mid) < rowid {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if cerr != nil {
			return false, cerr
		}
		if typ == pageTableLeaf {
			r.leaf = 0
			if n > 0 {
				r.leaf, r.lo, r.hi = pg, key(0), key(n-1)
			}
			if lo == n || key(lo) != rowid {
				return false, cerr
			}
			c := int(binary.BigEndian.Uint16(p[ptrs+2*lo:]))
			_, pl, err := s.cell(p, c, pg)
			if err != nil {
				return false, err
			}
			if r.a.scratch {
				r.a.buf = r.a.buf[:0]
			}
			if r.hdr, err = pl.record(r.cols, r.vals, r.hdr, r.a); err != nil {
				return false, err
			}
			return true, nil
		}
		if lo == n {
			pg = binary.BigEndian.Uint32(p[h+8:])
			continue
		}
		c := int(binary.BigEndian.Uint16(p[ptrs+2*lo:]))
		if c+4 > len(p) {
			return false, corruptf("page %d: cell %d out of the page", pg, lo)
		}
		pg = binary.BigEndian.Uint32(p[c:])
	}
}
