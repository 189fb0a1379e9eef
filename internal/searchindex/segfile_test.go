package searchindex

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// rawPosting writes a posting list of count numbers as the given bytes:
// what segWriter.posting would write for a list that is not one (a
// damaged one whose checksums still hold, as a buggy writer leaves it).
func (s *segWriter) rawPosting(t trigram, count int, b []byte) {
	var e [triSize]byte
	e[0], e[1], e[2] = byte(t>>16), byte(t>>8), byte(t)
	binary.LittleEndian.PutUint64(e[3:], uint64(s.n))
	binary.LittleEndian.PutUint32(e[11:], uint32(count)) // (a count with listBitmap set: a bitmap)
	s.tab = append(s.tab, e[:]...)
	s.nTris++
	s.post = append(s.post, b...)
	s.n += int64(len(b))
}

// writeTestSeg writes segment id of dir: nDocs documents (testDoc), then
// the posting lists post writes.
func writeTestSeg(t *testing.T, dir string, id uint32, nDocs int, post func(sw *segWriter)) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, segName(id)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sw := newSegWriter(f)
	for d := range nDocs {
		sw.doc(testDoc(d))
	}
	post(sw)
	for range nDocs {
		sw.record(appendRecord(nil, "m", "text", "text"))
	}
	if err := sw.finish(); err != nil {
		t.Fatal(err)
	}
}

// testDoc is document d of writeTestSeg: every field its own.
func testDoc(d int) doc {
	return doc{src: uint32(d % 13), pos: int64(d) << 20, ts: int64(d) * 1000, flags: uint8(d)}
}

// testCursor opens segment 1 of dir to be merged, its readers' buffers of
// buf bytes, closed at the test's end, and gives its trigram cursor.
func testCursor(t *testing.T, dir string, buf int) *triCursor {
	t.Helper()
	sf, err := openSegFile(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sf.Close() })
	sf.buf = buf
	return sf.trigrams()
}

// listOpen decodes sw's list open: its numbers, checked as a reader
// checks them.
func listOpen(t *testing.T, sw *segWriter) []uint32 {
	t.Helper()
	p := sw.post[sw.listAt:]
	var ids []uint32
	id := uint64(0)
	for len(p) > 0 {
		v, w := binary.Uvarint(p)
		if w <= 0 || (len(ids) > 0 && v == 0) {
			t.Fatalf("the list open is not a list: %x", sw.post[sw.listAt:])
		}
		p, id = p[w:], id+v
		ids = append(ids, uint32(id))
	}
	if len(ids) != sw.listN || (len(ids) > 0 && ids[len(ids)-1] != sw.last) {
		t.Fatalf("the list open: %d numbers ending %d, its count %d, its last %d", len(ids), ids[len(ids)-1], sw.listN, sw.last)
	}
	return ids
}

// A merge's readers of posting lists (a pread cursor that decodes what its
// buffer holds at once, or copies a list's gaps as they are, after a run
// of another segment's) give every list as the mapped segment a query
// reads does, whatever the buffer's size and wherever a number straddles
// the buffer's end.
func TestTriCursorPostingsAsTheMapping(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 11))
	const nDocs = 70000 // numbers of up to three varint bytes
	n := 0
	writeTestSeg(t, dir, 1, nDocs, func(sw *segWriter) {
		for tri := range trigram(400) {
			var ids []uint32
			gap := 1 + r.IntN([]int{2, 300, 40000}[r.IntN(3)])
			for id := r.IntN(gap); id < nDocs && len(ids) < 3000; id += 1 + r.IntN(gap) {
				ids = append(ids, uint32(id))
			}
			if len(ids) == 0 {
				ids = []uint32{nDocs - 1}
			}
			sw.posting(tri*37, ids)
			n++
		}
	})
	data, err := os.ReadFile(filepath.Join(dir, segName(1)))
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := parseSegment(1, segName(1), data)
	if err != nil {
		t.Fatal(err)
	}
	for _, buf := range []int{16, 17, 23, 4 << 10, segReadBuf} {
		for _, copied := range []bool{false, true} {
			tc := testCursor(t, dir, buf)
			sw := newSegWriter(io.Discard)
			var got []uint32
			for i := 0; ; i++ {
				ok, err := tc.next()
				if err != nil {
					t.Fatalf("buffer %d: entry %d: %v", buf, i, err)
				}
				if !ok {
					if i != n {
						t.Fatalf("buffer %d: %d entries, want %d", buf, i, n)
					}
					break
				}
				want, err := mapped.postingsAt(nil, i)
				if err != nil {
					t.Fatal(err)
				}
				if copied {
					// after a run of another segment's numbers
					sw.open()
					sw.add(uint32(i))
					sw.add(uint32(i + 200))
					add := uint32(i + 201)
					if err := tc.copyPostings(sw, add); err != nil {
						t.Fatalf("buffer %d: list %d: %v", buf, i, err)
					}
					got = listOpen(t, sw)
					for j := range want {
						want[j] += add
					}
					want = append([]uint32{uint32(i), uint32(i + 200)}, want...)
					sw.close(trigram(i))
				} else if got, err = tc.postings(got[:0]); err != nil {
					t.Fatalf("buffer %d: list %d: %v", buf, i, err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("buffer %d, copied %v: list %d: %v, want %v", buf, copied, i, got, want)
				}
			}
		}
	}
}

