package searchindex

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/openclaw/sessions/internal/fsutil"
)

// segFile is a segment read with pread (os.File.ReadAt) into buffers of its
// own, not through a mapping: what a merge reads. A merge reads every
// segment it merges once, start to end; through a mapping each page it
// touched stayed resident until given back (madvise, which not every
// system has, and which the merge could only do in coarse steps), so a
// first build's peak memory grew with the state. Read this way a merge
// holds its buffers (a few KiB per segment) and what it writes.
type segFile struct {
	id   uint32
	name string
	f    *os.File
	l    layout
	buf  int // its readers' buffers (0: segReadBuf)
}

// segReadBuf is the buffer of each sequential reader of a segment's
// section: a merge of k segments holds 2k of them at once.
const segReadBuf = 32 << 10

// mergeReadBufs bounds the buffers of a merge's readers together: a first
// build of 3.6 GB merges ~900 segments, 56 MiB of readers at segReadBuf.
// (At 8 MiB, a first build of the 3.5 GiB both-era state read its ~685
// segments in 118,000 preads of 6 KiB, each a system call that sent the
// runtime's monitor back to its shortest sleep.)
const mergeReadBufs = 32 << 20

// mergeReadBuf is the buffer of each reader of a merge of k segments.
func mergeReadBuf(k int) int {
	return max(4<<10, min(segReadBuf, mergeReadBufs/(2*max(k, 1))))
}

// openSegFile opens segment id of dir and checks it whole: its magics,
// lengths and checksums (a merge reads all of it; a mapping checks only
// what a query reads).
func openSegFile(dir string, id uint32) (*segFile, error) {
	name := segName(id)
	f, err := fsutil.OpenRegular(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	sf := &segFile{id: id, name: name, f: f}
	if err := sf.check(); err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

func (sf *segFile) check() error {
	chunks, err := sf.checkTail()
	if err != nil {
		return err
	}
	// every chunk before the texts, which their blocks' own checksums
	// cover
	r := sf.section(0, sf.l.textsAt())
	buf := make([]byte, chunkSize)
	for k := range sf.l.nChunks() {
		n := min(chunkSize, sf.l.textsAt()-k*chunkSize)
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return sf.readErr(err)
		}
		if crc32.Checksum(buf[:n], castagnoli) != binary.LittleEndian.Uint32(chunks[4*k:]) {
			return sf.bad("checksum mismatch")
		}
	}
	return nil
}

// checkTail reads the segment's layout and checks its tail (the block
// table, the chunks' checksums and the trailer), whose chunks' checksums
// it returns.
func (sf *segFile) checkTail() ([]byte, error) {
	fi, err := sf.f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var head [headerSize]byte
	var tr [trailerSize]byte
	if size >= int64(headerSize+trailerSize) {
		if _, err := sf.f.ReadAt(head[:], 0); err != nil {
			return nil, sf.readErr(err)
		}
		if _, err := sf.f.ReadAt(tr[:], size-trailerSize); err != nil {
			return nil, sf.readErr(err)
		}
	}
	if sf.l, err = parseLayout(sf.name, size, head[:], tr[:]); err != nil {
		return nil, err
	}
	tail := make([]byte, size-12-int64(sf.l.blocksAt()))
	if _, err := sf.f.ReadAt(tail, int64(sf.l.blocksAt())); err != nil {
		return nil, sf.readErr(err)
	}
	if crc32.Checksum(tail, castagnoli) != sf.l.crc {
		return nil, sf.bad("checksum mismatch")
	}
	return tail[sf.l.nBlocks*blockSize:], nil
}

// eachDoc opens segment id of dir and gives fn its documents in order,
// read with pread chunk by chunk, each chunk the document table lies in
// checked: what a status reads (a 3.6 GB state's document table is 64 MB,
// which read through a mapping stayed resident in the process).
func eachDoc(dir string, id uint32, fn func(d doc)) error {
	f, err := fsutil.OpenRegular(filepath.Join(dir, segName(id)))
	if err != nil {
		return err
	}
	defer f.Close()
	sf := &segFile{id: id, name: segName(id), f: f}
	chunks, err := sf.checkTail()
	if err != nil {
		return err
	}
	from, to := sf.l.docsAt(), sf.l.postAt()
	buf := make([]byte, chunkSize)
	var part []byte // a document begun in the chunk before
	for k := from / chunkSize; k*chunkSize < to; k++ {
		n := min(chunkSize, sf.l.textsAt()-k*chunkSize)
		if _, err := sf.f.ReadAt(buf[:n], int64(k*chunkSize)); err != nil {
			return sf.readErr(err)
		}
		if crc32.Checksum(buf[:n], castagnoli) != binary.LittleEndian.Uint32(chunks[4*k:]) {
			return sf.bad("checksum mismatch")
		}
		b := buf[max(from, k*chunkSize)-k*chunkSize : min(to, k*chunkSize+n)-k*chunkSize]
		if len(part) > 0 {
			m := min(docSize-len(part), len(b))
			part, b = append(part, b[:m]...), b[m:]
			if len(part) < docSize {
				continue
			}
			fn(decodeDoc(part))
			part = part[:0]
		}
		for len(b) >= docSize {
			fn(decodeDoc(b))
			b = b[docSize:]
		}
		part = append(part, b...)
	}
	return nil
}

func (sf *segFile) Close() error { return sf.f.Close() }

func (sf *segFile) bad(why string) error { return &CorruptError{File: sf.name, Why: why} }

// readErr: a section that ends before its length (the file shrank under
// us) is damage; any other error is the system's.
func (sf *segFile) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return sf.bad("shorter than its sections")
	}
	return err
}

