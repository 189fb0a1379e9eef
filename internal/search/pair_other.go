//go:build !amd64

package search

// pairChunk is pairChunkGeneric where there is no assembly for it.
func pairChunk(s []byte, a, b byte, d int) int { return pairChunkGeneric(s, a, b, d) }
