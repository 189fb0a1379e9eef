package gatewayhost

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// Over a gateway, show counts only the messages chat.history returns: when
// older ones exist it says so (transcript.partial, a warning) instead of
// passing the window's count off as the whole transcript.
func TestShowRemoteSaysWhenTheWindowIsPartial(t *testing.T) {
	for _, more := range []bool{false, true} {
		var logs strings.Builder
		g := &Gateway{Endpoint: gateway.Endpoint{URL: "ws://127.0.0.1:1"}, Warn: func(m string) { logs.WriteString(m + "\n") }}
		sess := &backend.Session{Key: "agent:main:main", SessionID: "s1", Row: state.Row{Key: "agent:main:main"}}
		page := &backend.HistoryPage{WindowFull: more, Messages: []json.RawMessage{
			json.RawMessage(`{"role":"user","content":"a","timestamp":1000}`),
			json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"b"}],"timestamp":2000}`),
		}}
		res := backend.ShowCounted(g.showRemote(sess, page), page)
		if res.Era != "gateway" || res.Store != "ws://127.0.0.1:1" || res.Key != "agent:main:main" || res.Transcript.Messages != 2 {
			t.Fatalf("more=%v: %+v", more, res)
		}
		said := strings.Contains(logs.String(), "last 1000 messages")
		if res.Transcript.Partial != more || said != more {
			t.Errorf("more=%v: partial=%v, warnings=%q", more, res.Transcript.Partial, logs.String())
		}
	}
}
