package searchindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/search"
)

// A segment file (seg-<n>), written once and never changed:
//
//	"SXIDXSG3"                            magic and format version
//	docs      nDocs × 21 bytes            src u32, pos u64, timestamp i64, flags u8 (little endian)
//	postings  per trigram, its document numbers ascending as uvarint deltas
//	trigrams  nTris × 15 bytes, ascending  trigram (3 bytes), postings offset u64, count u32
//	texts     zstd frames, one per block of about 64 KiB of document records
//	blocks    nBlocks × 24 bytes          offset in texts u64, compressed length u32, length u32, first document u32,
//	                                      CRC-32C u32 of the compressed bytes
//	trailer   nDocs u64, nTris u64, postings length u64, nBlocks u64, texts length u64,
//	          CRC-32C u32 of every byte before it but the texts, "SXIDXEND"
//
// A document record is its message's id, its text with tool calls and its
// text without them (empty unless flagToolCalls), each a uvarint length and
// the bytes: what the index extracted (masked, for a masked index), so that
// a query is verified without reading a transcript again (Index.Texts).
//
// Readers check the magics, the lengths and the checksum before anything
// else, and every posting list and text block as it is decoded (a block by
// its own CRC-32C), so that a torn, truncated, foreign or corrupt file is an
// error, never a wrong answer or a panic. The texts are most of a segment and
// a query reads few of their blocks: the file's checksum leaves them to their
// blocks' own, so that a process's open does not read every byte of the
// text (it did: at every CLI search, the CRC-32C of every segment whole,
// and the page faults of reading it, were a sixth of a query's CPU).
const (
	segMagic     = "SXIDXSG3"
	endMagic     = "SXIDXEND"
	docSize      = 21
	triSize      = 15
	blockSize    = 24
	trailerSize  = 5*8 + 4 + 8
	headerSize   = len(segMagic)
	flagRoleMask = 3
	// flagToolCalls: an assistant message whose tool calls are searched
	// with --include-tools (its trigrams are those of both texts).
	flagToolCalls = 1 << 2
	// flagTail: the unterminated last line of a file, live only in its
	// source's last segment (the next update indexes the line again).
	flagTail = 1 << 3
	// textBlock is the text packed into one zstd frame: a query decodes
	// the blocks of its candidates only.
	textBlock = 64 << 10
	// maxBlockRaw bounds a block's records: a block is filled up to
	// textBlock, and its last record may be one message of a line of up to
	// search.DefaultMaxLine, whose two texts (with and without tool calls;
	// masked, for an agent's index) may each be as long; what decodes
	// longer is damage.
	maxBlockRaw = textBlock + 4*search.DefaultMaxLine
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// doc is one indexed message.
type doc struct {
	src   uint32 // the source's number in the manifest
	pos   int64  // the line's byte offset, or the event's seq
	ts    int64  // epoch ms, 0 unknown
	flags uint8
}

var roles = [...]string{"user", "assistant", "tool"}

func roleFlag(role string) uint8 {
	switch role {
	case "assistant":
		return 1
	case "tool":
		return 2
	}
	return 0
}

// builder gathers the documents of one segment and their trigrams.
type builder struct {
	docs  []doc
	pairs []uint64 // trigram<<32 | document number, in document order
	tmp   []uint64 // sortPairs' scratch, kept between segments
	text  int      // bytes of text indexed
	recs  []byte   // the documents' records (appendRecord), in order
	ends  []int    // where each document's record ends in recs
}

// add indexes one document whose distinct folded trigrams are tris (those
// of all its texts: a document is a candidate for a query any of them
// holds; docTrigrams makes them) and whose texts hold text bytes.
func (b *builder) add(d doc, tris []trigram, text int, rec []byte) {
	n := uint64(len(b.docs))
	b.docs = append(b.docs, d)
	b.text += text
	b.recs = append(b.recs, rec...)
	b.ends = append(b.ends, len(b.recs))
	for _, t := range tris {
		b.pairs = append(b.pairs, uint64(t)<<32|n)
	}
}

// triSet marks the trigrams of one document (one bit per trigram, 2 MiB):
// each is kept once without sorting. One per reader (triSets).
type triSet struct {
	seen []uint64
	fold []byte
}

var triSets = sync.Pool{New: func() any { return &triSet{seen: make([]uint64, 1<<24/64)} }}

// docTrigrams appends to dst the distinct trigrams of the folded texts.
func docTrigrams(dst []trigram, texts ...string) []trigram {
	ts := triSets.Get().(*triSet)
	start := len(dst)
	for _, t := range texts {
		ts.fold = appendFold(ts.fold[:0], t)
		f := ts.fold
		if len(f) < 3 {
			continue
		}
		t := trigram(f[0])<<8 | trigram(f[1])
		for _, c := range f[2:] {
			t = (t<<8 | trigram(c)) & 0xffffff
			if w, bit := t>>6, uint64(1)<<(t&63); ts.seen[w]&bit == 0 {
				ts.seen[w] |= bit
				dst = append(dst, t)
			}
		}
	}
	for _, t := range dst[start:] {
		ts.seen[t>>6] &^= 1 << (t & 63)
	}
	triSets.Put(ts)
	return dst
}

// sortPairs sorts pairs by trigram, keeping document order within one: a
// stable radix sort on the trigram's 24 bits in two passes of 12 (the
// pairs were added in document order). tmp is scratch; it returns the
// sorted pairs and the other buffer.
func sortPairs(pairs, tmp []uint64) (sorted, other []uint64) {
	tmp = slices.Grow(tmp[:0], len(pairs))[:len(pairs)]
	var count [1 << 12]int
	for shift := uint(32); shift < 56; shift += 12 {
		clear(count[:])
		for _, p := range pairs {
			count[(p>>shift)&0xfff]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, p := range pairs {
			k := (p >> shift) & 0xfff
			tmp[count[k]] = p
			count[k]++
		}
		pairs, tmp = tmp, pairs
	}
	return pairs, tmp
}

// appendRecord appends the record of a document (its id and texts) to dst.
func appendRecord(dst []byte, id, text, noTools string) []byte {
	for _, f := range [...]string{id, text, noTools} {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

var (
	zencoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only for invalid options
		}
		return e
	})
	zdecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlockRaw), zstd.IgnoreChecksum(true)) // a block is checked by its CRC-32C (segment.go)
		if err != nil {
			panic(err)
		}
		return d
	})
)

