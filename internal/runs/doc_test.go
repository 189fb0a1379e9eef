package runs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil/docjson"
)

// TestDocKeepsTheStoredJSON: the documents of a run and of its lineage
// (internal/rundoc, what ops hands out) marshal byte for byte as the
// records do, every field set — a field the record gains and the document
// lacks fails here. The one exception is a run's Gateway: the selector its
// runner resolves its gateway with is the runner's input, not part of what
// runs and wait show.
func TestDocKeepsTheStoredJSON(t *testing.T) {
	var rec Record
	docjson.Fill(reflect.ValueOf(&rec).Elem(), 3)
	if b, _ := json.Marshal(Doc(&rec)); strings.Contains(string(b), `"gateway":`) {
		t.Errorf("a run's document shows the runner's gateway selector: %s", b)
	}
	rec.Gateway = nil
	docjson.SameJSON(t, "run", &rec, Doc(&rec))

	var tree []*Node
	docjson.Fill(reflect.ValueOf(&tree).Elem(), 4)
	docjson.SameJSON(t, "lineage", tree, NodeDocs(tree))
}
