package sanitize

import (
	"strings"
	"sync"
)

// litGate finds, in one pass over a lower-cased text, which of the
// patterns' required literals it holds, and from them which patterns can
// match at all: checking each pattern's literals with strings.Contains cost
// a pass per literal (155 of them), which an agent's search pays on every
// message it matches.
//
// The pass looks at each position once: a one-byte literal by a table, a
// longer one only where its first two bytes stand (a 64 Kbit set of the
// literals' first byte pairs rules out almost every position of ordinary
// text). The patterns are then found from the literals found (an inverse
// index), never by walking every pattern's lists.
type litGate struct {
	lits   []string
	single [256]int32           // the one-byte literal of each byte, or -1
	pairs  [1 << 16 / 64]uint64 // the first two bytes of the longer literals
	byPair map[uint16][]int32   // the longer literals by their first two bytes

	// the inverse index: the patterns whose lits hold a literal, and the
	// need groups (numbered across patterns) that hold it
	litPatterns [][]int32
	litGroups   [][]int32
	groupOf     []int32 // each group's pattern
	groups      int

	pool sync.Pool // *gateScratch
}

// gatedPattern is where a pattern's literals and needs are in the gate.
type gatedPattern struct {
	lits []int32   // one of these must be held (none: no condition)
	need [][]int32 // and one of each of these
}

// buildGate indexes the literals of r's patterns. A pattern with an empty
// literal has no condition (it is always run), as containsAny would pass it.
func (r *Redactor) buildGate() {
	g := &litGate{byPair: map[uint16][]int32{}}
	for i := range g.single {
		g.single[i] = -1
	}
	index := map[string]int32{}
	id := func(s string) int32 {
		if i, ok := index[s]; ok {
			return i
		}
		i := int32(len(g.lits))
		index[s] = i
		g.lits = append(g.lits, s)
		g.litPatterns = append(g.litPatterns, nil)
		g.litGroups = append(g.litGroups, nil)
		if len(s) == 1 {
			g.single[s[0]] = i
		} else {
			k := uint16(s[0])<<8 | uint16(s[1])
			g.pairs[k/64] |= 1 << (k % 64)
			g.byPair[k] = append(g.byPair[k], i)
		}
		return i
	}
	ids := func(list []string) []int32 {
		out := make([]int32, 0, len(list))
		for _, s := range list {
			if s == "" {
				return nil
			}
			out = append(out, id(s))
		}
		return out
	}
	r.gated = make([]gatedPattern, len(r.patterns))
	for i, p := range r.patterns {
		if len(p.literals) > 0 {
			r.gated[i].lits = ids(p.literals)
			for _, li := range r.gated[i].lits {
				g.litPatterns[li] = appendOnce(g.litPatterns[li], int32(i))
			}
		}
		for _, any := range p.need {
			l := ids(any)
			if l == nil {
				continue // an empty string is in every text: no condition
			}
			r.gated[i].need = append(r.gated[i].need, l)
			for _, li := range l {
				g.litGroups[li] = appendOnce(g.litGroups[li], int32(g.groups))
			}
			g.groupOf = append(g.groupOf, int32(i))
			g.groups++
		}
	}
	r.gate = g
}

func appendOnce(list []int32, v int32) []int32 {
	if n := len(list); n > 0 && list[n-1] == v {
		return list
	}
	return append(list, v)
}

// gateScratch is one pass's working memory (pooled: Redact runs on every
// message an agent's search lets through).
type gateScratch struct {
	found  []bool  // per literal
	litsOK []bool  // per pattern: one of its lits is held
	needs  []int32 // per pattern: how many of its need groups are held
	group  []bool  // per group: held
}

func (g *litGate) get(patterns int) *gateScratch {
	if s, ok := g.pool.Get().(*gateScratch); ok {
		return s
	}
	bools := make([]bool, len(g.lits)+patterns+g.groups)
	return &gateScratch{
		found:  bools[:len(g.lits)],
		litsOK: bools[len(g.lits) : len(g.lits)+patterns],
		group:  bools[len(g.lits)+patterns:],
		needs:  make([]int32, patterns),
	}
}

// scan finds the literals lower holds and marks, per pattern, whether one
// of its lits is held and how many of its need groups are.
func (g *litGate) scan(lower string, s *gateScratch) {
	clear(s.found)
	clear(s.litsOK)
	clear(s.group)
	clear(s.needs)
	mark := func(li int32) {
		if s.found[li] {
			return
		}
		s.found[li] = true
		for _, p := range g.litPatterns[li] {
			s.litsOK[p] = true
		}
		for _, gr := range g.litGroups[li] {
			if !s.group[gr] {
				s.group[gr] = true
				s.needs[g.groupOf[gr]]++
			}
		}
	}
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if li := g.single[c]; li >= 0 {
			mark(li)
		}
		if i+1 == len(lower) {
			break
		}
		k := uint16(c)<<8 | uint16(lower[i+1])
		if g.pairs[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, li := range g.byPair[k] {
			if !s.found[li] && strings.HasPrefix(lower[i:], g.lits[li]) {
				mark(li)
			}
		}
	}
}

// may reports whether pattern i can match the text last scanned: one of
// its literals and one of each of its needs are in it.
func (s *gateScratch) may(i int, g *gatedPattern) bool {
	return (len(g.lits) == 0 || s.litsOK[i]) && int(s.needs[i]) == len(g.need)
}