// segWriter writes a segment as a stream: documents, then postings one
// trigram after another, then the trigram table, the texts block by block,
// the block table and the trailer.
type segWriter struct {
	w     *bufio.Writer
	crc   hash.Hash32
	n     int64 // postings bytes written
	tab   []byte
	nDocs int
	nTris int
	buf   []byte
	// The texts: the block being filled (raw records), its first
	// document, the records so far, the block table and the bytes written.
	raw, zbuf, blocks []byte
	first, recs       uint32
	nText             int64
	tabDone           bool
}

func newSegWriter(w io.Writer) *segWriter {
	s := &segWriter{crc: crc32.New(castagnoli), w: bufio.NewWriterSize(w, 1<<20)}
	s.sum([]byte(segMagic))
	return s
}

// sum writes b, a part of the segment its checksum covers (all but the
// texts).
func (s *segWriter) sum(b []byte) {
	s.w.Write(b)
	s.crc.Write(b)
}

func (s *segWriter) doc(d doc) {
	var b [docSize]byte
	binary.LittleEndian.PutUint32(b[0:], d.src)
	binary.LittleEndian.PutUint64(b[4:], uint64(d.pos))
	binary.LittleEndian.PutUint64(b[12:], uint64(d.ts))
	b[20] = d.flags
	s.sum(b[:])
	s.nDocs++
}

// posting writes the posting list of t (ids ascending, not empty).
func (s *segWriter) posting(t trigram, ids []uint32) {
	var e [triSize]byte
	e[0], e[1], e[2] = byte(t>>16), byte(t>>8), byte(t)
	binary.LittleEndian.PutUint64(e[3:], uint64(s.n))
	binary.LittleEndian.PutUint32(e[11:], uint32(len(ids)))
	s.tab = append(s.tab, e[:]...)
	s.nTris++
	s.buf = s.buf[:0]
	prev := uint32(0)
	for i, id := range ids {
		if i == 0 {
			s.buf = binary.AppendUvarint(s.buf, uint64(id))
		} else {
			s.buf = binary.AppendUvarint(s.buf, uint64(id-prev))
		}
		prev = id
	}
	s.sum(s.buf)
	s.n += int64(len(s.buf))
}

// record adds the next document's record (after the last posting): one
// per document, in document order.
func (s *segWriter) record(rec []byte) {
	if !s.tabDone {
		s.sum(s.tab)
		s.tabDone = true
	}
	s.raw = append(s.raw, rec...)
	s.recs++
	if len(s.raw) >= textBlock {
		s.block()
	}
}

// block compresses and writes the block being filled.
func (s *segWriter) block() {
	if len(s.raw) == 0 {
		return
	}
	s.zbuf = zencoder().EncodeAll(s.raw, s.zbuf[:0])
	var e [blockSize]byte
	binary.LittleEndian.PutUint64(e[0:], uint64(s.nText))
	binary.LittleEndian.PutUint32(e[8:], uint32(len(s.zbuf)))
	binary.LittleEndian.PutUint32(e[12:], uint32(len(s.raw)))
	binary.LittleEndian.PutUint32(e[16:], s.first)
	binary.LittleEndian.PutUint32(e[20:], crc32.Checksum(s.zbuf, castagnoli))
	s.blocks = append(s.blocks, e[:]...)
	s.w.Write(s.zbuf)
	s.nText += int64(len(s.zbuf))
	s.raw, s.first = s.raw[:0], s.recs
}

