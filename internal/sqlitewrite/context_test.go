package sqlitewrite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func ev(typ, id, parent, extra string) []byte {
	p := fmt.Sprintf(`,"parentId":%q`, parent)
	switch parent {
	case "":
		p = `,"parentId":null`
	case "-":
		p = ""
	}
	return []byte(fmt.Sprintf(`{"type":%q,"id":%q%s,"timestamp":"2026-11-23T12:00:00.000Z"%s}`, typ, id, p, extra))
}

func msgEv(id, parent, role, text string) []byte {
	return ev("message", id, parent, fmt.Sprintf(`,"message":{"role":%q,"content":[{"type":"text","text":%q}]}`, role, text))
}

const ctxHeader = `{"type":"session","version":4,"id":"s1","timestamp":"2026-11-23T12:00:00.000Z","cwd":"/"}`

// texts renders the context as role:text, comma-separated.
func texts(ms [][]byte) string {
	var out []string
	for _, m := range ms {
		r := gjson.ParseBytes(m)
		t := r.Get("content.0.text").String()
		if r.Get("content").Type == gjson.String {
			t = r.Get("content").String()
		}
		out = append(out, r.Get("role").String()+":"+t)
	}
	return strings.Join(out, ",")
}

func TestContextMessages(t *testing.T) {
	cases := []struct {
		name   string
		events [][]byte
		want   string
	}{
		{"linear", [][]byte{[]byte(ctxHeader),
			ev("model_change", "m1", "", `,"provider":"p","modelId":"x"`),
			msgEv("u1", "m1", "user", "q1"), msgEv("a1", "u1", "assistant", "r1"), msgEv("u2", "a1", "user", "q2"),
		}, "user:q1,assistant:r1,user:q2"},
		{"regenerated: the abandoned branch is out", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"), msgEv("a1", "u1", "assistant", "r1"),
			msgEv("u2", "a1", "user", "old"), msgEv("a2", "u2", "assistant", "old reply"),
			msgEv("u3", "a1", "user", "new"), msgEv("a3", "u3", "assistant", "new reply"),
		}, "user:q1,assistant:r1,user:new,assistant:new reply"},
		{"leaf control back to the old branch", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"), msgEv("a1", "u1", "assistant", "r1"),
			msgEv("u2", "a1", "user", "old"), msgEv("a2", "u2", "assistant", "old reply"),
			msgEv("u3", "a1", "user", "new"), msgEv("a3", "u3", "assistant", "new reply"),
			ev("leaf", "L1", "a3", `,"targetId":"a2"`),
			msgEv("u4", "L1", "user", "after"), // parented on the control: continues at its target
		}, "user:q1,assistant:r1,user:old,assistant:old reply,user:after"},
		{"side append is not the leaf", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"), msgEv("a1", "u1", "assistant", "r1"),
			ev("message", "s1", "a1", `,"appendMode":"side","message":{"role":"assistant","content":[{"type":"text","text":"side"}]}`),
		}, "user:q1,assistant:r1"},
		{"parentless event hangs on the leaf; excluded message out", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"),
			ev("message", "x1", "u1", `,"message":{"role":"assistant","excludeFromContext":true,"content":[{"type":"text","text":"hidden"}]}`),
			msgEv("a1", "-", "assistant", "r1"),
		}, "user:q1,assistant:r1"},
		{"compaction window", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"), msgEv("a1", "u1", "assistant", "r1"),
			msgEv("u2", "a1", "user", "q2"), msgEv("a2", "u2", "assistant", "r2"),
			ev("compaction", "c1", "a2", `,"summary":"S","firstKeptEntryId":"u2","tokensBefore":10`),
			msgEv("u3", "c1", "user", "q3"),
		}, "user:" + compactionPrefix + "S" + compactionSuffix + ",user:q2,assistant:r2,user:q3"},
		{"reset keeps user and assistant messages from firstKept", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"),
			ev("message", "a1", "u1", `,"message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"x"}]}`),
			ev("message", "tr1", "a1", `,"message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"out"}]}`),
			ev("message", "tr2", "tr1", `,"message":{"role":"toolResult","toolCallId":"zz","content":[{"type":"text","text":"orphan"}]}`),
			ev("reset", "r1", "tr2", `,"firstKeptEntryId":"u1"`),
			msgEv("u2", "r1", "user", "q2"),
		}, "user:q1,assistant:,toolResult:out,user:q2"},
		{"custom_message and branch_summary", [][]byte{[]byte(ctxHeader),
			msgEv("u1", "", "user", "q1"),
			ev("branch_summary", "b1", "u1", `,"summary":"B","fromId":"u1"`),
			ev("custom_message", "cm1", "b1", `,"customType":"note","content":"hello","display":true`),
			msgEv("u2", "cm1", "user", "q2"),
		}, "user:q1,user:" + branchPrefix + "B" + branchSuffix + ",user:hello,user:q2"},
		{"only the header", [][]byte{[]byte(ctxHeader)}, ""},
		{"unreadable events skipped", [][]byte{[]byte(ctxHeader), nil, []byte("{torn"),
			msgEv("u1", "", "user", "q1"),
		}, "user:q1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ContextMessages(c.events)
			var raw [][]byte
			for _, m := range got {
				raw = append(raw, m)
			}
			if s := texts(raw); s != c.want {
				t.Fatalf("context\n got %s\nwant %s", s, c.want)
			}
		})
	}
	// message objects are passed byte-identical
	in := msgEv("u1", "", "user", "exact \u00e9 text")
	got := ContextMessages([][]byte{[]byte(ctxHeader), in})
	if len(got) != 1 || string(got[0]) != gjson.GetBytes(in, "message").Raw {
		t.Fatalf("not byte-identical: %s", got)
	}
}
