package searchindex

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomIDs is a random ascending list of numbers below n, dense or
// sparse, not empty.
func randomIDs(r *rand.Rand, n uint32) []uint32 {
	gap := 1 + r.IntN([]int{1, 3, 9, 200}[r.IntN(4)])
	var ids []uint32
	for id := uint32(r.IntN(gap)); id < n; id += uint32(1 + r.IntN(gap)) {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		ids = []uint32{n - 1}
	}
	return ids
}

// A bitmap list gives back the numbers it was made of, and is the shorter
// form exactly when asBitmap says so.
func TestBitmapListRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 2000 {
		n := uint32(1 + r.IntN(5000))
		ids := randomIDs(r, n)
		b := appendBitmap([]byte{0xee}, ids)[1:]
		if len(b) != bitmapLen(ids[0], ids[len(ids)-1]) {
			t.Fatalf("bitmap of %d bytes, bitmapLen %d", len(b), bitmapLen(ids[0], ids[len(ids)-1]))
		}
		first, bits, why := checkBitmap(b, len(ids), uint64(n))
		if why != "" {
			t.Fatalf("%v: %s", ids, why)
		}
		if got := appendBitmapIDs([]uint32{7}, first, bits, 0)[1:]; !slices.Equal(got, ids) {
			t.Fatalf("decoded %v, want %v", got, ids)
		}
		if _, _, why := checkBitmap(b, len(ids)+1, uint64(n)); why == "" {
			t.Fatal("a count one too many passed")
		}
		if _, _, why := checkBitmap(b, len(ids), uint64(ids[len(ids)-1])); why == "" {
			t.Fatal("a number past the documents passed")
		}
	}
}

// A merge's bitmap, its parts set number by number or shifted in from
// bitmap lists at any offset, holds their union, and its list is what
// appendBitmap writes of it.
func TestWordBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 1))
	var wb wordBits
	for range 1000 {
		lo := uint32(r.IntN(1000))
		at := lo
		var want []uint32
		type part struct {
			base uint32
			ids  []uint32
			or   bool
		}
		var parts []part
		for range 1 + r.IntN(5) {
			n := uint32(1 + r.IntN(700))
			parts = append(parts, part{at, randomIDs(r, n), r.IntN(2) == 0})
			at += n + uint32(r.IntN(3))
		}
		wb.reset(lo, at)
		// (earlier use leaves no bit behind)
		for _, p := range parts {
			for _, id := range p.ids {
				want = append(want, p.base+id)
			}
			if p.or {
				b := appendBitmap(nil, p.ids)
				first, bits, why := checkBitmap(b, len(p.ids), 1<<20)
				if why != "" {
					t.Fatal(why)
				}
				wb.or(p.base+first, bits)
			} else {
				for _, id := range p.ids {
					wb.set(p.base + id)
				}
			}
		}
		got, n, last := wb.appendList([]byte{1, 2})
		if want := appendBitmap([]byte{1, 2}, want); !slices.Equal(got, want) {
			t.Fatalf("list %x, want %x", got, want)
		}
		if n != len(want) || last != want[len(want)-1] {
			t.Fatalf("count %d last %d, want %d %d", n, last, len(want), want[len(want)-1])
		}
	}
	wb.reset(5, 900)
	if got, n, _ := wb.appendList(nil); n != 0 || len(got) != 0 {
		t.Fatalf("an empty bitmap appended %x (%d)", got, n)
	}
}

// FuzzBitmapList: any bytes as a bitmap list are an error or numbers that
// are ascending, of the count and below the documents — never a panic.
func FuzzBitmapList(f *testing.F) {
	f.Add([]byte{0, 1}, 1, uint32(10))
	f.Add([]byte{3, 0xff, 0x01}, 9, uint32(12))
	f.Add([]byte{0x80}, 1, uint32(5))
	f.Fuzz(func(t *testing.T, b []byte, n int, nDocs uint32) {
		first, bits, why := checkBitmap(b, n, uint64(nDocs))
		if why != "" {
			return
		}
		ids := appendBitmapIDs(nil, first, bits, 0)
		if len(ids) != n || ids[0] != first {
			t.Fatalf("%d numbers from %d, want %d from %d", len(ids), ids[0], n, first)
		}
		for i, id := range ids {
			if id >= nDocs || (i > 0 && id <= ids[i-1]) {
				t.Fatalf("numbers %v, documents %d", ids, nDocs)
			}
		}
	})
}

// FuzzDecodeBlock: any bytes as a text block of any length decode to that
// length or are refused — never a panic, never more than maxBlockRaw
// bytes — and what encodeBlock wrote decodes to what it was given.
func FuzzDecodeBlock(f *testing.F) {
	f.Add(encodeBlock(nil, []byte("hello hello hello hello")), uint32(23))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, uint32(maxBlockRaw+1))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, z []byte, rlen uint32) {
		if raw, ok := decodeBlock(nil, z, rlen); ok && len(raw) != int(rlen) {
			t.Fatalf("decoded %d bytes, want %d", len(raw), rlen)
		}
		raw, ok := decodeBlock([]byte{1, 2, 3}, encodeBlock(nil, z), uint32(len(z)))
		if len(z) <= maxBlockRaw && (!ok || !bytes.Equal(raw, z)) {
			t.Fatalf("round trip of %d bytes: %v", len(z), ok)
		}
	})
}