// rawBlock adds a block of n documents' records already compressed (of
// rlen bytes raw, crc the CRC-32C of z, checked), as another segment holds
// it, after the records added before (their block is ended first).
func (s *segWriter) rawBlock(z []byte, rlen, n, crc uint32) {
	if !s.tabDone {
		s.sum(s.tab)
		s.tabDone = true
	}
	s.block()
	var e [blockSize]byte
	binary.LittleEndian.PutUint64(e[0:], uint64(s.nText))
	binary.LittleEndian.PutUint32(e[8:], uint32(len(z)))
	binary.LittleEndian.PutUint32(e[12:], rlen)
	binary.LittleEndian.PutUint32(e[16:], s.recs)
	binary.LittleEndian.PutUint32(e[20:], crc)
	s.blocks = append(s.blocks, e[:]...)
	s.w.Write(z)
	s.nText += int64(len(z))
	s.recs += n
	s.first = s.recs
}

func (s *segWriter) finish() error {
	if !s.tabDone {
		s.sum(s.tab)
	}
	s.block()
	if int(s.recs) != s.nDocs {
		return fmt.Errorf("search index: %d document records for %d documents", s.recs, s.nDocs)
	}
	s.sum(s.blocks)
	var t [trailerSize - 4 - 8]byte
	binary.LittleEndian.PutUint64(t[0:], uint64(s.nDocs))
	binary.LittleEndian.PutUint64(t[8:], uint64(s.nTris))
	binary.LittleEndian.PutUint64(t[16:], uint64(s.n))
	binary.LittleEndian.PutUint64(t[24:], uint64(len(s.blocks)/blockSize))
	binary.LittleEndian.PutUint64(t[32:], uint64(s.nText))
	s.sum(t[:])
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], s.crc.Sum32())
	s.w.Write(c[:])
	s.w.WriteString(endMagic)
	return s.w.Flush()
}

// write writes the builder's segment to w.
func (b *builder) write(w io.Writer) error {
	s := newSegWriter(w)
	for _, d := range b.docs {
		s.doc(d)
	}
	b.pairs, b.tmp = sortPairs(b.pairs, b.tmp)
	var ids []uint32
	for i := 0; i < len(b.pairs); {
		t := trigram(b.pairs[i] >> 32)
		ids = ids[:0]
		for ; i < len(b.pairs) && trigram(b.pairs[i]>>32) == t; i++ {
			ids = append(ids, uint32(b.pairs[i]))
		}
		s.posting(t, ids)
	}
	start := 0
	for _, end := range b.ends {
		s.record(b.recs[start:end])
		start = end
	}
	return s.finish()
}

// segment is a checked segment file's bytes.
type segment struct {
	id     uint32
	data   []byte
	docs   []byte
	post   []byte
	tab    []byte
	texts  []byte
	blocks []byte
	nDocs  int
}

// CorruptError is an index file that is not what this version wrote: torn,
// truncated, of another version, or with bytes changed. The caller rebuilds
// the index (Reset) or scans.
type CorruptError struct {
	File, Why string
}

func (e *CorruptError) Error() string { return "search index " + e.File + " is corrupt: " + e.Why }

// layout is a segment's section lengths, as its trailer gives them.
type layout struct {
	nDocs, nTris, nPost, nBlocks, nText uint64
	crc                                 uint32 // the CRC-32C the trailer holds
}

// parseLayout checks a segment of size bytes by its header (its first
// headerSize bytes), its trailer (its last trailerSize) and their lengths,
// and returns its layout; the checksum is the caller's to compare.
func parseLayout(name string, size int64, head, tr []byte) (layout, error) {
	bad := func(why string, a ...any) error { return &CorruptError{File: name, Why: fmt.Sprintf(why, a...)} }
	if size < int64(headerSize+trailerSize) {
		return layout{}, bad("%d bytes, too short", size)
	}
	if string(head) != segMagic {
		return layout{}, bad("not a segment of this version")
	}
	if string(tr[trailerSize-8:]) != endMagic {
		return layout{}, bad("no end mark (torn or truncated)")
	}
	l := layout{
		nDocs: binary.LittleEndian.Uint64(tr[0:]), nTris: binary.LittleEndian.Uint64(tr[8:]), nPost: binary.LittleEndian.Uint64(tr[16:]),
		nBlocks: binary.LittleEndian.Uint64(tr[24:]), nText: binary.LittleEndian.Uint64(tr[32:]), crc: binary.LittleEndian.Uint32(tr[40:]),
	}
	body := uint64(size) - uint64(headerSize+trailerSize)
	if l.nDocs > body/docSize || l.nTris > body/triSize || l.nPost > body || l.nBlocks > body/blockSize || l.nText > body ||
		l.nDocs*docSize+l.nTris*triSize+l.nPost+l.nBlocks*blockSize+l.nText != body || l.nDocs > 1<<32-1 {
		return layout{}, bad("section lengths do not add up")
	}
	return l, nil
}

