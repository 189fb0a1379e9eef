package sanitize

// Beyond 9.6: a secret across a chunk edge. On a text over chunkThreshold
// characters 9.6 runs most patterns chunk by chunk, so a token, or a key
// and its value, straddling a 16384-character edge is matched in neither
// chunk and handed out whole. After the chunked pass, each such pattern is
// also run on the whole text, and its matches that cross an edge
// (start before it, end after it) are masked as well. Where no match
// crosses an edge the output is 9.6's, byte for byte.
//
// The window of this second pass is not bounded: most default patterns
// have no longest match (`ghp_[A-Za-z0-9]{10,}`, `\s*` around an `=`), and
// a window of W characters on each side of an edge would find a token
// longer than W truncated, masked in part and shown in part. The whole
// text costs one more linear pass per pattern the literal gate lets run,
// on long texts only; a token longer than a chunk, across two edges, is
// masked whole.

// edgeEdits are the replacements of the matches of p in the whole text s
// that cross one of the edges cuts.
func edgeEdits(p redactPattern, s string, cuts []int) []edit {
	locs := p.findAll(s)
	crossing := locs[:0]
	k := 0
	for _, loc := range locs {
		for k < len(cuts) && cuts[k] <= loc[0] {
			k++
		}
		if k < len(cuts) && cuts[k] < loc[1] {
			crossing = append(crossing, loc)
		}
	}
	return p.appendEdits(nil, s, crossing, 0)
}

// mergeEdgeEdits adds the edge edits to the chunks' edits (both in order,
// neither overlapping itself). An edge edit wins over the chunk edits it
// overlaps; should one of them reach outside it (a chunk's match ending
// past the whole text's), the edge edit grows to cover both, masked whole.
func mergeEdgeEdits(s string, chunks, edges []edit) []edit {
	if len(edges) == 0 {
		return chunks
	}
	out := make([]edit, 0, len(chunks)+len(edges))
	i := 0
	for _, e := range edges {
		for i < len(chunks) && chunks[i].end <= e.start {
			out = append(out, chunks[i])
			i++
		}
		start, end := e.start, e.end
		for i < len(chunks) && chunks[i].start < e.end {
			start, end = min(start, chunks[i].start), max(end, chunks[i].end)
			i++
		}
		// a chunk edit kept before may reach into this one
		for len(out) > 0 && out[len(out)-1].end > start {
			start = min(start, out[len(out)-1].start)
			out = out[:len(out)-1]
		}
		if start != e.start || end != e.end {
			e = edit{start, end, maskToken(s[start:end])}
		}
		out = append(out, e)
	}
	out = append(out, chunks[i:]...)
	return out
}
