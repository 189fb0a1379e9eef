package rowjson

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// doc is Doc as encoding/json sees it (the listing's JSON names).
type doc struct {
	Count        int         `json:"count"`
	TotalCount   int         `json:"totalCount"`
	LimitApplied *int        `json:"limitApplied"`
	HasMore      bool        `json:"hasMore"`
	Sessions     []state.Row `json:"sessions"`
}

// reference is what encoding/json (the CLI's PrintJSON) prints for res.
func reference(t testing.TB, res Doc) string {
	b, err := jsonx.MarshalIndent(doc(res))
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// pieces is a writer that keeps what each Write gave.
type pieces [][]byte

func (p *pieces) Write(b []byte) (int, error) {
	*p = append(*p, bytes.Clone(b))
	return len(b), nil
}

// writeList is WriteList's document, written in pieces of about flush
// bytes, with the pieces: each but the last is at least flush bytes long.
func writeList(t testing.TB, res Doc, flush int) []byte {
	defer func(old int) { flushAt = old }(flushAt)
	flushAt = flush
	var p pieces
	if err := WriteList(&p, res); err != nil {
		t.Fatal(err)
	}
	for i, b := range p[:max(len(p)-1, 0)] {
		if len(b) < flush {
			t.Fatalf("piece %d of %d is %d bytes, under %d", i, len(p), len(b), flush)
		}
	}
	return bytes.Join(p, nil)
}

func checkJSON(t testing.TB, res Doc) {
	got, err := AppendList(nil, res)
	if err != nil {
		t.Fatal(err)
	}
	// WriteList writes the same bytes, whatever its pieces
	for _, flush := range []int{1, 7, 300, flushAt} {
		if w := writeList(t, res, flush); !bytes.Equal(w, got) {
			t.Fatalf("WriteList (pieces of %d) differs from AppendList:\n got %s\nwant %s", flush, w, got)
		}
	}
	want := reference(t, res)
	for _, r := range res.Sessions {
		if len(r.Messages) > 0 {
			// Messages are written as they are (one compact line each), not
			// re-indented: the documents must be equal, not the bytes.
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("AppendList wrote invalid JSON: %v\n%s", err, got)
			}
			if err := json.Unmarshal([]byte(want), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("AppendList differs from encoding/json:\n got %s\nwant %s", got, want)
			}
			return
		}
	}
	if string(got) != want {
		t.Fatalf("AppendList differs from encoding/json:\n got %s\nwant %s", got, want)
	}
}

func fp(v float64) *float64 { return &v }
func bp(v bool) *bool       { return &v }
func ip(v int) *int         { return &v }

// TestRowFieldsKnown: AppendList is used only while state.Row has
// exactly the fields appendRow knows; when Row changes, update appendRow and
// rowJSONFields (until then rows go through encoding/json, only slower).
func TestRowFieldsKnown(t *testing.T) {
	if !rowFieldsOK {
		t.Fatalf("state.Row fields %v, appendRow writes %v", jsonFields(reflectRow(), ""), rowJSONFields)
	}
}

