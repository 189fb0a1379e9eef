package searchindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/klauspost/compress/s2"

	"github.com/openclaw/sessions/internal/search"
)

// A segment file (seg-<n>), written once and never changed:
//
//	"SXIDXSG5"                            magic and format version
//	docs      nDocs × 21 bytes            src u32, pos u64, timestamp i64, flags u8 (little endian)
//	postings  per trigram, its document numbers ascending: as uvarint gaps, or as a bitmap (bitmap.go)
//	trigrams  nTris × 15 bytes, ascending  trigram (3 bytes), postings offset u64, count u32 (its top bit:
//	                                      the list is a bitmap)
//	texts     S2 blocks (encodeBlock), one per block of about 64 KiB of document records
//	blocks    nBlocks × 24 bytes          offset in texts u64, compressed length u32, length u32, first document u32,
//	                                      CRC-32C u32 of the compressed bytes
//	chunks    nChunks × 4 bytes           CRC-32C u32 of each chunkSize bytes of the file before the texts
//	                                      (magic, docs, postings, trigrams; the last chunk shorter)
//	trailer   nDocs u64, nTris u64, postings length u64, nBlocks u64, texts length u64,
//	          CRC-32C u32 of the blocks, the chunks and the trailer before it, "SXIDXEND"
//
// A document record is its message's id, its text with tool calls and its
// text without them (empty unless flagToolCalls), each a uvarint length and
// the bytes: what the index extracted (masked, for a masked index), so that
// a query is verified without reading a transcript again (Index.Texts).
//
// Readers check the magics, the lengths and the trailer's checksum before
// anything else, and every byte they use by the checksum of the chunk or
// the text block it lies in, before they use it (a chunk once per mapping),
// so that a torn, truncated, foreign or corrupt file is an error, never a
// wrong answer or a panic. A query reads a few posting lists, the trigram
// table's entries it looks up, its candidates' documents and their text
// blocks: checked where read, a process's open no longer reads the whole
// file (it did: at every CLI search the CRC-32C of every segment's
// postings, a third of a rare query's process on a 491 MB state).
const (
	segMagic     = "SXIDXSG5"
	endMagic     = "SXIDXEND"
	docSize      = 21
	triSize      = 15
	blockSize    = 24
	trailerSize  = 5*8 + 4 + 8
	headerSize   = len(segMagic)
	flagRoleMask = 3
	// flagToolCalls: a message whose text differs with --include-tools
	// (its trigrams are those of both texts): an assistant's with tool
	// calls, or one search passes over without them (a line whose first
	// message is a tool result).
	flagToolCalls = 1 << 2
	// flagTail: the unterminated last line of a file, live only in its
	// source's last segment (the next update indexes the line again).
	flagTail = 1 << 3
	// textBlock is the text packed into one compressed block: a query decodes
	// the blocks of its candidates only.
	textBlock = 64 << 10
	// maxBlockRaw bounds a block's records: a block is filled up to
	// textBlock, and its last record may be one message of a line of up to
	// search.DefaultMaxLine, whose two texts (with and without tool calls;
	// masked, for an agent's index) may each be as long; what decodes
	// longer is damage.
	maxBlockRaw = textBlock + 4*search.DefaultMaxLine
	// chunkSize is the span of the file before the texts that one
	// checksum covers: what a reader checks before it uses any byte of it.
	chunkSize = 64 << 10
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
	docs []doc
	tris []trigram // the documents' trigrams, one document after another
	// tends: where each document's trigrams end in tris
	tends []int
	tmp   []uint32 // postings' scratch, kept between segments
	scr   []uint32
	text  int    // bytes of text indexed
	recs  []byte // the documents' records (appendRecord), in order
	ends  []int  // where each document's record ends in recs
}

// maxSegDocs bounds a segment's documents: postings number them in 20
// bits beside the trigram's low 12 (postings). Update ends a segment
// there (maybeFlush).
const maxSegDocs = 1 << 20

