package sanitize

import "strings"

// litGate finds, in one pass over a lower-cased text, which of the
// patterns' required literals it holds: checking each pattern's literals
// with strings.Contains cost a pass per literal (over 300 of them), which
// an agent's search pays on every message it matches.
type litGate struct {
	lits  []string
	first [256][]int32 // the literals by their first byte
}

// gatedPattern is where a pattern's literals and needs are in the gate.
type gatedPattern struct {
	lits []int32   // one of these must be held (none: no condition)
	need [][]int32 // and one of each of these
}

// buildGate indexes the literals of r's patterns. A pattern with an empty
// literal has no condition (it is always run), as containsAny would pass it.
func (r *Redactor) buildGate() {
	g := &litGate{}
	index := map[string]int32{}
	id := func(s string) int32 {
		if i, ok := index[s]; ok {
			return i
		}
		i := int32(len(g.lits))
		index[s] = i
		g.lits = append(g.lits, s)
		g.first[s[0]] = append(g.first[s[0]], i)
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
		}
		for _, any := range p.need {
			if l := ids(any); l != nil {
				r.gated[i].need = append(r.gated[i].need, l)
			} else {
				// an empty string is in every text: no condition
				continue
			}
		}
	}
	r.gate = g
}

// scan marks in found (one per literal) those lower holds.
func (g *litGate) scan(lower string, found []bool) {
	clear(found)
	for i := 0; i < len(lower); i++ {
		for _, li := range g.first[lower[i]] {
			if !found[li] && strings.HasPrefix(lower[i:], g.lits[li]) {
				found[li] = true
			}
		}
	}
}

func anyFound(found []bool, ids []int32) bool {
	for _, i := range ids {
		if found[i] {
			return true
		}
	}
	return false
}