func TestPrintJSONMatchesEncoder(t *testing.T) {
	checkJSON(t, Doc{Count: 0, Sessions: []state.Row{}})
	full := state.Row{
		Key: "agent:main:signal:group:abc", Kind: "group", Channel: "signal", AgentID: "main",
		Label: "l\"a\\b\nel", DisplayName: "<d&n> \u2028 \u2029 \x7f \x01 \t \b \f \r é 😀 \xff\xfe",
		UpdatedAt: fp(1795236254224), SessionID: "ae601eb7-ceae-4d11-b896-102fd9dddff6", Model: "mock-1",
		ContextTokens: fp(128000), TotalTokens: fp(0), ThinkingLevel: "low", VerboseLevel: "on",
		SystemSent: bp(true), AbortedLastRun: bp(false), SendPolicy: "deny", SpawnedBy: "agent:main:main",
		LastChannel: "signal", LastTo: "group:x", TranscriptPath: "/s/a.jsonl",
		DeliveryContext: &store.DeliveryContext{Channel: "signal", To: "group:x", AccountID: "default"},
	}
	rows := []state.Row{
		full,
		{Key: "main", Kind: "main", Channel: "unknown", AgentID: "main"},
		{Key: "k", Kind: "other", Channel: "", AgentID: "", DeliveryContext: &store.DeliveryContext{}},
		{Key: "k2", Kind: "other", Channel: "c", AgentID: "a", DeliveryContext: &store.DeliveryContext{To: "+1"},
			UpdatedAt: fp(-0.0), TotalTokens: fp(1e21), ContextTokens: fp(1e-7)},
		{Key: "k3", Kind: "cron", Channel: "internal", AgentID: "ops", UpdatedAt: fp(0.1), TotalTokens: fp(123456789012345678),
			ContextTokens: fp(-1.5e-300), Messages: []json.RawMessage{
				json.RawMessage(`{"role":"user", "content":[{"type":"text","text":"<hi> & \u2028"}]}`),
				json.RawMessage(`{ "role" : "assistant" , "content" : [ ] , "x" : { } }`),
			}},
	}
	checkJSON(t, Doc{Count: len(rows), TotalCount: len(rows), LimitApplied: ip(200), Sessions: rows})
	checkJSON(t, Doc{Count: 1, TotalCount: 311, LimitApplied: ip(1), HasMore: true, Sessions: rows[:1]})
	checkJSON(t, Doc{Count: 1, TotalCount: 1, LimitApplied: nil, Sessions: rows[:1]})
	// An invalid message makes the row go through encoding/json, which refuses it.
	bad := rows[4]
	bad.Messages = []json.RawMessage{json.RawMessage(`{"role":`)}
	if _, err := AppendList(nil, Doc{Count: 1, Sessions: []state.Row{bad}}); err == nil {
		t.Error("an invalid message was written")
	}
	// WriteList refuses it before writing anything, even after good rows
	var p pieces
	old := flushAt
	flushAt = 1
	err := WriteList(&p, Doc{Count: 3, Sessions: []state.Row{rows[0], rows[1], bad}})
	flushAt = old
	if err == nil || len(p) != 0 {
		t.Errorf("WriteList of an invalid message: %v, %d pieces written", err, len(p))
	}
	for _, f := range []float64{1, -1, 5e-324, math.MaxFloat64, 1e20, 999999999999999999999, 1e-6, 9.99e-7, 0.000001234, 1795236254224.5} {
		checkJSON(t, Doc{Count: 1, Sessions: []state.Row{{Key: "f", UpdatedAt: fp(f), TotalTokens: fp(-f)}}})
	}
}

func FuzzAppendList(f *testing.F) {
	f.Add("agent:main:x", "label", "\u2028\xff\"\\", 1795236254224.0, 0.5, true)
	f.Add("", "", "", 0.0, -1e-7, false)
	f.Fuzz(func(t *testing.T, key, label, to string, updated, tokens float64, sent bool) {
		r := state.Row{Key: key, Kind: "other", Channel: to, AgentID: label, Label: label, LastTo: to,
			UpdatedAt: &updated, TotalTokens: &tokens, SystemSent: &sent,
			DeliveryContext: &store.DeliveryContext{To: to, AccountID: key}}
		if !finite(r.UpdatedAt) || !finite(r.TotalTokens) {
			return // Encodable leaves these to encoding/json (which refuses them)
		}
		var limit *int
		if total := int(tokens); total > 0 && total < 1e6 {
			limit = &total
		}
		checkJSON(t, Doc{Count: 2, TotalCount: int(updated) & 0xffff, LimitApplied: limit, HasMore: sent, Sessions: []state.Row{r, r}})
	})
}

func reflectRow() reflect.Type { return reflect.TypeFor[state.Row]() }