// A posting list whose checksums hold but whose numbers do not — a zero
// gap, a number past the documents, a count past its bytes or short of
// them, a number of more than ten bytes — is a *CorruptError from the
// merge's readers, as from the mapping, whatever the buffer.
func TestTriCursorPostingsDamaged(t *testing.T) {
	for name, b := range map[string]struct {
		count int
		bytes []byte
	}{
		"zero gap":         {3, []byte{1, 2, 0}},
		"past the docs":    {2, []byte{1, 9}},
		"first past":       {1, []byte{10}},
		"count past bytes": {4, []byte{1, 2, 3}},
		"bytes past count": {2, []byte{1, 2, 3}},
		"a long number":    {1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}},
		"a long gap":       {2, []byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}},
		"a cut number":     {2, []byte{1, 0x80}},
		// bitmaps: the first number, then a bit for each from it
		"bitmap of another count": {listBitmap | 3, []byte{0, 0b11}},
		"bitmap first bit clear":  {listBitmap | 1, []byte{0, 0b10}},
		"bitmap last byte zero":   {listBitmap | 1, []byte{0, 1, 0}},
		"bitmap past the docs":    {listBitmap | 2, []byte{9, 0b11}},
		"bitmap first past":       {listBitmap | 1, []byte{10, 1}},
		"bitmap of no bits":       {listBitmap | 1, []byte{0}},
		"bitmap first cut":        {listBitmap | 1, []byte{0x80}},
	} {
		for _, last := range []bool{false, true} {
			dir := t.TempDir()
			writeTestSeg(t, dir, 1, 10, func(sw *segWriter) {
				sw.posting(5, []uint32{0, 1, 9})
				sw.rawPosting(6, b.count, b.bytes)
				if !last {
					sw.posting(7, []uint32{4})
				}
			})
			data, _ := os.ReadFile(filepath.Join(dir, segName(1)))
			mapped, err := parseSegment(1, segName(1), data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mapped.postingsAt(nil, 1); !IsCorrupt(err) {
				t.Fatalf("%s: the mapping gave %v, want a corrupt index", name, err)
			}
			for _, buf := range []int{16, segReadBuf} {
				for _, copied := range []bool{false, true} {
					tc := testCursor(t, dir, buf)
					sw := newSegWriter(io.Discard)
					var err error
					for range 2 {
						if ok, err := tc.next(); !ok || err != nil {
							t.Fatalf("%s: next gave %v, %v", name, ok, err)
						}
						if copied {
							sw.open()
							err = tc.copyPostings(sw, 0)
						} else {
							_, err = tc.postings(nil)
						}
					}
					if err == nil && !last {
						_, err = tc.next() // a list longer than its count ends where the next does not start
					}
					if !IsCorrupt(err) {
						t.Errorf("%s, last %v, buffer %d, copied %v: the merge's reader gave %v, want a corrupt index", name, last, buf, copied, err)
					}
				}
			}
		}
	}
}

// A status's reader of a segment's documents (pread, chunk by chunk) gives
// every document as the mapping does, one straddling two chunks too, and a
// damaged byte of the table, or of the chunk it shares with the postings,
// is a *CorruptError.
func TestEachDocAsTheMapping(t *testing.T) {
	dir := t.TempDir()
	const nDocs = 7000 // a table of 147,000 bytes: three chunks
	writeTestSeg(t, dir, 1, nDocs, func(sw *segWriter) { sw.posting(1, []uint32{0, nDocs - 1}) })
	path := filepath.Join(dir, segName(1))
	good, _ := os.ReadFile(path)
	mapped, err := parseSegment(1, segName(1), good)
	if err != nil {
		t.Fatal(err)
	}
	var got []doc
	if err := eachDoc(dir, 1, func(d doc) { got = append(got, d) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != nDocs {
		t.Fatalf("%d documents, want %d", len(got), nDocs)
	}
	for i, d := range got {
		if d != mapped.doc(uint32(i)) || d != testDoc(i) {
			t.Fatalf("document %d: %+v, the mapping's %+v", i, d, mapped.doc(uint32(i)))
		}
	}
	l := mapped.docsAt + len(mapped.docs)
	for what, b := range map[string][]byte{
		"a byte of the table":         flip(good, headerSize+chunkSize+5),
		"the table's last byte":       flip(good, l-1),
		"a posting in its last chunk": flip(good, l+1),
		"truncated":                   good[:len(good)-3],
	} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := eachDoc(dir, 1, func(doc) {}); !IsCorrupt(err) {
			t.Errorf("%s: %v, want a corrupt index", what, err)
		}
	}
}

func flip(b []byte, at int) []byte {
	b = append([]byte(nil), b...)
	b[at] ^= 0x10
	return b
}
