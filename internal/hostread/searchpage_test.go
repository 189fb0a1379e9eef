package hostread

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/openclaw/sessions/internal/searchindex"
)

// TestFirstMatchedIsTheSortedPage: the page selected without sorting every
// candidate (firstMatched) is the first limit matched candidates of all of
// them sorted in hit order (inHitOrder), ties of timestamps included, and
// the count is every matched one.
func TestFirstMatchedIsTheSortedPage(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	for round := range 300 {
		want := map[int][]searchindex.Candidate{}
		for src := range 1 + r.IntN(30) {
			if r.IntN(4) == 0 {
				continue
			}
			var cs []searchindex.Candidate
			pos := int64(0)
			for range r.IntN(40) {
				pos += 1 + r.Int64N(100)
				cs = append(cs, searchindex.Candidate{Pos: pos, Timestamp: r.Int64N(20), Matched: r.IntN(3) > 0})
			}
			want[src*3] = cs
		}
		limit := 1 + r.IntN(25)
		var sorted []keptCand
		total := 0
		for _, a := range inHitOrder(want) {
			if a.c.Matched {
				total++
				if len(sorted) < limit {
					sorted = append(sorted, a)
				}
			}
		}
		got, n := firstMatched(want, limit)
		if n != total || fmt.Sprint(got) != fmt.Sprint(sorted) {
			t.Fatalf("round %d, limit %d: %d matched, page %v; want %d, %v", round, limit, n, got, total, sorted)
		}
	}
}
