package gateway

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// sessions.delete and sessions.reset send, per protocol, only the fields
// that version takes: expectedSessionId to 9.x only, deleteTranscript
// false to both when the transcript is kept.
func TestDeleteResetParams(t *testing.T) {
	for _, proto := range []int{3, 4} {
		g := newFake(t, proto)
		g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
			switch method {
			case "sessions.delete":
				s.res(id, map[string]any{"ok": true, "key": "agent:main:cron:x", "deleted": true, "archived": []string{"/s/a.jsonl.deleted.1"}})
			case "sessions.reset":
				s.res(id, map[string]any{"ok": true, "key": "agent:main:cron:x", "entry": map[string]any{"sessionId": "new"}})
			}
		}
		c, err := Dial(context.Background(), g.opts())
		if err != nil {
			t.Fatal(err)
		}
		dr, err := c.DeleteSession(context.Background(), "agent:main:cron:x", DeleteParams{KeepTranscript: true, ExpectedSessionID: "old"})
		if err != nil {
			t.Fatal(err)
		}
		if !dr.Deleted || len(dr.Archived) != 1 {
			t.Fatalf("%+v", dr)
		}
		rr, err := c.ResetSession(context.Background(), "agent:main:cron:x", "old")
		if err != nil {
			t.Fatal(err)
		}
		if string(rr.Entry) != `{"sessionId":"new"}` {
			t.Fatalf("entry %s", rr.Entry)
		}
		c.Close()
		var got []map[string]any
		for _, r := range g.reqs() {
			if r.Method != "connect" {
				got = append(got, r.Params)
			}
		}
		want := []map[string]any{
			{"key": "agent:main:cron:x", "deleteTranscript": false},
			{"key": "agent:main:cron:x"},
		}
		if proto >= 4 {
			want[0]["expectedSessionId"] = "old"
			want[1]["expectedSessionId"] = "old"
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("protocol %d sent %v, want %v", proto, got, want)
		}
	}
}
