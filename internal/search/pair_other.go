//go:build !amd64

package search

// pairChunk is pair_amd64.s in Go: the offset of the first 16-byte chunk
// (offsets 0, 16, …) whose 16+d bytes lie inside s and that holds a
// position i with s[i] == a and s[i+d] == b; -1 when none does.
func pairChunk(s []byte, a, b byte, d int) int {
	for off := 0; off+16+d <= len(s); off += 16 {
		for i := off; i < off+16; i++ {
			if s[i] == a && s[i+d] == b {
				return off
			}
		}
	}
	return -1
}
