package sanitize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

const suffix = "\n…(truncated)…"

func one(t *testing.T, in string) string {
	t.Helper()
	out, truncated, n := History([]json.RawMessage{json.RawMessage(in)}, DefaultCapBytes)
	if len(out) != 1 || truncated {
		t.Fatalf("History(%s) = %d messages, truncated %v", in, len(out), truncated)
	}
	if n != len(out[0])+2 {
		t.Fatalf("bytes %d, want %d", n, len(out[0])+2)
	}
	if !json.Valid(out[0]) {
		t.Fatalf("invalid output %s", out[0])
	}
	return string(out[0])
}

func textOf(t *testing.T, raw string, path ...any) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	s, _ := v.(string)
	return s
}

func TestHistoryTruncation(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name, text, want string
	}{
		{"exactly 4000", a(4000), a(4000)},
		{"4001", a(4001), a(4000) + suffix},
		{"much longer", a(10000), a(4000) + suffix},
		{"pair inside the limit", a(3998) + "😀", a(3998) + "😀"},
		{"pair across the cut", a(3999) + "😀" + "b", a(3999) + suffix},
		{"pair just after the cut", a(4000) + "😀", a(4000) + suffix},
		{"pair just before the cut", a(3998) + "😀" + "b", a(3998) + "😀" + suffix},
		{"two-byte UTF-8 counts one unit", strings.Repeat("é", 4001), strings.Repeat("é", 4000) + suffix},
		{"three-byte UTF-8 counts one unit", strings.Repeat("€", 4000), strings.Repeat("€", 4000)},
		{"escapes count one unit", strings.Repeat("\n", 4000), strings.Repeat("\n", 4000)},
		{"escapes over", strings.Repeat("\"", 4001), strings.Repeat("\"", 4000) + suffix},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := mustJSON(t, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": c.text}}})
			out := one(t, string(in))
			if got := textOf(t, out, "content", 0, "text"); got != c.want {
				t.Fatalf("len %d, want len %d (%q…)", len(got), len(c.want), got[max(0, len(got)-20):])
			}
			if c.text == c.want && out != string(in) {
				t.Fatal("untruncated message rewritten")
			}
			// String content and a top-level text field behave the same.
			in = mustJSON(t, map[string]any{"role": "user", "content": c.text})
			if got := textOf(t, one(t, string(in)), "content"); got != c.want {
				t.Fatalf("string content: len %d want %d", len(got), len(c.want))
			}
			in = mustJSON(t, map[string]any{"role": "user", "text": c.text})
			if got := textOf(t, one(t, string(in)), "text"); got != c.want {
				t.Fatalf("text field: len %d want %d", len(got), len(c.want))
			}
		})
	}
}

func TestHistoryLoneSurrogates(t *testing.T) {
	// A lone high surrogate at the cut is not followed by a low one: it stays
	// (JS slice), written back escaped as JSON.stringify does.
	in := `{"role":"assistant","content":"` + strings.Repeat("a", 3999) + `\ud800bbbb"}`
	out := one(t, in)
	if !strings.HasSuffix(out, `a\ud800\n…(truncated)…"}`) {
		t.Fatalf("got …%s", out[len(out)-40:])
	}
	// An escaped surrogate pair across the cut is not split.
	in = `{"role":"assistant","content":"` + strings.Repeat("a", 3999) + `\ud83d\ude00"}`
	out = one(t, in)
	if want := `{"role":"assistant","content":"` + strings.Repeat("a", 3999) + `\n…(truncated)…"}`; out != want {
		t.Fatalf("got …%s", out[len(out)-40:])
	}
}