// add indexes one document whose distinct folded trigrams are tris (those
// of all its texts: a document is a candidate for a query any of them
// holds; docTrigrams makes them) and whose texts hold text bytes.
func (b *builder) add(d doc, tris []trigram, text int, rec []byte) {
	b.docs = append(b.docs, d)
	b.text += text
	b.recs = append(b.recs, rec...)
	b.ends = append(b.ends, len(b.recs))
	b.tris = append(b.tris, tris...)
	b.tends = append(b.tends, len(b.tris))
}

// A document's trigrams are kept once each, in one of two ways by its
// length. Up to filterMax bytes, by a triFilter: 4096 slots (16 KiB, held
// in a core's first-level cache), each the last trigram hashed to it,
// tagged with the document's generation — a trigram in its slot was seen
// in this document; one that is not is kept again, a repeat postings
// drops. Longer, by a triSet: a bit for each of the 2^24 trigrams (2 MiB),
// exact, but a cache miss at nearly every new trigram. On the generated
// state's messages (most under 1 KiB) docTrigrams read ~320 MB/s with the
// set alone and ~480 MB/s with the filter, for 1.4% more pairs; a text of
// more distinct trigrams than slots would repeat most of them, so a long
// one is the set's. (A small exact hash set had measured slower than the
// set.)
// One of each per reader (triFilters, triSets).
const filterMax = 2048

type triFilter struct {
	slot [1 << 12]uint32
	gen  uint32 // the document's, 1 to 255: a slot's top 8 bits
}

var triFilters = sync.Pool{New: func() any { return new(triFilter) }}

// tag starts a document: its tag, every slot forgotten.
func (f *triFilter) tag() uint32 {
	if f.gen++; f.gen == 1<<8 {
		f.slot = [1 << 12]uint32{}
		f.gen = 1
	}
	return f.gen << 24
}

// triSlot is the slot of trigram t.
func triSlot(t trigram) uint32 { return uint32(t) * 0x9e3779b1 >> 20 }

type triSet struct {
	seen []uint64
}

var triSets = sync.Pool{New: func() any { return &triSet{seen: make([]uint64, 1<<24/64)} }}

// docTrigrams appends to dst the trigrams of the folded texts (appendFold,
// then each 3-byte window): each distinct one the first time it is seen
// and, in texts of up to filterMax bytes, seldom again (a repeat the
// triFilter forgot). It folds as it goes, byte by byte for ASCII, without
// writing the fold out (TestDocTrigramsIsItsDefinition,
// FuzzDocTrigramsIsItsDefinition); a fold is never longer than its rune
// (TestFoldIsNoLonger), so a text's trigrams are at most its bytes.
func docTrigrams(dst []trigram, texts ...string) []trigram {
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	if size > filterMax {
		return docTrigramsSet(dst, texts)
	}
	f := triFilters.Get().(*triFilter)
	g := f.tag()
	for _, s := range texts {
		var t trigram
		n := 0 // bytes of the fold so far, up to 2
		// An ASCII byte gives at most one trigram: it is written past
		// the end of dst, which grows by one only if it is not in its
		// slot — no branch on it, which a predictor guesses wrong about
		// as often as right in a short message
		// (BenchmarkDocTrigrams/varied).
		dst = slices.Grow(dst, len(s))
		k, buf := len(dst), dst[:cap(dst)]
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				t = (t<<8 | trigram(upperASCII[c])) & 0xffffff
				i++
				if n < 2 {
					n++
					continue
				}
				h, key := triSlot(t), g|uint32(t)
				buf[k] = t
				if f.slot[h] != key {
					k++
				}
				f.slot[h] = key
				continue
			}
			var enc [utf8.UTFMax]byte
			e := enc[:1]
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				enc[0] = c // not UTF-8: the byte as is
			} else {
				e = enc[:utf8.EncodeRune(enc[:], foldRune(r))]
			}
			i += size
			for _, c := range e {
				t = (t<<8 | trigram(c)) & 0xffffff
				if n < 2 {
					n++
				} else if h, key := triSlot(t), g|uint32(t); f.slot[h] != key {
					f.slot[h] = key
					buf[k] = t
					k++
				}
			}
		}
		dst = buf[:k]
	}
	triFilters.Put(f)
	return dst
}

