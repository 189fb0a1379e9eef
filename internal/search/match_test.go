package search

import (
	"math/rand/v2"
	"testing"
)

// naiveEsc is escIndex position by position.
func naiveEsc(s []byte) int {
	for i := range s {
		if isEsc(s, i) {
			return i
		}
	}
	return -1
}

// naivePair is pairChunk's contract position by position: the chunk of
// the first pair, if that chunk is whole (16+d bytes inside s; a later
// chunk is not whole either when this one is not).
func naivePair(s []byte, a, b byte, d int) int {
	for i := 0; i+d < len(s); i++ {
		if s[i] == a && s[i+d] == b {
			if off := i / 16 * 16; off+16+d <= len(s) {
				return off
			}
			return -1
		}
	}
	return -1
}

func TestEscIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []byte(`\u0027a"x`)
	for n := 0; n < 3000; n++ {
		s := make([]byte, r.IntN(80))
		for i := range s {
			s[i] = alpha[r.IntN(len(alpha))]
		}
		if got, want := escIndex(s), naiveEsc(s); got != want {
			t.Fatalf("escIndex(%q) = %d, want %d", s, got, want)
		}
		for d := 1; d < 20; d++ {
			want := naivePair(s, '\\', 'u', d)
			if got := pairChunk(s, '\\', 'u', d); got != want {
				t.Fatalf("pairChunk(%q, %d) = %d, want %d", s, d, got, want)
			}
			if got := pairChunkGeneric(s, '\\', 'u', d); got != want {
				t.Fatalf("pairChunkGeneric(%q, %d) = %d, want %d", s, d, got, want)
			}
		}
	}
	for _, c := range []struct {
		s    string
		want int
	}{
		{`abc\u0061`, 3}, {`abc\\u0061`, -1}, {`\\\u0041`, 2}, {`\u001b\u0020`, 6}, {`\u00`, -1}, {`\u0080`, -1},
	} {
		if got := escIndex([]byte(c.s)); got != c.want {
			t.Errorf("escIndex(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestPrefilterIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := []byte("abAB k\"x")
	for n := 0; n < 5000; n++ {
		s := make([]byte, r.IntN(60))
		for i := range s {
			s[i] = alpha[r.IntN(len(alpha))]
		}
		lit := make([]byte, 1+r.IntN(3))
		for i := range lit {
			lit[i] = alpha[r.IntN(4)]
		}
		for _, fold := range []bool{false, true} {
			p := newPrefilter(string(lit), fold)
			want := -1
			for i := 0; i+len(p.needle) <= len(s); i++ {
				if p.equal(s[i : i+len(p.needle)]) {
					want = i
					break
				}
			}
			if got := p.index(s); got != want {
				t.Fatalf("index(%q, %q, fold=%v) = %d, want %d", s, p.needle, fold, got, want)
			}
		}
	}
}

// FuzzPairChunk holds pairChunk (the SSE2 assembly on amd64) and
// pairChunkGeneric (pairChunk elsewhere) to the naive oracle, on any bytes,
// pair and distance.
func FuzzPairChunk(f *testing.F) {
	f.Add([]byte(`abc\u0061 and more than sixteen bytes \u0062 of text to fill a chunk or four`), byte('\\'), byte('u'), uint8(1))
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefxy"), byte('x'), byte('y'), uint8(1))
	f.Add([]byte("a...............................................................b"), byte('a'), byte('b'), uint8(66))
	f.Add([]byte("kelvin Kelvin KELVIN kelvin build"), byte('k'), byte('v'), uint8(3))
	f.Fuzz(func(t *testing.T, s []byte, a, b byte, dist uint8) {
		d := 1 + int(dist)%80
		want := naivePair(s, a, b, d)
		if got := pairChunk(s, a, b, d); got != want {
			t.Fatalf("pairChunk(%q, %q, %q, %d) = %d, want %d", s, a, b, d, got, want)
		}
		if got := pairChunkGeneric(s, a, b, d); got != want {
			t.Fatalf("pairChunkGeneric(%q, %q, %q, %d) = %d, want %d", s, a, b, d, got, want)
		}
	})
}
