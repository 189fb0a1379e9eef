package sqlitefile

import (
	"encoding/binary"
)

// Index b-tree page types (file format §1.6).
const (
	pageIndexInterior = 0x02
	pageIndexLeaf     = 0x0a
)

// A Range is a contiguous run of an index's entries in key order: Compare
// reports whether an entry's key (its first columns, as IndexCursor reads
// them) is below the run (< 0), in it (0) or above it (> 0). An error ends
// the cursor's walk with that error (a key of a kind the caller cannot
// compare as SQLite would, say).
type Range interface {
	Compare(key []Value) (int, error)
}

// IndexCursor walks the entries of an index b-tree that a Range holds, in
// key order: see Snapshot.SeekIndex.
type IndexCursor struct {
	s     *Snapshot
	rng   Range
	ncols []int
	vals  []Value
	hdr   []byte
	a     *Arena
	// stack: the interior pages above the current leaf, each with the
	// cell whose child is being walked (n: the right-most pointer's).
	stack []frame
	leaf  uint32 // the current leaf page, 0 before the first or when done
	cell  int    // the next cell of the leaf to read
	done  bool
	err   error
	// seen: the pages entered so far. A b-tree enters each once; a
	// damaged one that leads back to a page could loop for ever.
	seen map[uint32]struct{}
}

type frame struct {
	pg   uint32
	cell int
}

// SeekIndex returns a cursor over the entries of the index b-tree rooted at
// root that rng holds, each read as its first ncols record columns (an
// index entry's record is its indexed columns then the table row's rowid).
// The Bytes of the values Next returns are in a (use NewScratch to have
// them valid only until the next call). Pages are checked as they are
// read; anything malformed is ErrCorrupt.
func (s *Snapshot) SeekIndex(root uint32, ncols int, rng Range, a *Arena) *IndexCursor {
	c := &IndexCursor{s: s, rng: rng, ncols: make([]int, ncols), vals: make([]Value, ncols), a: a, seen: map[uint32]struct{}{}}
	for i := range c.ncols {
		c.ncols[i] = i
	}
	c.err = s.protect(func() error { return c.descend(root, true) })
	if c.err != nil {
		c.done = true
	}
	return c
}

// indexPage returns index b-tree page pg, its header's offset, its cell
// count and whether it is a leaf.
func (s *Snapshot) indexPage(pg uint32) (p []byte, h, n int, leaf bool, err error) {
	if p, err = s.page(pg); err != nil {
		return nil, 0, 0, false, err
	}
	if pg == 1 {
		h = 100
	}
	switch p[h] {
	case pageIndexLeaf:
		leaf = true
	case pageIndexInterior:
	default:
		return nil, 0, 0, false, corruptf("page %d has type %#x, not an index b-tree page", pg, p[h])
	}
	n = int(binary.BigEndian.Uint16(p[h+3:]))
	ptrs := h + 8
	if !leaf {
		ptrs += 4
	}
	if ptrs+2*n > len(p) {
		return nil, 0, 0, false, corruptf("page %d: %d cells do not fit", pg, n)
	}
	return p, h, n, leaf, nil
}

// indexCell returns the key of cell i of index page p (and, on an
// interior page, its left child).
func (c *IndexCursor) indexCell(p []byte, h, n, i int, leaf bool, pg uint32) (child uint32, key []Value, err error) {
	ptrs := h + 8
	if !leaf {
		ptrs += 4
	}
	off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
	if off < ptrs+2*n || off >= len(p) {
		return 0, nil, corruptf("page %d: cell %d at %d out of the page", pg, i, off)
	}
	if !leaf {
		if off+4 > len(p) {
			return 0, nil, corruptf("page %d: cell %d at %d out of the page", pg, i, off)
		}
		child = binary.BigEndian.Uint32(p[off:])
		off += 4
	}
	s := c.s
	size, m := varint(p[off:])
	if m == 0 || size > maxPayload || size > uint64(s.nPages)*uint64(s.usable) {
		return 0, nil, corruptf("page %d: cell payload size", pg)
	}
	off += m
	P := int(size)
	local := s.indexLocalSize(P)
	end := off + local
	if local < P {
		end += 4
	}
	if end > len(p) {
		return 0, nil, corruptf("page %d: cell overflows the page", pg)
	}
	r := payload{s: s, seg: p[off : off+local], size: P, left: P - local}
	if local < P {
		r.next = binary.BigEndian.Uint32(p[off+local:])
	}
	if c.a.scratch {
		c.a.buf = c.a.buf[:0]
	}
	if c.hdr, err = r.record(c.ncols, c.vals, c.hdr, c.a); err != nil {
		return 0, nil, err
	}
	return child, c.vals, nil
}

// child returns the left child of cell i of interior index page p (n: the
// right-most pointer), without reading its key.
func childOf(p []byte, h, n, i int, pg uint32) (uint32, error) {
	if i == n {
		return binary.BigEndian.Uint32(p[h+8:]), nil
	}
	ptrs := h + 12
	off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
	if off < ptrs+2*n || off+4 > len(p) {
		return 0, corruptf("page %d: cell %d at %d out of the page", pg, i, off)
	}
	return binary.BigEndian.Uint32(p[off:]), nil
}