// docTrigramsSet is docTrigrams by a triSet: each trigram once. (Its loop
// is docTrigrams' but for the mark: one loop marking through a method of
// either kind measured 2x slower, the call not inlined.)
func docTrigramsSet(dst []trigram, texts []string) []trigram {
	ts := triSets.Get().(*triSet)
	seen := ts.seen[:1<<24/64]
	start := len(dst)
	for _, s := range texts {
		var t trigram
		n := 0
		dst = slices.Grow(dst, len(s))
		k, buf := len(dst), dst[:cap(dst)]
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				t = (t<<8 | trigram(upperASCII[c])) & 0xffffff
				i++
				if n < 2 {
					n++
					continue
				}
				w, sh := t>>6, t&63
				old := seen[w]
				buf[k] = t
				k += int(old>>sh&1 ^ 1)
				seen[w] = old | 1<<sh
				continue
			}
			var enc [utf8.UTFMax]byte
			e := enc[:1]
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				enc[0] = c
			} else {
				e = enc[:utf8.EncodeRune(enc[:], foldRune(r))]
			}
			i += size
			for _, c := range e {
				t = (t<<8 | trigram(c)) & 0xffffff
				if n < 2 {
					n++
				} else if w, bit := t>>6, uint64(1)<<(t&63); seen[w]&bit == 0 {
					seen[w] |= bit
					buf[k] = t
					k++
				}
			}
		}
		dst = buf[:k]
	}
	for _, t := range dst[start:] {
		seen[t>>6] &^= 1 << (t & 63)
	}
	triSets.Put(ts)
	return dst
}

// upperASCII is foldRune of each ASCII byte.
var upperASCII = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(foldRune(rune(c)))
	}
	return t
}()

// postings gives emit each trigram of the documents (tris, the trigrams of
// document n ending at tends[n], fewer than maxSegDocs documents; a
// trigram may repeat within its document: docTrigrams) with its documents
// ascending, each once, trigrams ascending: a stable radix sort, first on
// the trigram's high 12 bits into tmp (each entry its low 12 bits and the
// document's number), then each of those 4096 buckets, small enough to
// stay in cache, on its low 12 bits. It returns tmp and scr, scratch kept
// between segments.
func postings(tris []trigram, tends []int, tmp, scr []uint32, emit func(t trigram, ids []uint32)) (tmpOut, scrOut []uint32) {
	// (counters of 32 bits: the 4097 of a pass fit in 16 KiB of L1)
	var at [1<<12 + 1]uint32
	for _, t := range tris {
		at[t>>12+1]++
	}
	for k := 1; k < len(at); k++ {
		at[k] += at[k-1]
	}
	tmp = slices.Grow(tmp[:0], len(tris))[:len(tris)]
	next := at
	i := 0
	for n, end := range tends {
		for _, t := range tris[i:end] {
			h := t >> 12
			p := next[h]
			tmp[p] = (t&0xfff)<<20 | uint32(n)
			next[h] = p + 1
		}
		i = end
	}
	var count [1 << 12]uint32
	for h := range 1 << 12 {
		bk := tmp[at[h]:at[h+1]]
		switch {
		case len(bk) == 0:
			continue
		case len(bk) < 256:
			// Documents ascend within a low 12 bits: sorting the
			// entries whole is the stable sort by those bits.
			slices.Sort(bk)
		default:
			clear(count[:])
			for _, v := range bk {
				count[v>>20]++
			}
			sum := uint32(0)
			for k, c := range count {
				count[k] = sum
				sum += c
			}
			scr = slices.Grow(scr[:0], len(bk))[:len(bk)]
			for _, v := range bk {
				p := count[v>>20]
				scr[p] = v
				count[v>>20] = p + 1
			}
			bk = scr
		}
		// Each run of one low 12 bits, its entries made its documents'
		// numbers in place, a document's repeats (side by side: the
		// sort is stable) dropped (the scratch is not read again).
		for j := 0; j < len(bk); {
			lo, from := bk[j]>>20, j
			prev, repeats := ^uint32(0), false
			for ; j < len(bk) && bk[j]>>20 == lo; j++ {
				d := bk[j] & (maxSegDocs - 1)
				bk[j] = d
				if d == prev {
					repeats = true
				}
				prev = d
			}
			ids := bk[from:j]
			if repeats {
				ids = slices.Compact(ids)
			}
			emit(trigram(h)<<12|trigram(lo), ids)
		}
	}
	return tmp, scr
}

