package searchindex

import "github.com/openclaw/sessions/internal/search"

// Positions says where sources are in the slice the index last weighed or
// updated, by SourceID: what a search needs to place the few sources that
// have candidates (Result.Sources, Result.Scan, Stats.Failed) without a
// SourceID made and looked up for each of the thousands that have none.
type Positions struct {
	first map[string]int32
	more  map[string][]int32 // the duplicates' (two entries naming one transcript), after first
}

// Each calls fn with every position of the source id, in increasing
// order: none when no source of the slice is id.
func (p *Positions) Each(id string, fn func(i int)) {
	i, ok := p.first[id]
	if !ok {
		return
	}
	fn(int(i))
	for _, i := range p.more[id] {
		fn(int(i))
	}
}

// Positions returns where the sources of srcs are, when srcs is the very
// slice the last Backlog or Update of ix was given (and left unchanged
// since, as both ask): false for any other. It is made once per plan of
// the sources (a long-lived process listing the same sources again
// makes it once), with no SourceID made: the plan has them.
func (ix *Index) Positions(srcs []search.Source) (*Positions, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	p := &ix.known
	if len(srcs) == 0 || ix.knownOf != sliceOf(srcs) || len(p.keys) != len(srcs) {
		return nil, false
	}
	if p.pos == nil {
		pos := &Positions{first: make(map[string]int32, len(p.ids))}
		for k, id := range p.ids {
			pos.first[id] = int32(p.order[k])
		}
		for _, d := range p.dups {
			if pos.more == nil {
				pos.more = map[string][]int32{}
			}
			id := p.ids[d.k]
			pos.more[id] = append(pos.more[id], d.pos) // planOf adds them in increasing order
		}
		p.pos = pos
	}
	return p.pos, true
}