// indexLocalSize is how much of an index cell's payload of P bytes is on
// the page itself (file format §1.6: X = ((U-12)*64/255)-23, M as for
// tables).
func (s *Snapshot) indexLocalSize(P int) int {
	U := s.usable
	X := (U-12)*64/255 - 23
	if P <= X {
		return P
	}
	M := (U-12)*32/255 - 23
	K := M + (P-M)%(U-4)
	if K <= X {
		return K
	}
	return M
}

// first returns the first cell of the n on page p whose key is not below
// the range (n when none is).
func (c *IndexCursor) first(p []byte, h, n int, leaf bool, pg uint32) (int, error) {
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		_, key, err := c.indexCell(p, h, n, mid, leaf, pg)
		if err != nil {
			return 0, err
		}
		k, err := c.rng.Compare(key)
		if err != nil {
			return 0, err
		}
		if k < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// descend walks down from page pg to a leaf, pushing the interior pages
// passed: to the first entry not below the range when seek, else to the
// subtree's first entry.
func (c *IndexCursor) descend(pg uint32, seek bool) error {
	for {
		if len(c.stack) > maxDepth {
			return corruptf("b-tree deeper than %d", maxDepth)
		}
		if pg == 0 || pg > c.s.nPages {
			return corruptf("child page %d out of range", pg)
		}
		if _, ok := c.seen[pg]; ok {
			return corruptf("page %d reached twice", pg)
		}
		c.seen[pg] = struct{}{}
		p, h, n, leaf, err := c.s.indexPage(pg)
		if err != nil {
			return err
		}
		i := 0
		if seek {
			if i, err = c.first(p, h, n, leaf, pg); err != nil {
				return err
			}
		}
		if leaf {
			c.leaf, c.cell = pg, i
			return nil
		}
		c.stack = append(c.stack, frame{pg, i})
		if pg, err = childOf(p, h, n, i, pg); err != nil {
			return err
		}
	}
}

// Next returns the next entry's key columns, or ok false once the range is
// done (or on an error, which Err then returns). The values are valid
// until the next call when the cursor's Arena is a scratch one.
func (c *IndexCursor) Next() (key []Value, ok bool) {
	if c.done {
		return nil, false
	}
	c.err = c.s.protect(func() error {
		var err error
		key, ok, err = c.next()
		return err
	})
	if c.err != nil || !ok {
		c.done, key, ok = true, nil, false
	}
	return key, ok
}

// Err is what ended the walk early, if anything did.
func (c *IndexCursor) Err() error { return c.err }

func (c *IndexCursor) next() ([]Value, bool, error) {
	for steps := 0; ; steps++ {
		if steps > int(c.s.nPages)+maxDepth {
			return nil, false, corruptf("index b-tree loops")
		}
		if c.leaf != 0 {
			p, h, n, leaf, err := c.s.indexPage(c.leaf)
			if err != nil {
				return nil, false, err
			}
			if !leaf {
				return nil, false, corruptf("page %d changed type", c.leaf)
			}
			if c.cell < n {
				_, key, err := c.indexCell(p, h, n, c.cell, true, c.leaf)
				if err != nil {
					return nil, false, err
				}
				c.cell++
				return c.inRange(key)
			}
			c.leaf = 0
		}
		// The leaf is done: the cell of the nearest interior page whose
		// child it ended, then the subtree right of that cell.
		if len(c.stack) == 0 {
			return nil, false, nil
		}
		f := &c.stack[len(c.stack)-1]
		p, h, n, leaf, err := c.s.indexPage(f.pg)
		if err != nil {
			return nil, false, err
		}
		if leaf {
			return nil, false, corruptf("page %d changed type", f.pg)
		}
		if f.cell >= n {
			c.stack = c.stack[:len(c.stack)-1]
			continue
		}
		i := f.cell
		f.cell++
		right, err := childOf(p, h, n, f.cell, f.pg)
		if err != nil {
			return nil, false, err
		}
		_, key, err := c.indexCell(p, h, n, i, false, f.pg)
		if err != nil {
			return nil, false, err
		}
		// descend reads child pointers only: key (in vals and the
		// arena) stays as read.
		key, ok, err := c.inRange(key)
		if err != nil || !ok {
			return nil, false, err
		}
		if err := c.descend(right, false); err != nil {
			return nil, false, err
		}
		return key, true, nil
	}
}

// inRange is key when the range holds it; once past the range the walk
// is done.
func (c *IndexCursor) inRange(key []Value) ([]Value, bool, error) {
	k, err := c.rng.Compare(key)
	if err != nil || k > 0 {
		return nil, false, err
	}
	if k < 0 {
		return nil, false, corruptf("index entries out of order")
	}
	return key, true, nil
}