// section is a buffered reader of n bytes from off.
func (sf *segFile) section(off, n uint64) *bufio.Reader {
	size := sf.buf
	if size == 0 {
		size = segReadBuf
	}
	return bufio.NewReaderSize(io.NewSectionReader(sf.f, int64(off), int64(n)), size)
}

// docReader reads the document table in order.
type docReader struct {
	sf *segFile
	r  *bufio.Reader
	b  [docSize]byte
}

func (sf *segFile) docs() *docReader {
	return &docReader{sf: sf, r: sf.section(sf.l.docsAt(), sf.l.nDocs*docSize)}
}

func (dr *docReader) next() (doc, error) {
	if _, err := io.ReadFull(dr.r, dr.b[:]); err != nil {
		return doc{}, dr.sf.readErr(err)
	}
	return decodeDoc(dr.b[:]), nil
}

// decodeDoc decodes a document table's entry (segWriter.doc).
func decodeDoc(b []byte) doc {
	return doc{
		src:   binary.LittleEndian.Uint32(b),
		pos:   int64(binary.LittleEndian.Uint64(b[4:])),
		ts:    int64(binary.LittleEndian.Uint64(b[12:])),
		flags: b[20],
	}
}

// triCursor walks a segment's trigram table and its posting lists side by
// side, both in order (the writer puts the posting lists one after another
// in the order of the table).
type triCursor struct {
	sf        *segFile
	tab, post *bufio.Reader
	i, n      int    // the entry read (tri, count), of n
	at        uint64 // bytes of postings read
	tri       trigram
	count     int
	bitmap    bool // the entry's list is a bitmap
	e         [triSize]byte
	list      []byte   // a bitmap list's bytes (bitmapList)
	ids       []uint32 // a bitmap list's numbers (copyPostings)
}

func (sf *segFile) trigrams() *triCursor {
	return &triCursor{
		sf: sf, n: int(sf.l.nTris), i: -1,
		tab:  sf.section(sf.l.tabAt(), sf.l.nTris*triSize),
		post: sf.section(sf.l.postAt(), sf.l.nPost),
	}
}

// next reads the next entry of the table: false past the last.
func (tc *triCursor) next() (bool, error) {
	if tc.i+1 >= tc.n {
		tc.i = tc.n
		return false, nil
	}
	tc.i++
	if _, err := io.ReadFull(tc.tab, tc.e[:]); err != nil {
		return false, tc.sf.readErr(err)
	}
	tc.tri = trigram(tc.e[0])<<16 | trigram(tc.e[1])<<8 | trigram(tc.e[2])
	tc.count, tc.bitmap = entryCount(tc.e[:])
	if off := binary.LittleEndian.Uint64(tc.e[3:]); off != tc.at || tc.count == 0 || tc.count > int(tc.sf.l.nDocs) {
		return false, tc.sf.bad("posting list out of bounds")
	}
	return true, nil
}

// postings appends the current entry's document numbers to dst, checked
// as segment.postingsAt checks them. It decodes what the reader holds in
// one pass (a merge decodes every posting of the index), and reads more
// only where a number runs past it.
func (tc *triCursor) postings(dst []uint32) ([]uint32, error) {
	if tc.bitmap {
		first, b, err := tc.bitmapList()
		if err != nil {
			return dst, err
		}
		return appendBitmapIDs(dst, first, b, 0), nil
	}
	var id uint64
	nDocs := tc.sf.l.nDocs
	for k := 0; k < tc.count; {
		b, _ := tc.post.Peek(tc.post.Buffered())
		if len(b) < binary.MaxVarintLen64 {
			b, _ = tc.post.Peek(binary.MaxVarintLen64) // fewer at the section's end
		}
		i := 0
		for ; k < tc.count && i < len(b); k++ {
			var v uint64
			if c := b[i]; c < 0x80 {
				v = uint64(c)
				i++
			} else {
				var w int
				if v, w = binary.Uvarint(b[i:]); w <= 0 {
					break // past what is held, or not a number
				}
				i += w
			}
			if k == 0 {
				id = v
			} else {
				id += v
				if v == 0 {
					tc.post.Discard(i)
					return dst, tc.sf.bad("posting list not ascending")
				}
			}
			if id >= nDocs {
				tc.post.Discard(i)
				return dst, tc.sf.bad("posting list names no document")
			}
			dst = append(dst, uint32(id))
		}
		tc.post.Discard(i)
		tc.at += uint64(i)
		if i == 0 {
			// not one number decoded from a full view: truncated or
			// longer than a number
			return dst, tc.sf.bad("posting list truncated")
		}
	}
	if tc.i == tc.n-1 && tc.at != tc.sf.l.nPost {
		// (a list before another is checked by the next's offset)
		return dst, tc.sf.bad("posting list longer than its count")
	}
	return dst, nil
}

