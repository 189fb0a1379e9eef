package searchindex

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/search"
)

// Message is the searchable message of c as the index extracted it (the
// masked text, for an index of OpenMasked), with its tool calls (tools,
// search's --include-tools) or without: what search.Options.Accept matches
// and makes the hit of, as the scan would from the line (Index.Texts fills
// it in; the line is one search.DefaultMaxLine admits).
func (c *Candidate) Message(tools bool) search.Message {
	m := search.Message{ID: c.ID, Role: c.Role, Timestamp: c.Timestamp, Text: c.Text}
	if !tools && c.ToolCalls {
		m.Text = c.TextNoTools
	}
	return m
}

// Texts fills in the ID, Text and TextNoTools of every candidate of res
// from the text the index keeps (compressed, beside its trigrams), so that
// a query is verified without reading and parsing its candidates'
// transcripts again (Read). res must come from this Index's Candidates
// with no Update since (else an error: read the lines instead); a damaged
// block is a *CorruptError. Blocks are decoded once each, on every core.
func (ix *Index) Texts(res *Result) error {
	if res == nil || res.All {
		return nil
	}
	var cs []*Candidate
	for _, l := range res.Sources {
		for i := range l {
			cs = append(cs, &l[i])
		}
	}
	return ix.TextsOf(res, cs)
}

// TextsOf is Texts for the candidates cs of res only (those a page
// shows); cs is left in its order.
func (ix *Index) TextsOf(res *Result, cs []*Candidate) error {
	if res == nil || res.All {
		return nil
	}
	_, _, err := ix.eachRecord(res, slices.Clone(cs), 4096, func(c *Candidate, f [3][]byte) {
		c.ID, c.Text, c.TextNoTools = string(f[0]), string(f[1]), string(f[2])
	})
	return err
}

// MatchStats is what Match did.
type MatchStats struct {
	Matched int // candidates that matched
	Proved  int // of them, proved by the postings, their text not read
	Blocks  int // text blocks read (decoded, or kept decoded: Kept)
	Kept    int // of them, found decoded in the Index's block cache
}

// Match sets Matched on every candidate of res: true when accepts takes
// its kept text (the search.Message of Candidate.Message(tools), its text
// valid only during the call: accepts keeps nothing of it), or when the
// postings alone prove that it matches — a literal of three bytes folded
// that the index holds exactly (exactly), of a message of one text —
// whose text is not read. Each block of text holding a candidate not
// proved is read once (decoded, or kept decoded from an earlier question:
// blockCache), on every core: accepts must be safe for
// concurrent use, and agree with the Filter res was selected by. It makes
// no copy of any text: a search counts its hits this way, and fills in
// the text of the few it shows (TextsOf).
func (ix *Index) Match(res *Result, tools bool, accepts func(search.Message) bool) (MatchStats, error) {
	var st MatchStats
	if res == nil || res.All {
		return st, nil
	}
	var cs []*Candidate
	for _, l := range res.Sources {
		for i := range l {
			c := &l[i]
			if c.Matched = c.proved; c.proved {
				st.Proved++
			} else {
				cs = append(cs, c)
			}
		}
	}
	var matched atomic.Int64
	blocks, kept, err := ix.eachRecord(res, cs, 0, func(c *Candidate, f [3][]byte) {
		m := search.Message{ID: view(f[0]), Role: c.Role, Timestamp: c.Timestamp, Text: view(f[1])}
		if !tools && c.ToolCalls {
			m.Text = view(f[2])
		}
		if c.Matched = accepts(m); c.Matched {
			matched.Add(1)
		}
	})
	st.Blocks, st.Kept = blocks, kept
	st.Matched = st.Proved + int(matched.Load())
	return st, err
}

