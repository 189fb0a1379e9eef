package searchindex

import (
	"io"
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
	for _, id := range u.next.segs {
		if ix.segs[id] == nil {
			if err := ix.mapSeg(id); err != nil {
				return err
			}
		}
	}
	largest := 0
	for _, id := range u.next.segs {
		largest = max(largest, len(ix.segs[id].data))
	}
	from := len(u.next.segs)
	for from > 0 && len(ix.segs[u.next.segs[from-1]].data) < largest/8 {
		from--
	}
	if len(u.next.segs)-from < 2 {
		from = 0
	}
	var segs []*segment
	for _, id := range u.next.segs[from:] {
		s := ix.segs[id]
		if s == nil {
			if err := ix.mapSeg(id); err != nil {
				return err
			}
			s = ix.segs[id]
		}
		segs = append(segs, s)
	}
	byNum := make(map[uint32]*srcRec, len(u.next.srcs))
	for i := range u.next.srcs {
		byNum[u.next.srcs[i].num] = &u.next.srcs[i]
	}
	// renum[k][d]: the new number of document d of segment k, -1 dead.
	renum := make([][]int32, len(segs))
	n := int32(0)
	for k, s := range segs {
		renum[k] = make([]int32, s.nDocs)
		for d := range s.nDocs {
			doc := s.doc(uint32(d))
			if r := byNum[doc.src]; r != nil && live(r, s.id, doc) {
				renum[k][d] = n
				n++
			} else {
				renum[k][d] = -1
			}
		}
	}
	id := u.cur
	err := u.writeSeg(id, func(w io.Writer) error {
		sw := newSegWriter(w)
		for k, s := range segs {
			for d := range s.nDocs {
				if renum[k][d] >= 0 {
					sw.doc(s.doc(uint32(d)))
				}
			}
		}
		release(segs)
		// Per trigram in ascending order, the segments that hold it in
		// segment order: a heap of the segments by (next trigram, k).
		cur := make([]int, len(segs))
		less := func(a, b int) bool {
			ta, tb := segs[a].triAt(cur[a]), segs[b].triAt(cur[b])
			return ta < tb || (ta == tb && a < b)
		}
		h := make([]int, 0, len(segs))
		for k, s := range segs {
			if s.nTris() > 0 {
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
		var ids, buf []uint32
		released := int64(0)
		for len(h) > 0 {
			t := segs[h[0]].triAt(cur[h[0]])
			ids = ids[:0]
			for len(h) > 0 && segs[h[0]].triAt(cur[h[0]]) == t {
				k := h[0]
				var err error
				if buf, err = segs[k].postingsAt(buf[:0], cur[k]); err != nil {
					return err
				}
				for _, d := range buf {
					if v := renum[k][d]; v >= 0 {
						ids = append(ids, uint32(v))
					}
				}
				if cur[k]++; cur[k] == segs[k].nTris() {
					h[0] = h[len(h)-1]
					h = h[:len(h)-1]
				}
				down(0)
			}
			if len(ids) > 0 {
				sw.posting(t, ids)
			}
			if sw.n-released > 32<<20 {
				// The postings read so far are not read again: their
				// pages leave this process (the page cache keeps them).
				release(segs)
				released = sw.n
			}
		}
		release(segs)
		// The live documents' records, in their new order: a block whose
		// documents all live is copied as it is (not decoded, not
		// compressed again: a first build merges all its text).
		for k, s := range segs {
			tc := textCursor{s: s, k: -1}
			for b := range s.nBlocks() {
				off, clen, rlen, first := s.block(b)
				end := uint32(s.nDocs)
				if b+1 < s.nBlocks() {
					_, _, _, end = s.block(b + 1)
				}
				if first >= end || end > uint32(s.nDocs) || off > uint64(len(s.texts)) ||
					uint64(clen) > uint64(len(s.texts))-off || rlen > maxBlockRaw {
					return tc.bad("a text block out of bounds")
				}
				if allLive(renum[k][first:end]) {
					sw.rawBlock(s.texts[off:off+uint64(clen)], rlen, end-first)
					continue
				}
				for d := first; d < end; d++ {
					if renum[k][d] >= 0 {
						rec, err := tc.record(d)
						if err != nil {
							return err
						}
						sw.record(rec)
					}
				}
			}
			release(segs[k : k+1])
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
		if r.minSeg >= first {
			r.minSeg = id
		}
		if r.lastSeg >= first {
			r.lastSeg = id
		}
	}
	return nil
}

// release gives back the pages of the segments' mappings this process
// has touched (read again, they come back from the page cache): a merge
// reads every segment once, and would otherwise hold them all resident.
func release(segs []*segment) {
	for _, s := range segs {
		dontNeed(s.data)
	}
}

func allLive(renum []int32) bool {
	for _, v := range renum {
		if v < 0 {
			return false
		}
	}
	return true
}
