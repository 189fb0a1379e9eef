package searchindex

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// A posting list is written one of two ways, the smaller, told apart by
// listBitmap in its trigram table entry's count:
//
//   - gaps: its first number, then each gap to the next, as uvarints — a
//     byte a number at best;
//   - a bitmap: its first number as a uvarint, then one bit for each number
//     from it to its last (bit j of byte b stands for first+8b+j; the first
//     bit and the last byte are never zero) — an eighth of a byte a number
//     of the range, so the smaller for a trigram in more than one document
//     in eight ("the", "ing", " co": most of a corpus's postings, 82% of a
//     generated state's, whose lists shrink to 0.48× their gaps).
const listBitmap = 1 << 31

// entryCount is a trigram table entry's count and whether its list is a
// bitmap.
func entryCount(e []byte) (n int, bitmap bool) {
	c := binary.LittleEndian.Uint32(e[11:])
	return int(c &^ listBitmap), c&listBitmap != 0
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint32) int {
	return (bits.Len32(v|1) + 6) / 7
}

// bitmapLen is the length of the bitmap list from first to last.
func bitmapLen(first, last uint32) int {
	return uvarintLen(first) + int((last-first)/8) + 1
}

// asBitmap: a list of n numbers from first to last is written as a bitmap
// when that is shorter than a byte a number (its gaps' least).
func asBitmap(first, last uint32, n int) bool {
	return bitmapLen(first, last) < n
}

// appendBitmap appends the bitmap list of ids (ascending, not empty).
func appendBitmap(dst []byte, ids []uint32) []byte {
	first := ids[0]
	dst = binary.AppendUvarint(dst, uint64(first))
	n := int((ids[len(ids)-1]-first)/8) + 1
	at := len(dst)
	dst = slices.Grow(dst, n)[:at+n]
	b := dst[at:]
	clear(b)
	for _, id := range ids {
		d := id - first
		b[d>>3] |= 1 << (d & 7)
	}
	return dst
}

// checkBitmap checks a bitmap list's bytes p (first and bits) of n numbers
// below nDocs, and gives its first number and its bits: why not, if not.
func checkBitmap(p []byte, n int, nDocs uint64) (first uint32, b []byte, why string) {
	f, w := binary.Uvarint(p)
	if w <= 0 {
		return 0, nil, "posting list truncated"
	}
	b = p[w:]
	if len(b) == 0 || b[0]&1 == 0 || b[len(b)-1] == 0 {
		return 0, nil, "bitmap posting list malformed"
	}
	if f >= nDocs || uint64(len(b)-1)*8+uint64(bits.Len8(b[len(b)-1])-1) >= nDocs-f {
		return 0, nil, "posting list names no document"
	}
	if popcount(b) != n {
		return 0, nil, "posting list not of its count"
	}
	return uint32(f), b, ""
}

// popcount counts the bits set in b.
func popcount(b []byte) int {
	c := 0
	for len(b) >= 8 {
		c += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, x := range b {
		c += bits.OnesCount8(x)
	}
	return c
}

// appendBitmapIDs appends to dst the numbers of a checked bitmap, each
// plus add.
func appendBitmapIDs(dst []uint32, first uint32, b []byte, add uint32) []uint32 {
	base := first + add
	for i := 0; i < len(b); i++ {
		if i+8 <= len(b) {
			if v := binary.LittleEndian.Uint64(b[i:]); v == 0 {
				i += 7
				continue
			}
		}
		for x := b[i]; x != 0; x &= x - 1 {
			dst = append(dst, base+uint32(i*8+bits.TrailingZeros8(x)))
		}
	}
	return dst
}

// wordBits is a merge's bitmap of one trigram's list being built: bit i of
// words stands for document lo+i.
type wordBits struct {
	lo    uint32
	words []uint64
}

// reset makes the bitmap empty, for documents lo to hi (exclusive).
func (wb *wordBits) reset(lo, hi uint32) {
	n := int((hi-lo)/64) + 3 // slack for a shifted source's last word (its bits past the last are 0)
	wb.lo = lo
	wb.words = slices.Grow(wb.words[:0], n)[:n]
	clear(wb.words)
}

// set sets document id's bit.
func (wb *wordBits) set(id uint32) {
	d := id - wb.lo
	wb.words[d>>6] |= 1 << (d & 63)
}

// or sets the bits of a checked bitmap list's bits b, whose first bit is
// document at: 64 of them at a time, shifted into place.
func (wb *wordBits) or(at uint32, b []byte) {
	o := at - wb.lo
	w, s := int(o>>6), o&63
	for len(b) > 0 {
		var v uint64
		if len(b) >= 8 {
			v = binary.LittleEndian.Uint64(b)
			b = b[8:]
		} else {
			var t [8]byte
			copy(t[:], b)
			v = binary.LittleEndian.Uint64(t[:])
			b = nil
		}
		wb.words[w] |= v << s
		if s != 0 {
			wb.words[w+1] |= v >> (64 - s)
		}
		w++
	}
}

// appendList appends the list the bitmap holds to dst, as a bitmap list,
// and gives its count (0: nothing appended) and its last number.
func (wb *wordBits) appendList(dst []byte) (out []byte, n int, last uint32) {
	lo, hi := 0, len(wb.words)
	for lo < hi && wb.words[lo] == 0 {
		lo++
	}
	for hi > lo && wb.words[hi-1] == 0 {
		hi--
	}
	if lo == hi {
		return dst, 0, 0
	}
	ws := wb.words[lo:hi]
	first := wb.lo + uint32(lo*64+bits.TrailingZeros64(ws[0]))
	last = wb.lo + uint32((hi-1)*64+63-bits.LeadingZeros64(ws[len(ws)-1]))
	for _, v := range ws {
		n += bits.OnesCount64(v)
	}
	dst = binary.AppendUvarint(dst, uint64(first))
	nb := int((last-first)/8) + 1
	at := len(dst)
	dst = slices.Grow(dst, nb)[:at+nb]
	// The words from first's, shifted so that first's bit is bit 0.
	s := (first - wb.lo) & 63
	w := int((first - wb.lo) >> 6)
	b := dst[at:]
	for i := 0; i < nb; i += 8 {
		v := wb.words[w] >> s
		if s != 0 && w+1 < len(wb.words) {
			v |= wb.words[w+1] << (64 - s)
		}
		w++
		if i+8 <= nb {
			binary.LittleEndian.PutUint64(b[i:], v)
		} else {
			for j := i; j < nb; j++ {
				b[j] = byte(v)
				v >>= 8
			}
		}
	}
	return dst, n, last
}
