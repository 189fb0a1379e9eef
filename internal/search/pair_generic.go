package search

// pairChunkGeneric is pair_amd64.s in Go: the offset of the first 16-byte
// chunk (offsets 0, 16, …) whose 16+d bytes lie inside s and that holds a
// position i with s[i] == a and s[i+d] == b (d >= 1); -1 when none does.
// It is pairChunk off amd64, and compiled (and fuzzed against the assembly
// and a naive oracle, FuzzPairChunk) everywhere, so that it cannot rot
// unseen on the platform most of the tests run on.
func pairChunkGeneric(s []byte, a, b byte, d int) int {
	for off := 0; off+16+d <= len(s); off += 16 {
		for i := off; i < off+16; i++ {
			if s[i] == a && s[i+d] == b {
				return off
			}
		}
	}
	return -1
}