// appendRecord appends the record of a document (its id and texts) to dst.
func appendRecord(dst []byte, id, text, noTools string) []byte {
	for _, f := range [...]string{id, text, noTools} {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// encodeBlock compresses a text block's records into dst (its room
// reused): S2's block format, no framing or checksum of its own (each
// block has its CRC-32C in the block table). Measured on the records of
// the generated 64 MiB state (56 MB), one core: S2 597 MB/s to 0.199 of
// the records, decoded at 1,676 MB/s; zstd's fastest level 251 MB/s to
// 0.162, decoded at 1,174 MB/s; its default level 211 MB/s to 0.151,
// 1,464 MB/s. A first build compresses all its text once and a common
// query decodes most blocks: both are faster, for an index ~5% larger
// (docs/PERFORMANCE.md).
func encodeBlock(dst, raw []byte) []byte {
	n := s2.MaxEncodedLen(len(raw))
	return s2.Encode(slices.Grow(dst[:0], n)[:n], raw)
}

// decodeBlock decodes the block z of rlen bytes into dst's room (grown
// as needed): false if z is not a block of rlen bytes. Its length is read
// first, so a damaged block allocates nothing past it.
func decodeBlock(dst, z []byte, rlen uint32) ([]byte, bool) {
	n, err := s2.DecodedLen(z)
	if err != nil || n != int(rlen) || n > maxBlockRaw {
		return nil, false
	}
	raw, err := s2.Decode(slices.Grow(dst[:0], n)[:n], z)
	if err != nil || len(raw) != n {
		return nil, false
	}
	return raw, true
}

// segWriter writes a segment as a stream: documents, then postings one
// trigram after another, then the trigram table, the texts block by block,
// the block table, the chunk checksums and the trailer.
type segWriter struct {
	w   *bufio.Writer
	crc hash.Hash32 // the trailer's: blocks, chunks, trailer
	// The checksums of the chunks before the texts: the one being
	// summed, its bytes so far, and those done (u32 each).
	chunk   uint32
	inChunk int
	chunks  []byte
	n       int64 // postings bytes written
	tab     []byte
	nDocs   int
	nTris   int
	post    []byte // posting lists not written yet (postingsOut)
	// the list open: where it starts in post, its numbers, its last,
	// whether it is a bitmap (and is, in a merge's, being set in bits)
	listAt int
	listN  int
	last   uint32
	bitmap bool
	bits   wordBits
	// The texts: the block being filled (raw records), its first
	// document, the records so far, the block table and the bytes written.
	raw, zbuf, blocks []byte
	first, recs       uint32
	nText             int64
	tabDone           bool
	docBuf            [docSize]byte
}

func newSegWriter(w io.Writer) *segWriter {
	s := &segWriter{crc: crc32.New(castagnoli), w: bufio.NewWriterSize(w, 1<<20)}
	s.sum([]byte(segMagic))
	return s
}

// sum writes b, a part of the segment before the texts, which its chunks'
// checksums cover.
func (s *segWriter) sum(b []byte) {
	s.w.Write(b)
	for len(b) > 0 {
		n := min(len(b), chunkSize-s.inChunk)
		s.chunk = crc32.Update(s.chunk, castagnoli, b[:n])
		s.inChunk += n
		b = b[n:]
		if s.inChunk == chunkSize {
			s.endChunk()
		}
	}
}

func (s *segWriter) endChunk() {
	s.chunks = binary.LittleEndian.AppendUint32(s.chunks, s.chunk)
	s.chunk, s.inChunk = 0, 0
}

// endTable writes the trigram table, the last of what the chunks cover,
// and ends the last chunk: the texts follow.
func (s *segWriter) endTable() {
	if s.tabDone {
		return
	}
	s.postingsOut()
	s.sum(s.tab)
	if s.inChunk > 0 {
		s.endChunk()
	}
	s.tabDone = true
}

// tail writes b, a part of the segment after the texts, which the
// trailer's checksum covers.
func (s *segWriter) tail(b []byte) {
	s.w.Write(b)
	s.crc.Write(b)
}

func (s *segWriter) doc(d doc) {
	b := s.docBuf[:] // a local array would escape through the Writer: an allocation per document
	binary.LittleEndian.PutUint32(b[0:], d.src)
	binary.LittleEndian.PutUint64(b[4:], uint64(d.pos))
	binary.LittleEndian.PutUint64(b[12:], uint64(d.ts))
	b[20] = d.flags
	s.sum(b)
	s.nDocs++
}

// posting writes the posting list of t (ids ascending, not empty): as a
// bitmap when that is the shorter, else the first number, then each gap, as
// varints — into a run of lists summed and written together (a list is a
// few bytes; a first build writes tens of millions of them).
func (s *segWriter) posting(t trigram, ids []uint32) {
	s.open()
	if last := ids[len(ids)-1]; asBitmap(ids[0], last, len(ids)) {
		s.post = appendBitmap(s.post, ids)
		s.listN, s.last, s.bitmap = len(ids), last, true
		s.close(t)
		return
	}
	for _, id := range ids {
		s.add(id)
	}
	s.close(t)
}

// open starts a posting list, which add fills (and a merge's
// triCursor.copyPostings) and close ends.
func (s *segWriter) open() {
	s.listAt, s.listN, s.last, s.bitmap = len(s.post), 0, 0, false
}

// openBits starts a posting list of numbers from lo to hi (exclusive) as
// a bitmap, which a merge sets (bits.set, bits.or) and closeBits ends.
func (s *segWriter) openBits(lo, hi uint32) {
	s.open()
	s.bits.reset(lo, hi)
	s.bitmap = true
}

// closeBits ends the list openBits opened, of trigram t: no entry when no
// bit is set.
func (s *segWriter) closeBits(t trigram) {
	s.post, s.listN, s.last = s.bits.appendList(s.post)
	s.close(t)
}

// add adds id, above the list's last, to the list open.
func (s *segWriter) add(id uint32) {
	if g := id - s.last; g < 0x80 {
		s.post = append(s.post, byte(g))
	} else {
		s.post = binary.AppendUvarint(s.post, uint64(g))
	}
	s.last = id
	s.listN++
}

// close ends the list open, of trigram t: no entry when it is empty.
func (s *segWriter) close(t trigram) {
	if s.listN == 0 {
		return
	}
	var e [triSize]byte
	e[0], e[1], e[2] = byte(t>>16), byte(t>>8), byte(t)
	binary.LittleEndian.PutUint64(e[3:], uint64(s.n))
	c := uint32(s.listN)
	if s.bitmap {
		c |= listBitmap
	}
	binary.LittleEndian.PutUint32(e[11:], c)
	s.tab = append(s.tab, e[:]...)
	s.nTris++
	s.n += int64(len(s.post) - s.listAt)
	if len(s.post) >= 64<<10 {
		s.postingsOut()
	}
}

// postingsOut writes the posting lists run up in s.post.
func (s *segWriter) postingsOut() {
	s.sum(s.post)
	s.post = s.post[:0]
}

// record adds the next document's record (after the last posting): one
// per document, in document order.
func (s *segWriter) record(rec []byte) {
	s.endTable()
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
	s.zbuf = encodeBlock(s.zbuf, s.raw)
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
	s.endTable()
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
	s.endTable()
	s.block()
	if int(s.recs) != s.nDocs {
		return fmt.Errorf("search index: %d document records for %d documents", s.recs, s.nDocs)
	}
	s.tail(s.blocks)
	s.tail(s.chunks)
	var t [trailerSize - 4 - 8]byte
	binary.LittleEndian.PutUint64(t[0:], uint64(s.nDocs))
	binary.LittleEndian.PutUint64(t[8:], uint64(s.nTris))
	binary.LittleEndian.PutUint64(t[16:], uint64(s.n))
	binary.LittleEndian.PutUint64(t[24:], uint64(len(s.blocks)/blockSize))
	binary.LittleEndian.PutUint64(t[32:], uint64(s.nText))
	s.tail(t[:])
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
	if len(b.docs) > maxSegDocs {
		return fmt.Errorf("search index: a segment of %d documents (at most %d)", len(b.docs), maxSegDocs)
	}
	b.tmp, b.scr = postings(b.tris, b.tends, b.tmp, b.scr, s.posting)
	start := 0
	for _, end := range b.ends {
		s.record(b.recs[start:end])
		start = end
	}
	return s.finish()
}

// segment is a segment file's bytes, mapped: the sections, and what of
// the bytes before the texts was checked.
type segment struct {
	id     uint32
	data   []byte
	docs   []byte
	post   []byte
	tab    []byte
	texts  []byte
	blocks []byte
	nDocs  int
	// where docs, post and tab start in the file
	docsAt, postAt, tabAt int
	// before is the file before the texts; chunks its chunks' checksums
	// (u32 each), checked those whose bytes were read (check).
	before, chunks []byte
	checked        []atomic.Bool
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
		l.nDocs*docSize+l.nTris*triSize+l.nPost+l.nBlocks*blockSize+l.nText+l.nChunks()*4 != body || l.nDocs > 1<<32-1 {
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
func (l layout) chunksAt() uint64 { return l.blocksAt() + l.nBlocks*blockSize }

// nChunks is how many chunks the bytes before the texts make (at least
// the magic's).
func (l layout) nChunks() uint64 { return (l.textsAt() + chunkSize - 1) / chunkSize }

// parseSegment checks data, a file's mapping, by its magics, its lengths
// and the trailer's checksum, and returns the segment, whose other bytes
// are checked as they are read (segment.check).
func parseSegment(id uint32, name string, data []byte) (*segment, error) {
	if len(data) < headerSize+trailerSize {
		return nil, &CorruptError{File: name, Why: fmt.Sprintf("%d bytes, too short", len(data))}
	}
	l, err := parseLayout(name, int64(len(data)), data[:headerSize], data[len(data)-trailerSize:])
	if err != nil {
		return nil, err
	}
	if crc32.Checksum(data[l.blocksAt():len(data)-12], castagnoli) != l.crc {
		return nil, &CorruptError{File: name, Why: "checksum mismatch"}
	}
	s := &segment{id: id, data: data, nDocs: int(l.nDocs)}
	s.docsAt, s.postAt, s.tabAt = int(l.docsAt()), int(l.postAt()), int(l.tabAt())
	s.docs = data[l.docsAt():l.postAt()]
	s.post = data[l.postAt():l.tabAt()]
	s.tab = data[l.tabAt():l.textsAt()]
	s.texts = data[l.textsAt():l.blocksAt()]
	s.blocks = data[l.blocksAt():l.chunksAt()]
	s.chunks = data[l.chunksAt() : l.chunksAt()+l.nChunks()*4]
	s.before = data[:l.textsAt()]
	s.checked = make([]atomic.Bool, l.nChunks())
	return s, nil
}

// check checks the chunks that the n bytes at off (in the file, before
// the texts) lie in, each once for the segment's mapping.
func (s *segment) check(off, n int) error {
	if n <= 0 {
		return nil
	}
	if off < 0 || off+n > len(s.before) {
		return &CorruptError{File: segName(s.id), Why: "a section out of bounds"}
	}
	for k := off / chunkSize; k <= (off+n-1)/chunkSize; k++ {
		if s.checked[k].Load() {
			continue
		}
		c := s.before[k*chunkSize : min((k+1)*chunkSize, len(s.before))]
		if crc32.Checksum(c, castagnoli) != binary.LittleEndian.Uint32(s.chunks[4*k:]) {
			return &CorruptError{File: segName(s.id), Why: fmt.Sprintf("checksum mismatch in chunk %d", k)}
		}
		s.checked[k].Store(true)
	}
	return nil
}

// checkDocs checks the document table's entries of ids (ascending).
func (s *segment) checkDocs(ids []uint32) error {
	if len(ids) > s.nDocs/8 { // most of the table: its chunks in one go
		return s.check(s.docsAt, len(s.docs))
	}
	next := 0 // the first byte of the table not known checked
	for _, i := range ids {
		off := s.docsAt + int(i)*docSize
		if off+docSize <= next {
			continue
		}
		if err := s.check(off, docSize); err != nil {
			return err
		}
		next = (off + docSize - 1) / chunkSize * chunkSize
		next = min(next+chunkSize, len(s.before))
	}
	return nil
}

// doc is document i, whose entry the caller checked (checkDocs).
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

// entry is the i-th entry of the trigram table, checked.
func (s *segment) entry(i int) ([]byte, error) {
	if err := s.check(s.tabAt+i*triSize, triSize); err != nil {
		return nil, err
	}
	return s.tab[i*triSize : (i+1)*triSize], nil
}

func entryTri(e []byte) trigram {
	return trigram(e[0])<<16 | trigram(e[1])<<8 | trigram(e[2])
}

// find is the index of t in the trigram table, or -1.
func (s *segment) find(t trigram) (int, error) {
	lo, hi := 0, s.nTris()
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		e, err := s.entry(h)
		if err != nil {
			return -1, err
		}
		if entryTri(e) < t {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < s.nTris() {
		e, err := s.entry(lo)
		if err != nil || entryTri(e) != t {
			return -1, err
		}
		return lo, nil
	}
	return -1, nil
}

// count is the length of the i-th posting list, an entry find checked.
func (s *segment) count(i int) int {
	n, _ := entryCount(s.tab[i*triSize:])
	return n
}

// postings appends the document numbers of t to dst (none when absent).
func (s *segment) postings(dst []uint32, t trigram) ([]uint32, error) {
	i, err := s.find(t)
	if i < 0 {
		return dst, err
	}
	return s.postingsAt(dst, i)
}

// postingsAt decodes the i-th posting list, checking every number: its
// bytes run from its offset to the next list's (the lists lie one after
// another in the table's order), checked by their chunks first.
func (s *segment) postingsAt(dst []uint32, i int) ([]uint32, error) {
	e, err := s.entry(i)
	if err != nil {
		return dst, err
	}
	off := binary.LittleEndian.Uint64(e[3:])
	n, bitmap := entryCount(e)
	end := uint64(len(s.post))
	if i+1 < s.nTris() {
		next, err := s.entry(i + 1)
		if err != nil {
			return dst, err
		}
		end = binary.LittleEndian.Uint64(next[3:])
	}
	if off >= end || end > uint64(len(s.post)) || n == 0 || n > s.nDocs {
		return dst, &CorruptError{File: segName(s.id), Why: "posting list out of bounds"}
	}
	if err := s.check(s.postAt+int(off), int(end-off)); err != nil {
		return dst, err
	}
	p := s.post[off:end]
	if bitmap {
		first, b, why := checkBitmap(p, n, uint64(s.nDocs))
		if why != "" {
			return dst, &CorruptError{File: segName(s.id), Why: why}
		}
		return appendBitmapIDs(dst, first, b, 0), nil
	}
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
	if len(p) != 0 {
		return dst, &CorruptError{File: segName(s.id), Why: "posting list longer than its count"}
	}
	return dst, nil
}

func segName(id uint32) string { return fmt.Sprintf("seg-%08d", id) }
