package sanitize

import (
	"encoding/json"
	"testing"
)

func TestStripEnvelopeText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"no envelope", "hello", "hello"},
		{"signal example", "[Signal Alice id:+15551230001 +1s 2026-11-21 05:13 UTC] hello\n[message_id: 1795236224955]", "hello"},
		{"iso date", "[something 2026-01-30T12:34Z] hi", "hi"},
		{"iso date with seconds is not ISO-like", "[something 2026-01-30T12:34:56Z] hi", "[something 2026-01-30T12:34:56Z] hi"},
		{"iso date then word char", "[x 2026-01-30T12:34Za] hi", "[x 2026-01-30T12:34Za] hi"},
		{"iso date then punctuation", "[x 2026-01-30T12:34Z,y] hi", "hi"},
		{"date and time", "[foo 2026-01-30 12:34] hi", "hi"},
		{"date and time with seconds", "[foo 2026-01-30 12:34:56] hi", "hi"}, // \b between 4 and ':'
		{"date and time then digit", "[foo 2026-01-30 12:345] hi", "[foo 2026-01-30 12:345] hi"},
		{"date and time then letter", "[foo 2026-01-30 12:34x] hi", "[foo 2026-01-30 12:34x] hi"},
		{"date and time then underscore", "[foo 2026-01-30 12:34_] hi", "[foo 2026-01-30 12:34_] hi"},
		{"five digit year still matches", "[foo 12026-01-30 12:34] hi", "hi"},
		{"date without time", "[foo 2026-01-30] hi", "[foo 2026-01-30] hi"},
		{"not at start", "hi [WhatsApp +1 2026-01-30 12:34] there", "hi [WhatsApp +1 2026-01-30 12:34] there"},
		{"leading space", " [WhatsApp +1] hi", " [WhatsApp +1] hi"},
		{"only first bracket group", "[note] [WhatsApp +1] hi", "[note] [WhatsApp +1] hi"},
		{"empty brackets", "[] hi", "[] hi"},
		{"no closing bracket", "[WhatsApp +1 hi", "[WhatsApp +1 hi"},
		{"label needs a space", "[WhatsApp] hi", "[WhatsApp] hi"},
		{"label is case sensitive", "[whatsapp +1] hi", "[whatsapp +1] hi"},
		{"label must start the header", "[My WhatsApp +1] hi", "[My WhatsApp +1] hi"},
		{"cron header untouched", "[cron:9ebf7d12 Daily digest] Write the digest", "[cron:9ebf7d12 Daily digest] Write the digest"},
		{"tool directive untouched", "[[tool:read {\"path\":\"x\"}]]", "[[tool:read {\"path\":\"x\"}]]"},
		{"whitespace after header all removed", "[Slack #general]  \n\t hi", "hi"},
		{"unicode whitespace removed", "[Slack #general]\u00a0\u3000\ufeffhi", "hi"},
		{"header spanning lines", "[Telegram group\nline2] hi", "hi"},
		{"nothing after header", "[Discord x]", ""},
		{"message_id line CRLF", "hello\r\n[message_id: 42]\r\nworld", "hello\nworld"},
		{"message_id line indented, case-insensitive", "hello\n  [MESSAGE_ID: 42]  \nworld [message_id: 1] x", "hello\nworld [message_id: 1] x"},
		{"message_id needs lowercase marker somewhere", "hello\n[MESSAGE_ID: 42]", "hello\n[MESSAGE_ID: 42]"},
		{"message_id with text after is kept", "hello\n[message_id: 42] more", "hello\n[message_id: 42] more"},
		{"message_id empty is kept", "hello\n[message_id:]", "hello\n[message_id:]"},
		{"message_id space only is dropped", "hello\n[message_id: ]", "hello"},
		{"message_id inline kept", "see [message_id: 42] above", "see [message_id: 42] above"},
		{"message_id several", "[message_id: 1]\na\n[message_id: 2]\n", "a\n"},
		{"no drop keeps CRLF", "a\r\nb [message_id: 1] c", "a\r\nb [message_id: 1] c"},
		{"lone CR stays in line", "a\r\r\n[message_id: 1]", "a\r"},
	}
	for _, label := range []string{"WebChat", "WhatsApp", "Telegram", "Signal", "Slack", "Discord", "Google Chat", "iMessage", "Teams", "Matrix", "Zalo", "Zalo Personal", "BlueBubbles"} {
		cases = append(cases, struct{ name, in, want string }{"label " + label, "[" + label + " someone] hi", "hi"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StripEnvelopeText(c.in); got != c.want {
				t.Fatalf("StripEnvelopeText(%q) = %q, want %q", c.in, got, c.want)
			}
			// The same through a message with string content.
			msg := mustJSON(t, map[string]any{"role": "user", "content": c.in})
			got := StripEnvelope(msg)
			var m map[string]any
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			if m["content"] != c.want {
				t.Fatalf("content %q, want %q", m["content"], c.want)
			}
			if c.in == c.want && string(got) != string(msg) {
				t.Fatalf("unchanged message rewritten: %s", got)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStripEnvelopeMessage(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"user blocks",
			`{"role":"user","content":[{"type":"text","text":"[WhatsApp +1 2026-01-30 12:34] hi\n[message_id: 9]"},{"type":"image","data":"QQ==","mimeType":"image/png"},{"type":"text","text":"plain"}],"timestamp":1}`,
			`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"QQ==","mimeType":"image/png"},{"type":"text","text":"plain"}],"timestamp":1}`},
		{"text block keeps its other keys in order",
			`{"role":"user","content":[{"textSignature":"s","type":"text","text":"[Slack x] yo","z":1}]}`,
			`{"role":"user","content":[{"textSignature":"s","type":"text","text":"yo","z":1}]}`},
		{"role case-insensitive", `{"role":"USER","content":"[Signal a] x"}`, `{"role":"USER","content":"x"}`},
		{"assistant untouched", `{"role":"assistant","content":"[Signal a] x"}`, `{"role":"assistant","content":"[Signal a] x"}`},
		{"toolResult untouched", `{"role":"toolResult","content":[{"type":"text","text":"[Signal a] x"}]}`, `{"role":"toolResult","content":[{"type":"text","text":"[Signal a] x"}]}`},
		{"text field variant", `{"role":"user","text":"[Teams bob] hey","n":1}`, `{"role":"user","text":"hey","n":1}`},
		{"text field ignored when content is a string", `{"role":"user","content":"c","text":"[Teams bob] hey"}`, `{"role":"user","content":"c","text":"[Teams bob] hey"}`},
		{"text field ignored when content is an array", `{"role":"user","content":[],"text":"[Teams bob] hey"}`, `{"role":"user","content":[],"text":"[Teams bob] hey"}`},
		{"text field used when content is null", `{"role":"user","content":null,"text":"[Teams bob] hey"}`, `{"role":"user","content":null,"text":"hey"}`},
		{"non-text blocks and non-objects kept", `{"role":"user","content":[1,"[Slack x] s",null,{"type":"thinking","text":"[Slack x] t"},{"type":"text","text":5}]}`, `{"role":"user","content":[1,"[Slack x] s",null,{"type":"thinking","text":"[Slack x] t"},{"type":"text","text":5}]}`},
		{"no role", `{"content":"[Slack x] s"}`, `{"content":"[Slack x] s"}`},
		{"not an object", `"[Slack x] s"`, `"[Slack x] s"`},
		{"invalid JSON", `{"role":"user","content":`, `{"role":"user","content":`},
		{"escapes written like JSON.stringify", `{"role":"user","content":"[Slack x] a\u003cb\u2028 \ud83d\ude00 \ud800 \u0001 \/"}`, `{"role":"user","content":"a<b` + "\u2028" + ` 😀 \ud800 \u0001 /"}`},
		{"html kept raw", `{"role":"user","content":"[Slack x] <b>&</b>"}`, `{"role":"user","content":"<b>&</b>"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := StripEnvelope(json.RawMessage(c.in))
			if string(got) != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestStripEnvelopeUnchangedIsSameBytes(t *testing.T) {
	in := json.RawMessage(`{"role":"user", "content" : [ {"type":"text","text":"plain"} ] }`)
	if got := StripEnvelope(in); &got[0] != &in[0] {
		t.Fatal("unchanged message was copied")
	}
	if got := StripEnvelope(nil); got != nil {
		t.Fatal("nil")
	}
}
