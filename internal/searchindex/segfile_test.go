package searchindex

import (
	"encoding/binary"
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
	binary.LittleEndian.PutUint32(e[11:], uint32(count))
	s.tab = append(s.tab, e[:]...)
	s.nTris++
	s.post = append(s.post, b...)
	s.n += int64(len(b))
}

// writeTestSeg writes segment id of dir: nDocs documents, then the posting
// lists post writes.
func writeTestSeg(t *testing.T, dir string, id uint32, nDocs int, post func(sw *segWriter)) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, segName(id)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sw := newSegWriter(f)
	for d := range nDocs {
		sw.doc(doc{src: 1, pos: int64(d)})
	}
	post(sw)
	for range nDocs {
		sw.record(appendRecord(nil, "m", "text", "text"))
	}
	if err := sw.finish(); err != nil {
		t.Fatal(err)
	}
}

// A merge's reader of posting lists (a pread cursor, decoding what its
// buffer holds at once) gives every list as the mapped segment a query
// reads does, numbers plus the merge's offset, whatever its buffer's size
// and wherever a number straddles the buffer's end.
func TestTriCursorPostingsAsTheMapping(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 11))
	const nDocs = 70000 // numbers of up to three varint bytes
	var lists [][]uint32
	writeTestSeg(t, dir, 1, nDocs, func(sw *segWriter) {
		for tri := range trigram(400) {
			var ids []uint32
			gap := 1 + r.IntN([]int{2, 300, 40000}[r.IntN(3)])
			for id := r.IntN(gap); id < nDocs && len(ids) < 200; id += 1 + r.IntN(gap) {
				ids = append(ids, uint32(id))
			}
			if len(ids) == 0 {
				ids = []uint32{nDocs - 1}
			}
			lists = append(lists, ids)
			sw.posting(tri*37, ids)
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
		sf, err := openSegFile(dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		sf.buf = buf
		tc := sf.trigrams()
		var got []uint32
		for i := 0; ; i++ {
			ok, err := tc.next()
			if err != nil {
				t.Fatalf("buffer %d: entry %d: %v", buf, i, err)
			}
			if !ok {
				if i != len(lists) {
					t.Fatalf("buffer %d: %d entries, want %d", buf, i, len(lists))
				}
				break
			}
			add := uint32(i * 1000)
			if got, err = tc.postings(got[:0], add); err != nil {
				t.Fatalf("buffer %d: list %d: %v", buf, i, err)
			}
			want, err := mapped.postingsAt(nil, i)
			if err != nil {
				t.Fatal(err)
			}
			for j := range want {
				want[j] += add
			}
			if !slices.Equal(got, want) || len(want) != len(lists[i]) {
				t.Fatalf("buffer %d: list %d: %v, want %v", buf, i, got, want)
			}
		}
		sf.Close()
	}
}

// A posting list whose checksums hold but whose numbers do not — a zero
// gap, a number past the documents, a count past its bytes, a number of
// more than ten bytes — is a *CorruptError from the merge's reader, as
// from the mapping, whatever the buffer.
func TestTriCursorPostingsDamaged(t *testing.T) {
	for name, b := range map[string]struct {
		count int
		bytes []byte
	}{
		"zero gap":         {3, []byte{1, 2, 0}},
		"past the docs":    {2, []byte{1, 9}},
		"count past bytes": {4, []byte{1, 2, 3}},
		"a long number":    {1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}},
		"a cut number":     {2, []byte{1, 0x80}},
	} {
		for _, buf := range []int{16, segReadBuf} {
			dir := t.TempDir()
			writeTestSeg(t, dir, 1, 10, func(sw *segWriter) {
				sw.posting(5, []uint32{0, 1, 9})
				sw.rawPosting(6, b.count, b.bytes)
			})
			data, _ := os.ReadFile(filepath.Join(dir, segName(1)))
			mapped, err := parseSegment(1, segName(1), data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mapped.postingsAt(nil, 1); !IsCorrupt(err) {
				t.Fatalf("%s: the mapping gave %v, want a corrupt index", name, err)
			}
			sf, err := openSegFile(dir, 1)
			if err != nil {
				t.Fatal(err)
			}
			sf.buf = buf
			tc := sf.trigrams()
			var got []uint32
			for range 2 {
				if ok, err := tc.next(); !ok || err != nil {
					t.Fatalf("%s: next gave %v, %v", name, ok, err)
				}
				got, err = tc.postings(got[:0], 0)
			}
			if !IsCorrupt(err) {
				t.Errorf("%s, buffer %d: the merge's reader gave %v (%v), want a corrupt index", name, buf, err, got)
			}
			sf.Close()
		}
	}
}
