package searchindex

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// merge replaces segments of u.next with one: the newest segments that
// are each under an eighth of the largest (the catch-ups since the last
// merge), when there are two or more, else all of them — so that an append
// costs a merge of small segments, not of the whole index. The merged
// segment holds the live documents of each, in segment order, and per
// trigram the concatenation of their posting lists renumbered — no text
// read again. The segment tables are walked side by side (a k-way merge),
// so memory holds one trigram's postings and the new trigram table, never
// the whole index.
func (u *updater) merge() error {
	ix := u.ix
	sizes := make([]int64, len(u.next.segs))
	largest := int64(0)
	for i, id := range u.next.segs {
		fi, err := os.Stat(filepath.Join(ix.dir, segName(id)))
		if err != nil {
			return err
		}
		sizes[i] = fi.Size()
		largest = max(largest, sizes[i])
	}
	from := len(u.next.segs)
	for from > 0 && sizes[from-1] < largest/8 {
		from--
	}
	if len(u.next.segs)-from < 2 {
		from = 0
	}
	// The segments are read with pread (segFile), each checked, then read
	// once, start to end.
	var segs []*segFile
	defer func() {
		for _, s := range segs {
			if s != nil {
				s.Close()
			}
		}
	}()
	for _, id := range u.next.segs[from:] {
		s, err := openSegFile(ix.dir, id)
		if err != nil {
			return err
		}
		segs = append(segs, s)
	}
	for _, s := range segs {
		s.buf = mergeReadBuf(len(segs))
	}
	// renum[k][d]: the new number of document d of segment k, -1 dead.
	// whole[k]: every document of k lives, numbered from base[k] on in
	// order (a first build's every segment), so that its posting lists are
	// copied (copyPostings), not looked up number by number in renum — a
	// cache miss a posting, most of a first build's merge when they were.
	renum := make([][]int32, len(segs))
	whole := make([]bool, len(segs))
	base := make([]uint32, len(segs))
	// span[k]: the new numbers of k's live documents, one after another
	// from span[k][0] to span[k][1] (exclusive; empty when none lives).
	span := make([][2]uint32, len(segs))
	n := int32(0)
	for k, s := range segs {
		renum[k] = make([]int32, s.l.nDocs)
		span[k][0] = uint32(n)
		dr := s.docs()
		for d := range renum[k] {
			doc, err := dr.next()
			if err != nil {
				return err
			}
			if r := u.next.rec(doc.src); r != nil && live(r, s.id, doc) {
				renum[k][d] = n
				n++
			} else {
				renum[k][d] = -1
			}
		}
		span[k][1] = uint32(n)
		if whole[k] = allLive(renum[k]); whole[k] && len(renum[k]) > 0 {
			base[k] = uint32(renum[k][0])
		}
	}
	id := u.cur
	err := u.writeSeg(id, func(w io.Writer) error {
		sw := newSegWriter(w)
		for k, s := range segs {
			dr := s.docs()
			for _, v := range renum[k] {
				doc, err := dr.next()
				if err != nil {
					return err
				}
				if v >= 0 {
					sw.doc(doc)
				}
			}
		}
		// Per trigram in ascending order, the segments that hold it in
		// segment order: a heap of the segments by (next trigram, k).
		cur := make([]*triCursor, len(segs))
		less := func(a, b int) bool {
			ta, tb := cur[a].tri, cur[b].tri
			return ta < tb || (ta == tb && a < b)
		}
		h := make([]int, 0, len(segs))
		for k, s := range segs {
			cur[k] = s.trigrams()
			ok, err := cur[k].next()
			if err != nil {
				return err
			}
			if ok {
				h = append(h, k)
			}
		}
		down := func(i int) {
			for {
				c := 2*i + 1
				if c >= len(h) {
					return
				}
				if c+1 < len(h) && less(h[c+1], h[c]) {
					c++
				}
				if !less(h[c], h[i]) {
					return
				}
				h[i], h[c] = h[c], h[i]
				i = c
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			down(i)
		}
		up := func(i int) {
			for i > 0 {
				p := (i - 1) / 2
				if !less(h[i], h[p]) {
					return
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
		}
		var buf []uint32
		var parts []int
		for len(h) > 0 {
			// The segments that hold t, in order, taken off the heap.
			t := cur[h[0]].tri
			parts = parts[:0]
			for len(h) > 0 && cur[h[0]].tri == t {
				parts = append(parts, h[0])
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
				down(0)
			}
			// A bitmap when the numbers its parts hold (fewer, if some
			// are gone) would take more bytes as gaps than a bitmap of
			// the span they lie in; its parts that are bitmaps of whole
			// segments are shifted into it 64 numbers at a time.
			n, lo, hi := 0, uint32(0), uint32(0)
			for _, k := range parts {
				n += cur[k].count
				if span[k][0] < span[k][1] {
					if hi == 0 {
						lo = span[k][0]
					}
					hi = span[k][1]
				}
			}
			bitmap := hi > lo && asBitmap(lo, hi-1, n)
			if bitmap {
				sw.openBits(lo, hi)
			} else {
				sw.open()
			}
			for _, k := range parts {
				var err error
				switch {
				case bitmap && whole[k] && cur[k].bitmap:
					first, b, err := cur[k].bitmapList()
					if err != nil {
						return err
					}
					sw.bits.or(base[k]+first, b)
				case bitmap:
					if buf, err = cur[k].postings(buf[:0]); err != nil {
						return err
					}
					for _, d := range buf {
						if v := renum[k][d]; v >= 0 {
							sw.bits.set(uint32(v))
						}
					}
				case whole[k]:
					if err := cur[k].copyPostings(sw, base[k]); err != nil {
						return err
					}
				default:
					if buf, err = cur[k].postings(buf[:0]); err != nil {
						return err
					}
					for _, d := range buf {
						if v := renum[k][d]; v >= 0 {
							sw.add(uint32(v))
						}
					}
				}
				ok, err := cur[k].next()
				if err != nil {
					return err
				}
				if ok && cur[k].tri <= t {
					return segs[k].bad("trigram table not ascending")
				}
				if ok {
					h = append(h, k)
					up(len(h) - 1)
				}
			}
			// none when every document of the list is gone
			if bitmap {
				sw.closeBits(t)
			} else {
				sw.close(t)
			}
		}
		cur = nil
		// The live documents' records, in their new order: a block whose
		// documents all live is copied as it is (not decoded, not
		// compressed again: a first build merges all its text).
		var z, raw []byte
		for k, s := range segs {
			bt, err := s.blockTable()
			if err != nil {
				return err
			}
			nb := len(bt) / blockSize
			nDocs := uint32(s.l.nDocs)
			for b := range nb {
				e := bt[b*blockSize:]
				off, clen := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint32(e[8:])
				rlen, first, crc := binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:]), binary.LittleEndian.Uint32(e[20:])
				end := nDocs
				if b+1 < nb {
					end = binary.LittleEndian.Uint32(bt[(b+1)*blockSize+16:])
				}
				if first >= end || end > nDocs || rlen > maxBlockRaw || (b == 0 && first != 0) {
					return s.bad("a text block out of bounds")
				}
				if z, err = s.readText(z, off, clen); err != nil {
					return err
				}
				if crc32.Checksum(z, castagnoli) != crc {
					// the file's checksum leaves the texts to their
					// blocks' own: a damaged block is not copied on
					return s.bad("a text block's checksum mismatch")
				}
				if allLive(renum[k][first:end]) {
					sw.rawBlock(z, rlen, end-first, crc)
					continue
				}
				var ok bool
				if raw, ok = decodeBlock(raw, z, rlen); !ok {
					return s.bad("a text block does not decode")
				}
				p := 0
				for d := first; d < end; d++ {
					n, ok := recordLen(raw[p:])
					if !ok {
						return s.bad("a document record out of bounds")
					}
					if renum[k][d] >= 0 {
						sw.record(raw[p : p+n])
					}
					p += n
				}
			}
			// Read for the last time. One this update wrote is named
			// by no manifest yet (unsynced): removed now, its pages
			// are never written back — a first build's segments are
			// as large as the index, and their writeback would hold
			// up the merged segment's writes behind the kernel's
			// limit of dirty pages.
			if path, ok := u.unsynced[s.id]; ok {
				s.Close()
				segs[k] = nil
				os.Remove(path)
				delete(u.unsynced, s.id)
			}
		}
		return sw.finish()
	}, true)
	if err != nil {
		return err
	}
	u.cur++
	u.next.nextSeg = u.cur
	first := u.next.segs[from]
	u.next.segs = append(u.next.segs[:from:from], id)
	// Documents of the merged segments are now in id: a source whose
	// documents live from (or whose tail lives in) one of them moves there.
	for i := range u.next.srcs {
		r := &u.next.srcs[i]
		if r.minSeg < first && r.lastSeg < first {
			continue
		}
		if r.minSeg >= first {
			r.minSeg = id
		}
		if r.lastSeg >= first {
			r.lastSeg = id
		}
		u.moved = append(u.moved, i)
	}
	return nil
}

func allLive(renum []int32) bool {
	for _, v := range renum {
		if v < 0 {
			return false
		}
	}
	return true
}