// view is b as a string without a copy: valid while b is (one record of a
// decoded block, during one call).
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// eachRecord calls fn with the record of each candidate of cs (from res,
// of this Index; cs is sorted in place), each block decoded once, on every core, in runs of at
// most maxRun candidates of one block (0: a block's candidates are one
// run); it returns the number of blocks read, and of them those found
// decoded in the block cache.
func (ix *Index) eachRecord(res *Result, cs []*Candidate, maxRun int, fn func(c *Candidate, f [3][]byte)) (int, int, error) {
	// In (segment, document) order, by one key each.
	keyed := make([]struct {
		k uint64
		c *Candidate
	}, len(cs))
	for i, c := range cs {
		keyed[i].k, keyed[i].c = uint64(c.seg)<<32|uint64(c.doc), c
	}
	slices.SortFunc(keyed, func(a, b struct {
		k uint64
		c *Candidate
	}) int {
		return cmp.Compare(a.k, b.k)
	})
	for i := range keyed {
		cs[i] = keyed[i].c
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// Work in runs of one segment's blocks, spread over the cores.
	type run struct {
		s  *segment
		cs []*Candidate
	}
	var runs []run
	for i := 0; i < len(cs); {
		j := i
		s := ix.segs[cs[i].seg]
		if s == nil || ix.man == nil || res.ix != ix || res.gen != ix.gen {
			return 0, 0, errStale
		}
		k := s.blockOf(cs[i].doc)
		for j < len(cs) && cs[j].seg == cs[i].seg && s.blockOf(cs[j].doc) == k && (maxRun == 0 || j-i < maxRun) {
			j++
		}
		runs = append(runs, run{s, cs[i:j]})
		i = j
	}
	cache := ix.blocks
	if cache != nil {
		cache.begin()
	}
	workers := min(runtime.GOMAXPROCS(0), len(runs))
	if len(runs) <= inlineRuns {
		workers = min(workers, 1)
	}
	errs := make([]error, workers)
	decoded, kept := make([]int, workers), make([]int, workers)
	var wg sync.WaitGroup
	var next sync.Mutex
	n := 0
	for w := range workers {
		wg.Add(1)
		work := func() {
			defer wg.Done()
			var tc textCursor
			errs[w] = mapfile.Guard(func() error {
				for {
					next.Lock()
					k := n
					n++
					next.Unlock()
					if k >= len(runs) {
						decoded[w] += tc.decodes
						kept[w] += tc.kept
						return nil
					}
					r := runs[k]
					if tc.s != r.s {
						decoded[w] += tc.decodes
						kept[w] += tc.kept
						tc = textCursor{s: r.s, k: -1, buf: tc.buf, cache: cache}
					}
					for _, c := range r.cs {
						rec, err := tc.record(c.doc)
						if err != nil {
							return err
						}
						f, ok := splitRecord(rec)
						if !ok {
							return tc.bad("a document record does not decode")
						}
						fn(c, f)
					}
				}
			})
		}
		if workers == 1 {
			work() // a few blocks: no goroutine to start and wake
		} else {
			go work()
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, 0, err
		}
	}
	total, fromCache := 0, 0
	for w := range decoded {
		total += decoded[w]
		fromCache += kept[w]
	}
	return total, fromCache, nil
}

// inlineRuns: a query whose candidates lie in at most this many runs of
// blocks (a rare word's, a page's) reads them on the calling goroutine:
// starting and waking workers cost more than the blocks.
const inlineRuns = 4

// errStale: Texts was given candidates of an index since updated.
var errStale = &staleError{}

type staleError struct{}

func (*staleError) Error() string {
	return "search index: the candidates are of an older version of the index"
}

func (s *segment) nBlocks() int { return len(s.blocks) / blockSize }

// block is the k-th entry of the block table.
func (s *segment) block(k int) (off uint64, clen, rlen, first uint32) {
	e := s.blocks[k*blockSize:]
	return binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:]),
		binary.LittleEndian.Uint32(e[16:])
}

// blockCRC is the CRC-32C of the k-th block's compressed bytes.
func (s *segment) blockCRC(k int) uint32 {
	return binary.LittleEndian.Uint32(s.blocks[k*blockSize+20:])
}