// Where each section starts.
func (l layout) docsAt() uint64   { return uint64(headerSize) }
func (l layout) postAt() uint64   { return l.docsAt() + l.nDocs*docSize }
func (l layout) tabAt() uint64    { return l.postAt() + l.nPost }
func (l layout) textsAt() uint64  { return l.tabAt() + l.nTris*triSize }
func (l layout) blocksAt() uint64 { return l.textsAt() + l.nText }

// parseSegment checks data (magics, lengths, checksum) and returns the
// segment.
// data is a file's mapping, whose pages are given back as the checksum
// reads them (release: a segment may be larger than the memory an update
// may take).
func parseSegment(id uint32, name string, data []byte) (*segment, error) {
	if len(data) < headerSize+trailerSize {
		return nil, &CorruptError{File: name, Why: fmt.Sprintf("%d bytes, too short", len(data))}
	}
	l, err := parseLayout(name, int64(len(data)), data[:headerSize], data[len(data)-trailerSize:])
	if err != nil {
		return nil, err
	}
	if checksum(data[:l.textsAt()], data[l.blocksAt():len(data)-12]) != l.crc {
		return nil, &CorruptError{File: name, Why: "checksum mismatch"}
	}
	s := &segment{id: id, data: data, nDocs: int(l.nDocs)}
	s.docs = data[l.docsAt():l.postAt()]
	s.post = data[l.postAt():l.tabAt()]
	s.tab = data[l.tabAt():l.textsAt()]
	s.texts = data[l.textsAt():l.blocksAt()]
	s.blocks = data[l.blocksAt() : l.blocksAt()+l.nBlocks*blockSize]
	return s, nil
}

// checksum is the CRC-32C of parts, one after the other, pieces of a
// mapping (page-aligned), read 8 MiB at a time, each given back once read.
func checksum(parts ...[]byte) uint32 {
	const chunk = 8 << 20
	var c uint32
	for _, b := range parts {
		for len(b) > 0 {
			n := min(len(b), chunk)
			c = crc32.Update(c, castagnoli, b[:n])
			dontNeed(b[:n])
			b = b[n:]
		}
	}
	return c
}

func (s *segment) doc(i uint32) doc {
	b := s.docs[int(i)*docSize:]
	return doc{
		src:   binary.LittleEndian.Uint32(b),
		pos:   int64(binary.LittleEndian.Uint64(b[4:])),
		ts:    int64(binary.LittleEndian.Uint64(b[12:])),
		flags: b[20],
	}
}

func (s *segment) nTris() int { return len(s.tab) / triSize }

func (s *segment) triAt(i int) trigram {
	e := s.tab[i*triSize:]
	return trigram(e[0])<<16 | trigram(e[1])<<8 | trigram(e[2])
}

// postings appends the document numbers of t to dst (none when absent).
func (s *segment) postings(dst []uint32, t trigram) ([]uint32, error) {
	i := sort.Search(s.nTris(), func(i int) bool { return s.triAt(i) >= t })
	if i == s.nTris() || s.triAt(i) != t {
		return dst, nil
	}
	return s.postingsAt(dst, i)
}

// postingsAt decodes the i-th posting list, checking every number.
func (s *segment) postingsAt(dst []uint32, i int) ([]uint32, error) {
	e := s.tab[i*triSize:]
	off, n := binary.LittleEndian.Uint64(e[3:]), int(binary.LittleEndian.Uint32(e[11:]))
	if off >= uint64(len(s.post)) || n == 0 || n > s.nDocs {
		return dst, &CorruptError{File: segName(s.id), Why: "posting list out of bounds"}
	}
	p := s.post[off:]
	var id uint64
	for k := range n {
		v, w := binary.Uvarint(p)
		if w <= 0 {
			return dst, &CorruptError{File: segName(s.id), Why: "posting list truncated"}
		}
		p = p[w:]
		if k == 0 {
			id = v
		} else {
			id += v
			if v == 0 {
				return dst, &CorruptError{File: segName(s.id), Why: "posting list not ascending"}
			}
		}
		if id >= uint64(s.nDocs) {
			return dst, &CorruptError{File: segName(s.id), Why: "posting list names no document"}
		}
		dst = append(dst, uint32(id))
	}
	return dst, nil
}

func segName(id uint32) string { return fmt.Sprintf("seg-%08d", id) }
