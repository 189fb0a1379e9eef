package search

// pairChunk is in pair_amd64.s.
//
//go:noescape
func pairChunk(s []byte, a, b byte, d int) int