func TestHistoryBlocks(t *testing.T) {
	long := strings.Repeat("x", 4001)
	in := `{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"` + long + `","thinkingSignature":"sig","extra":1},` +
		`{"type":"thinking","thinking":"short","thinkingSignature":"sig"},` +
		`{"type":"text","thinkingSignature":"kept on text blocks","text":"t"},` +
		`{"type":"toolCall","id":"c1","name":"write","arguments":{"content":"` + long + `"},"partialJson":"` + long + `"},` +
		`{"type":"custom","text":"` + long + `"},` +
		`7,"str",null,[1]` +
		`],"api":"x","usage":{"input":1},"details":{"d":1},"cost":0.5,"stopReason":"stop","timestamp":5}`
	out := one(t, in)
	x4000 := strings.Repeat("x", 4000) + suffix
	want := `{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"` + strings.ReplaceAll(x4000, "\n", `\n`) + `","extra":1},` +
		`{"type":"thinking","thinking":"short"},` +
		`{"type":"text","thinkingSignature":"kept on text blocks","text":"t"},` +
		`{"type":"toolCall","id":"c1","name":"write","arguments":{"content":"` + long + `"},"partialJson":"` + strings.ReplaceAll(x4000, "\n", `\n`) + `"},` +
		`{"type":"custom","text":"` + strings.ReplaceAll(x4000, "\n", `\n`) + `"},` +
		`7,"str",null,[1]` +
		`],"api":"x","stopReason":"stop","timestamp":5}`
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestHistoryImages(t *testing.T) {
	cases := []struct{ name, block, want string }{
		{"padded", `{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":5}`},
		{"two pads", `{"type":"image","data":"aGk=","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":2}`},
		{"one byte", `{"type":"image","data":"QQ==","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":1}`},
		{"unpadded", `{"type":"image","data":"aGVsbG8","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":5}`},
		{"url alphabet", `{"type":"image","data":"-_-_","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":3}`},
		{"with newlines", `{"type":"image","data":"aGVs\nbG8=\n","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":5}`},
		{"empty", `{"type":"image","data":"","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":0}`},
		{"not base64: estimate", `{"type":"image","data":"data:image/png;base64,AAAA","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":19}`},
		{"not base64 with padding: estimate", `{"type":"image","data":"!!!!!!!!==","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":5}`},
		{"mime first", `{"mimeType":"image/jpeg","type":"image","data":"AAAA"}`, `{"mimeType":"image/jpeg","type":"image","omitted":true,"bytes":3}`},
		{"no data keeps numeric bytes", `{"type":"image","bytes":77,"mimeType":"image/png"}`, `{"type":"image","bytes":77,"mimeType":"image/png","omitted":true}`},
		{"no data no bytes", `{"type":"image","mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true}`},
		{"data not a string", `{"type":"image","data":12,"mimeType":"image/png"}`, `{"type":"image","mimeType":"image/png","omitted":true}`},
		{"already omitted", `{"type":"image","mimeType":"image/png","omitted":true,"bytes":3}`, `{"type":"image","mimeType":"image/png","omitted":true,"bytes":3}`},
		{"data replaces old bytes", `{"type":"image","bytes":1,"data":"AAAA"}`, `{"type":"image","bytes":3,"omitted":true}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := one(t, `{"role":"user","content":[`+c.block+`]}`)
			if want := `{"role":"user","content":[` + c.want + `]}`; out != want {
				t.Fatalf("got  %s\nwant %s", out, want)
			}
		})
	}
}

func TestHistoryKeyOrderAndWhitespace(t *testing.T) {
	in := `{ "timestamp" : 1, "usage": {}, "role":"assistant", "z":{"b":1, "a":2}, "content" : "hi" , "a": [1, 2] }`
	if out := one(t, in); out != `{"timestamp":1,"role":"assistant","z":{"b":1,"a":2},"content":"hi","a":[1,2]}` {
		t.Fatalf("got %s", out)
	}
	// Untouched messages are only compacted.
	if out := one(t, `{"role":"user", "content":"x"}`); out != `{"role":"user","content":"x"}` {
		t.Fatalf("got %s", out)
	}
}

func TestHistoryCap(t *testing.T) {
	mk := func(i int, size int) json.RawMessage {
		return mustJSON(t, map[string]any{"role": "user", "content": strings.Repeat(string(rune('a'+i)), size), "i": i})
	}
	var msgs []json.RawMessage
	for i := range 10 {
		msgs = append(msgs, mk(i, 1000))
	}
	each := len(msgs[0])
	// Everything fits.
	out, truncated, n := History(msgs, 10*each+11)
	if len(out) != 10 || truncated || n != 10*each+11 {
		t.Fatalf("fits: %d %v %d", len(out), truncated, n)
	}
	// One byte less: the oldest goes.
	out, truncated, n = History(msgs, 10*each+10)
	if len(out) != 9 || !truncated || n != 9*each+10 || !bytes.Contains(out[0], []byte(`"i":1`)) {
		t.Fatalf("cap-1: %d %v %d", len(out), truncated, n)
	}
	// A tiny cap keeps the newest one.
	out, truncated, n = History(msgs, 10)
	if len(out) != 1 || !truncated || n != each+2 || !bytes.Contains(out[0], []byte(`"i":9`)) {
		t.Fatalf("tiny cap: %d %v %d", len(out), truncated, n)
	}
	// Negative: no cap.
	if out, truncated, _ = History(msgs, -1); len(out) != 10 || truncated {
		t.Fatal("no cap")
	}
	// Zero: the default 80 KiB: 100 messages of ~1 KB keep the newest ~79.
	msgs = nil
	for i := range 100 {
		msgs = append(msgs, mk(i%26, 1000))
	}
	out, truncated, n = History(msgs, 0)
	if !truncated || n > DefaultCapBytes || len(out) < 70 || len(out) > 80 {
		t.Fatalf("default cap: %d %v %d", len(out), truncated, n)
	}
	if got := joinArray(out); len(got) != n || !json.Valid(got) {
		t.Fatalf("bytes %d, array %d", n, len(got))
	}
	// Empty input.
	out, truncated, n = History(nil, 0)
	if len(out) != 0 || out == nil || truncated || n != 2 {
		t.Fatalf("empty: %v %v %d", out, truncated, n)
	}
	// Invalid JSON is left out; non-objects pass.
	out, _, n = History([]json.RawMessage{json.RawMessage(`{"role":`), json.RawMessage(` "s" `), json.RawMessage(`[1, 2]`)}, 0)
	if len(out) != 2 || string(out[0]) != `"s"` || string(out[1]) != `[1,2]` || n != len(`["s",[1,2]]`) {
		t.Fatalf("odd input: %q %d", out, n)
	}
}

func TestHistoryTruncationMeasuredAfterSanitising(t *testing.T) {
	// A 1 MB image counts as its omitted form.
	img := strings.Repeat("A", 1<<20)
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"old"}]}`),
		json.RawMessage(`{"role":"user","content":[{"type":"image","data":"` + img + `","mimeType":"image/png"}]}`),
	}
	out, truncated, _ := History(msgs, 1000)
	if len(out) != 2 || truncated || !bytes.Contains(out[1], []byte(`"bytes":786432`)) {
		t.Fatalf("%d %v %s", len(out), truncated, out[1])
	}
}

// TestFixtures prepares every message of the real transcripts as `sessions
// history` does by default.
func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("../../testdata/state-2026.1.30/agents/*/sessions/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	stripped := 0
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []json.RawMessage
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e struct{ Message json.RawMessage }
			if json.Unmarshal(sc.Bytes(), &e) == nil && len(e.Message) > 0 && e.Message[0] == '{' {
				m := StripEnvelope(e.Message)
				if !bytes.Equal(m, e.Message) {
					stripped++
				}
				msgs = append(msgs, m)
			}
		}
		f.Close()
		out, truncated, n := History(msgs, DefaultCapBytes)
		if truncated || len(out) != len(msgs) || n != len(joinArray(out)) {
			t.Fatalf("%s: %d/%d truncated %v bytes %d", p, len(out), len(msgs), truncated, n)
		}
		for i, m := range out {
			var o map[string]json.RawMessage
			if err := json.Unmarshal(m, &o); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"usage", "details", "cost"} {
				if _, ok := o[k]; ok {
					t.Fatalf("%s message %d keeps %s", p, i, k)
				}
			}
			if _, ok := o["role"]; !ok {
				t.Fatalf("no role in %s", m)
			}
		}
		if strings.Contains(p, "a62a3a2e") {
			if got := textOf(t, string(out[0]), "content", 0, "text"); got != "Hi bot, this is Alice on Signal" {
				t.Fatalf("envelope not stripped: %q", got)
			}
		}
		if strings.Contains(p, "f0a65321") {
			if got := textOf(t, string(out[0]), "content", 0, "text"); !strings.HasPrefix(got, "[cron:") {
				t.Fatalf("cron header stripped: %q", got)
			}
		}
	}
	if stripped < 2 {
		t.Fatalf("only %d fixture messages had an envelope", stripped)
	}
}

func TestJSStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\t\r\b\f\x01\x1f\x7f", "<>&\u2028\u2029", "é€😀", "\ufffd"} {
		raw := mustJSON(t, s)
		u, ok := decodeString(raw)
		if !ok || string(utf16.Decode(u)) != s {
			t.Fatalf("decode %q", s)
		}
		var back string
		if err := json.Unmarshal(encodeString(u), &back); err != nil || back != s {
			t.Fatalf("encode %q: %s %v", s, encodeString(u), err)
		}
	}
	for _, bad := range []string{``, `"`, `"\"`, `"\x"`, `"\u12"`, `"\uzzzz"`, `x"`, `"a"b"`} {
		if _, ok := decodeString([]byte(bad)); ok {
			t.Fatalf("decoded %q", bad)
		}
	}
}

// HistoryPageCapped: sessions_history's marks and hard cap.
func TestHistoryPageCapped(t *testing.T) {
	long := strings.Repeat("x", TextMaxChars+1)
	huge := strings.Repeat("y ", DefaultCapBytes)
	cases := []struct {
		name                         string
		msgs                         []json.RawMessage
		contentTruncated, hardCapped bool
		dropped                      int
		want0                        string // the first message returned, when set
	}{
		{"plain", []json.RawMessage{json.RawMessage(`{"role":"user","content":"hi"}`)}, false, false, 0, `{"role":"user","content":"hi"}`},
		{"usage dropped", []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"hi","usage":{"input":1}}`)}, true, false, 0, `{"role":"assistant","content":"hi"}`},
		{"long block text", []json.RawMessage{json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"` + long + `"}]}`)}, true, false, 0, ""},
		{"thinking signature is not a cut", []json.RawMessage{json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"}]}`)}, false, false, 0, `{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]}`},
		{"too large alone", []json.RawMessage{
			json.RawMessage(`{"role":"user","content":"a"}`),
			json.RawMessage(`{"role":"toolResult","content":[{"type":"toolCall","arguments":{"x":"` + huge + `"}}],"__openclaw":{"id":"m7","seq":7}}`),
		}, false, true, 1, `{"role":"assistant","content":"[sessions_history omitted: message too large]","__openclaw":{"seq":7,"id":"m7"}}`},
		{"too large without meta", []json.RawMessage{json.RawMessage(`{"role":"toolResult","content":[{"type":"toolCall","arguments":{"x":"` + huge + `"}}]}`)}, false, true, 0,
			`{"role":"assistant","content":"[sessions_history omitted: message too large]"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := HistoryPageCapped(c.msgs, 0)
			if p.ContentTruncated != c.contentTruncated || p.HardCapped != c.hardCapped || p.Dropped != c.dropped {
				t.Errorf("contentTruncated %v hardCapped %v dropped %d, want %v %v %d", p.ContentTruncated, p.HardCapped, p.Dropped, c.contentTruncated, c.hardCapped, c.dropped)
			}
			if len(p.Messages) == 0 {
				t.Fatal("no message")
			}
			if c.want0 != "" && string(p.Messages[0]) != c.want0 {
				t.Errorf("message %s, want %s", p.Messages[0], c.want0)
			}
			if total := len(joinArray(p.Messages)); p.Bytes != total || p.Bytes > DefaultCapBytes {
				t.Errorf("bytes %d, array %d", p.Bytes, total)
			}
			if got := HistoryPageCapped(c.msgs, -1); got.HardCapped {
				t.Error("hard cap without a cap")
			}
		})
	}
}

// When the 80 KiB cap would drop the message asked for with the oldest,
// the newest are left out instead — as few as keep it.
func TestShapeAround(t *testing.T) {
	stored := make([]json.RawMessage, 30)
	for i := range stored {
		stored[i] = json.RawMessage(`{"role":"user","content":[{"type":"text","text":"` + strings.Repeat(strconv.Itoa(i%10), 3900) + `"}],"timestamp":` + strconv.Itoa(i+1) + `}`)
	}
	whole := Shape(stored, false, false)
	if whole.First <= 5 {
		t.Fatalf("the cap keeps %d of 30 messages: the test needs it to drop message 5", 30-whole.First)
	}
	for _, capped := range []bool{false, true} {
		p, end := ShapeAround(stored, 5, false, capped, Shape(stored, false, capped))
		if p.First > 5 || end <= 5 || end > len(stored) {
			t.Fatalf("capped %v: first %d, end %d: message 5 dropped", capped, p.First, end)
		}
		if end < len(stored) && Shape(stored[:end+1], false, capped).First <= 5 {
			t.Errorf("capped %v: end %d: one newer message more would still keep message 5", capped, end)
		}
	}
	// Nothing to do when the message fits.
	if p, end := ShapeAround(stored, 29, false, false, whole); end != len(stored) || p.First != whole.First {
		t.Errorf("message 29: first %d end %d", p.First, end)
	}
}
