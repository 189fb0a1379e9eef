package search

import (
	"bytes"
	"testing"

	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
)

// TestWriteJSONLikePrintJSON: the streamed document is byte for byte what
// the one-document printer writes, with and without hits and context, and
// partial or not.
func TestWriteJSONLikePrintJSON(t *testing.T) {
	ts := int64(1795236215141)
	hits := []ops.SearchHit{
		{Key: "main", Kind: "main", AgentID: "main", SessionID: "s1", ID: "a1", Role: "user", Timestamp: &ts,
			Snippet: "x <b> & \"q\" \u2028 é", Match: "<b>", Source: "transcript",
			Context: &ops.SearchContext{Before: []ops.SearchContextMessage{{ID: "a0", Role: "assistant", Text: "t\nu"}}, After: []ops.SearchContextMessage{}}},
		{AgentID: "ops", SessionID: "s2", Role: "tool", Snippet: "y", Match: "y", Source: "events", Archived: "s2.jsonl.deleted.x"},
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5} {
		partial := n > 2 // a masked search that spent its budget
		n := n % 3
		doc := &ops.SearchResult{Count: n, TotalCount: 5, HasMore: true, Partial: partial, Hits: hits[:n]}
		var want, got bytes.Buffer
		if err := output.JSON(&want, doc); err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(&got, doc, n, func(i int) ops.SearchHit { return hits[i] }); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%d hits:\ngot\n%s\nwant\n%s", n, got.String(), want.String())
		}
	}
}