// copyPostings adds the current entry's list to sw's list open, each
// number plus add: its first number written again (a gap from what sw's
// list holds), the gaps after it copied as they are — summed on the way,
// for the list's last number and the checks of postings, not decoded into
// numbers and encoded again. Its bytes run to the next entry's offset.
func (tc *triCursor) copyPostings(sw *segWriter, add uint32) error {
	if tc.bitmap {
		// (a list of gaps open: the bitmap's numbers added one by one)
		first, b, err := tc.bitmapList()
		if err != nil {
			return err
		}
		tc.ids = appendBitmapIDs(tc.ids[:0], first, b, add)
		for _, id := range tc.ids {
			sw.add(id)
		}
		return nil
	}
	end, err := tc.listEnd()
	if err != nil {
		return err
	}
	left := end - tc.at
	b, err := tc.post.Peek(int(min(left, binary.MaxVarintLen64)))
	if err != nil {
		return tc.sf.readErr(err)
	}
	id, w := binary.Uvarint(b)
	if w <= 0 {
		return tc.sf.bad("posting list truncated")
	}
	first := id
	tc.post.Discard(w)
	tc.at += uint64(w)
	left -= uint64(w)
	k := 1
	if first >= tc.sf.l.nDocs {
		return tc.sf.bad("posting list names no document")
	}
	sw.add(uint32(first) + add)
	for left > 0 {
		b, err := tc.post.Peek(int(min(left, uint64(tc.post.Size()))))
		if err != nil {
			return tc.sf.readErr(err)
		}
		if uint64(len(b)) < left {
			// a piece ends where a number does (a byte under 0x80)
			cut := len(b)
			for cut > 0 && b[cut-1] >= 0x80 {
				cut--
			}
			b = b[:cut]
		}
		i := 0
		for i < len(b) {
			var g uint64
			if c := b[i]; c < 0x80 {
				g = uint64(c)
				i++
			} else {
				var w int
				if g, w = binary.Uvarint(b[i:]); w <= 0 {
					return tc.sf.bad("posting list truncated")
				}
				i += w
			}
			if g == 0 {
				return tc.sf.bad("posting list not ascending")
			}
			id += g
			k++
			if id >= tc.sf.l.nDocs {
				return tc.sf.bad("posting list names no document")
			}
		}
		if i == 0 {
			return tc.sf.bad("posting list truncated") // no number ends in a full buffer
		}
		sw.post = append(sw.post, b...)
		tc.post.Discard(i)
		tc.at += uint64(i)
		left -= uint64(i)
	}
	if k != tc.count {
		return tc.sf.bad("posting list not of its count")
	}
	sw.listN += k - 1
	sw.last = uint32(id) + add
	return nil
}

// listEnd is where the current entry's list ends in the postings: the
// next entry's offset, or the postings' end.
func (tc *triCursor) listEnd() (uint64, error) {
	end := tc.sf.l.nPost
	if tc.i+1 < tc.n {
		e, err := tc.tab.Peek(triSize)
		if err != nil {
			return 0, tc.sf.readErr(err)
		}
		end = binary.LittleEndian.Uint64(e[3:])
	}
	if end <= tc.at || end > tc.sf.l.nPost {
		return 0, tc.sf.bad("posting list out of bounds")
	}
	return end, nil
}

// bitmapList reads the current entry's list, a bitmap, and checks it (as
// segment.postingsAt does): its first number and its bits, which hold
// until the next list is read.
func (tc *triCursor) bitmapList() (first uint32, b []byte, err error) {
	end, err := tc.listEnd()
	if err != nil {
		return 0, nil, err
	}
	n := int(end - tc.at)
	tc.list = slices.Grow(tc.list[:0], n)[:n]
	if _, err := io.ReadFull(tc.post, tc.list); err != nil {
		return 0, nil, tc.sf.readErr(err)
	}
	tc.at = end
	first, b, why := checkBitmap(tc.list, tc.count, tc.sf.l.nDocs)
	if why != "" {
		return 0, nil, tc.sf.bad(why)
	}
	return first, b, nil
}

// blockTable reads the segment's text block table whole (24 bytes a block
// of about 64 KiB of text: small beside the text).
func (sf *segFile) blockTable() ([]byte, error) {
	b := make([]byte, sf.l.nBlocks*blockSize)
	if _, err := sf.f.ReadAt(b, int64(sf.l.blocksAt())); err != nil {
		return nil, sf.readErr(err)
	}
	return b, nil
}

// readText reads n bytes of the texts section from off into buf (grown as
// needed), after checking that they lie within it.
func (sf *segFile) readText(buf []byte, off uint64, n uint32) ([]byte, error) {
	if off > sf.l.nText || uint64(n) > sf.l.nText-off {
		return buf, sf.bad("a text block out of bounds")
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := sf.f.ReadAt(buf, int64(sf.l.textsAt()+off)); err != nil {
		return buf, sf.readErr(err)
	}
	return buf, nil
}
