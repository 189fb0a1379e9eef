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
		cur := make([]int, len(segs))
		var ids, buf []uint32
		for {
			t, any := trigram(0), false
			for k, s := range segs {
				if cur[k] < s.nTris() {
					if v := s.triAt(cur[k]); !any || v < t {
						t, any = v, true
					}
				}
			}
			if !any {
				break
			}
			ids = ids[:0]
			for k, s := range segs {
				if cur[k] < s.nTris() && s.triAt(cur[k]) == t {
					var err error
					if buf, err = s.postingsAt(buf[:0], cur[k]); err != nil {
						return err
					}
					for _, d := range buf {
						if v := renum[k][d]; v >= 0 {
							ids = append(ids, uint32(v))
						}
					}
					cur[k]++
				}
			}
			if len(ids) > 0 {
				sw.posting(t, ids)
			}
		}
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

func allLive(renum []int32) bool {
	for _, v := range renum {
		if v < 0 {
			return false
		}
	}
	return true
}
