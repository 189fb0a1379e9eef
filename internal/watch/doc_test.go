package watch

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/state"
)

// TestDocs: over a fleet an event and its row say the source's context;
// a message is shortened to its first line after the mask has seen it.
func TestDocs(t *testing.T) {
	now := time.Unix(1700000000, 0)
	evs := []Event{
		{Kind: Updated, ID: ID{Agent: "main", Key: "agent:main:main"}, Fields: []string{"label"}, Row: &state.Row{Key: "agent:main:main"}},
		{Kind: Message, ID: ID{Agent: "main", Key: "agent:main:main"}, Msg: json.RawMessage(`{"role":"user","id":"m1","content":"secret here\nsecond line"}`)},
	}
	masked := 0
	mask := func(msgs []json.RawMessage) {
		masked++
		msgs[0] = json.RawMessage(`{"role":"user","id":"m1","content":"*** here\nsecond line"}`)
	}
	docs := Docs(evs, "prod", true, now, mask)
	if len(docs) != 2 || docs[0].Context != "prod" || docs[0].Session == nil || docs[0].Session.Context != "prod" || !docs[0].Time.Equal(now) {
		t.Fatalf("fleet docs: %+v", docs)
	}
	if m := docs[1].Message; masked != 1 || m == nil || m.Text != "*** here second line" || m.ID != "m1" || m.Role != "user" {
		t.Fatalf("message: %+v (masked %d times)", docs[1].Message, masked)
	}
	if one := Docs(evs[:1], "prod", false, now, nil); one[0].Context != "" || one[0].Session.Context != "" {
		t.Errorf("not a fleet, yet a context: %+v", one[0])
	}
}
