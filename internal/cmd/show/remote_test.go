package show

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/state"
)

// window is a gateway whose chat.history window holds the session's last
// messages only (full: as many as chat.history ever returns).
type window struct{ full bool }

func (w window) Session(context.Context, string, string) (*backend.Session, error) {
	return &backend.Session{Key: "agent:main:main", SessionID: "s1", Row: state.Row{Key: "agent:main:main"}}, nil
}

func (w window) History(context.Context, *backend.Session, backend.HistoryQuery) (*backend.HistoryPage, error) {
	return &backend.HistoryPage{WindowFull: w.full, Messages: []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"a","timestamp":1000}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"b"}],"timestamp":2000}`),
	}}, nil
}

func (w window) Follow(context.Context, *backend.Session, backend.FollowQuery, func([]json.RawMessage) error) error {
	return nil
}

// Over a gateway, show counts only the messages chat.history returns: when
// older ones exist it says so (transcript.partial, a line on stderr)
// instead of passing the window's count off as the whole transcript.
func TestRemoteShowSaysWhenTheWindowIsPartial(t *testing.T) {
	for _, more := range []bool{false, true} {
		var logs bytes.Buffer
		o := &Options{f: &cmdutil.Factory{Log: log.New(&logs)}, Ref: "main"}
		res, err := buildRemote(o, window{full: more}, "ws://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		if res.Transcript.Messages != 2 || res.Transcript.FirstMessageAt != 1000 {
			t.Fatalf("more=%v: transcript %+v", more, res.Transcript)
		}
		said := strings.Contains(logs.String(), "last 1000 messages")
		if res.Transcript.Partial != more || said != more {
			t.Errorf("more=%v: partial=%v, stderr=%q", more, res.Transcript.Partial, logs.String())
		}
	}
}