// blockOf is the block that holds document d's record (the last whose
// first document is at most d; -1 if none).
func (s *segment) blockOf(d uint32) int {
	lo, hi := 0, s.nBlocks()
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if _, _, _, f := s.block(h); f <= d {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo - 1
}

// textCursor reads the document records of one segment, in ascending
// document order, decoding each block once.
type textCursor struct {
	s   *segment
	k   int    // the block decoded into raw, -1 none
	raw []byte // its records (buf, or a block the cache keeps: read-only)
	at  uint32 // the document whose record starts at raw[p:]
	p   int
	// offs: where each record of raw starts, when the cache keeps it
	// (keptBlock); first the document of the first.
	offs  []uint32
	first uint32
	// buf: the cursor's own buffer, decoded into when the cache keeps
	// nothing more (or there is none).
	buf   []byte
	cache *blockCache // nil: none (a process's first query)
	// decodes counts the blocks read (Match's MatchStats.Blocks), kept
	// those of them found in the cache.
	decodes, kept int
}

func (tc *textCursor) bad(why string) error {
	return &CorruptError{File: segName(tc.s.id), Why: why}
}

// record returns document d's record (valid until the next call); d must
// not be below the previous call's.
func (tc *textCursor) record(d uint32) ([]byte, error) {
	if int(d) >= tc.s.nDocs {
		return nil, tc.bad("a document with no record")
	}
	if k := tc.s.blockOf(d); k != tc.k || d < tc.at {
		if k < 0 {
			return nil, tc.bad("a document with no text block")
		}
		off, clen, rlen, first := tc.s.block(k)
		if off > uint64(len(tc.s.texts)) || uint64(clen) > uint64(len(tc.s.texts))-off || rlen > maxBlockRaw ||
			(k == 0 && first != 0) {
			return nil, tc.bad("a text block out of bounds")
		}
		b, err := tc.decode(k, tc.s.texts[off:off+uint64(clen)], rlen)
		if err != nil {
			return nil, err
		}
		tc.k, tc.raw, tc.at, tc.p, tc.offs, tc.first = k, b.raw, first, 0, b.offs, first
		tc.decodes++
	}
	if tc.offs != nil {
		i := int(d - tc.first)
		if i+1 >= len(tc.offs) {
			return nil, tc.bad("a document record out of bounds")
		}
		return tc.raw[tc.offs[i]:tc.offs[i+1]], nil
	}
	for ; tc.at < d; tc.at++ {
		n, ok := recordLen(tc.raw[tc.p:])
		if !ok {
			return nil, tc.bad("a document record out of bounds")
		}
		tc.p += n
	}
	n, ok := recordLen(tc.raw[tc.p:])
	if !ok {
		return nil, tc.bad("a document record out of bounds")
	}
	return tc.raw[tc.p : tc.p+n], nil
}

// decode is block k, whose compressed bytes are z and length rlen: from the cache, or
// decoded (into a buffer of its own that the cache keeps, with its
// records' offsets, or into buf).
func (tc *textCursor) decode(k int, z []byte, rlen uint32) (keptBlock, error) {
	if tc.cache != nil {
		if b, ok := tc.cache.get(tc.s, k); ok {
			tc.kept++
			return b, nil
		}
	}
	keep := tc.cache != nil && !tc.cache.full(int64(rlen))
	dst := tc.buf[:0]
	if keep {
		dst = make([]byte, 0, rlen)
	} else if cap(dst) < int(rlen) {
		// blocks differ in length by their last record: a buffer of
		// just the length would be replaced at every other block, a new
		// 64 KiB and its page faults each
		dst = make([]byte, 0, int(rlen)+int(rlen)/4)
	}
	if crc32.Checksum(z, castagnoli) != tc.s.blockCRC(k) {
		return keptBlock{}, tc.bad("a text block's checksum mismatch")
	}
	raw, ok := decodeBlock(dst, z, rlen)
	if !ok {
		return keptBlock{}, tc.bad("a text block does not decode")
	}
	if keep {
		offs, ok := recordOffsets(raw)
		if !ok {
			return keptBlock{}, tc.bad("a document record out of bounds")
		}
		if b := (keptBlock{raw, offs}); tc.cache.put(tc.s, k, b) {
			return b, nil
		}
	}
	tc.buf = raw
	return keptBlock{raw: raw}, nil
}

// recordLen is the length of the record at the start of b.
func recordLen(b []byte) (int, bool) {
	p := 0
	for range 3 {
		v, w := binary.Uvarint(b[p:])
		if w <= 0 || v > uint64(len(b)-p-w) {
			return 0, false
		}
		p += w + int(v)
	}
	return p, true
}

// splitRecord is a record's fields: id, text, text without tool calls.
func splitRecord(b []byte) (f [3][]byte, ok bool) {
	for i := range f {
		v, w := binary.Uvarint(b)
		if w <= 0 || v > uint64(len(b)-w) {
			return f, false
		}
		f[i], b = b[w:w+int(v)], b[w+int(v):]
	}
	return f, len(b) == 0
}
