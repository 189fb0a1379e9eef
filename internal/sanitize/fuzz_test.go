package sanitize

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// Reference: the gateway's regular expressions, transcribed to RE2 with
// JavaScript's \s spelled out and the /i flag limited to ASCII (as a
// non-unicode JS regex is).
const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

var (
	reEnvelope  = regexp.MustCompile(`^\[([^\]]+)\]` + jsSpace + `*`)
	reISO       = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z\b`)
	reDateTime  = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b`)
	reMessageID = regexp.MustCompile(`^` + jsSpace + `*\[[mM][eE][sS][sS][aA][gG][eE]_[iI][dD]:` + jsSpace + `*[^\]]+\]` + jsSpace + `*$`)
	reEOL       = regexp.MustCompile(`\r?\n`)
)

func refStrip(text string) string {
	if m := reEnvelope.FindStringSubmatch(text); m != nil {
		h := m[1]
		ok := reISO.MatchString(h) || reDateTime.MatchString(h)
		for _, l := range []string{"WebChat", "WhatsApp", "Telegram", "Signal", "Slack", "Discord", "Google Chat", "iMessage", "Teams", "Matrix", "Zalo", "Zalo Personal", "BlueBubbles"} {
			ok = ok || strings.HasPrefix(h, l+" ")
		}
		if ok {
			text = text[len(m[0]):]
		}
	}
	if !strings.Contains(text, "[message_id:") {
		return text
	}
	lines := reEOL.Split(text, -1)
	var kept []string
	for _, l := range lines {
		if !reMessageID.MatchString(l) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(lines) {
		return text
	}
	return strings.Join(kept, "\n")
}

func FuzzStripEnvelopeText(f *testing.F) {
	for _, s := range []string{
		"[Signal Alice id:+15551230001 +1s 2026-11-21 05:13 UTC] hello\n[message_id: 1795236224955]",
		"[WhatsApp +1] hi", "[x 2026-01-30T12:34Z] y", "a\r\n [message_id: x] \r\nb", "[]", "[",
		"[Zalo Personal u]\u3000x", "[message_id:]\n[MESSAGE_ID: 1]\n[message_id: 2]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // Go strings with invalid UTF-8 have no JS counterpart
		}
		want := refStrip(s)
		if got := StripEnvelopeText(s); got != want {
			t.Fatalf("StripEnvelopeText(%q) = %q, want %q", s, got, want)
		}
		msg := mustJSON(t, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": s}}})
		var back struct {
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(StripEnvelope(msg), &back); err != nil || back.Content[0].Text != want {
			t.Fatalf("StripEnvelope: %v %+v", err, back)
		}
	})
}

// FuzzHistory: History never panics and keeps its promises on any input.
func FuzzHistory(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hi","usage":{}},{"role":"assistant","content":[{"type":"image","data":"QQ=="}]}]`), uint16(100))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"s"},{"type":"text","text":"\ud800"}]},1,"s",null]`), uint16(0))
	f.Add([]byte(`{"role":"user","text":"[Slack a] b"}`), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, capBytes uint16) {
		var msgs []json.RawMessage
		if json.Unmarshal(data, &msgs) != nil {
			msgs = []json.RawMessage{data}
		}
		valid := 0
		for i, m := range msgs {
			msgs[i] = StripEnvelope(m)
			if json.Valid(msgs[i]) {
				valid++
			}
			if json.Valid(m) && !json.Valid(msgs[i]) {
				t.Fatalf("StripEnvelope broke %s into %s", m, msgs[i])
			}
		}
		out, truncated, n := History(msgs, int(capBytes))
		if valid > 0 && len(out) == 0 {
			t.Fatal("no message kept")
		}
		if truncated != (len(out) < valid) {
			t.Fatalf("truncated=%v with %d of %d", truncated, len(out), valid)
		}
		arr := joinArray(out)
		if len(arr) != n || !json.Valid(arr) {
			t.Fatalf("bytes %d, array %d valid %v", n, len(arr), json.Valid(arr))
		}
		limit := int(capBytes)
		if limit == 0 {
			limit = DefaultCapBytes
		}
		if len(out) > 1 && n > limit {
			t.Fatalf("%d bytes over cap %d with %d messages", n, limit, len(out))
		}
		for _, m := range out {
			var c bytes.Buffer
			if json.Compact(&c, m) != nil || !bytes.Equal(c.Bytes(), m) {
				t.Fatalf("not compact JSON: %s", m)
			}
			checkSanitised(t, m)
		}
	})
}

// checkSanitised checks the promises of History on one output message.
func checkSanitised(t *testing.T, m json.RawMessage) {
	var o map[string]json.RawMessage
	if json.Unmarshal(m, &o) != nil {
		return // non-object messages pass through
	}
	for _, k := range []string{"details", "usage", "cost"} {
		if _, ok := o[k]; ok {
			t.Fatalf("%s kept in %s", k, m)
		}
	}
	short := func(raw json.RawMessage) {
		if u, ok := decodeString(raw); ok && len(u) > TextMaxChars+len(truncationSuffix) {
			t.Fatalf("text of %d units kept", len(u))
		}
	}
	short(o["text"])
	short(o["content"])
	var blocks []json.RawMessage
	if json.Unmarshal(o["content"], &blocks) != nil {
		return
	}
	for _, b := range blocks {
		var bo map[string]json.RawMessage
		if json.Unmarshal(b, &bo) != nil {
			continue
		}
		short(bo["text"])
		short(bo["partialJson"])
		var typ string
		_ = json.Unmarshal(bo["type"], &typ)
		if typ == "thinking" {
			short(bo["thinking"])
			if _, ok := bo["thinkingSignature"]; ok {
				t.Fatalf("signature kept: %s", b)
			}
		}
		if typ == "image" {
			if _, ok := bo["data"]; ok || string(bo["omitted"]) != "true" {
				t.Fatalf("image not omitted: %s", b)
			}
		}
	}
}

func TestSuffixUnits(t *testing.T) {
	if string(utf16.Decode(truncationSuffix)) != "\n…(truncated)…" {
		t.Fatal(truncationSuffix)
	}
}

// FuzzRedact: masking never panics, says whether it changed the text, and
// keeps a valid UTF-8 text valid (the scanners index bytes). Its oracle
// for the literal gate (redact_gate.go): the same Redactor running every
// pattern on every text masks exactly the same.
func FuzzRedact(f *testing.F) {
	cases, _, _ := readRedactCorpusFile()
	for _, c := range cases {
		f.Add(c.In)
	}
	f.Add("c--dd.x:=\"&")
	f.Add("Authorization: Bearer ab")
	r := NewRedactor(nil, nil)
	ungated := &Redactor{patterns: r.patterns, gated: r.gated}
	f.Fuzz(func(t *testing.T, s string) {
		out, changed := r.Redact(s)
		if changed != (out != s) {
			t.Fatalf("changed %v for %q -> %q", changed, s, out)
		}
		if all, _ := ungated.Redact(s); all != out {
			t.Fatalf("the gate skipped a pattern that masks %q:\n gated   %q\n every   %q", s, out, all)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q: %q", s, out)
		}
	})
}

// TestRedactGateCorpus: on every corpus case (with its configured
// patterns), the gate masks as running every pattern does.
func TestRedactGateCorpus(t *testing.T) {
	cases, _ := readRedactCorpus(t)
	for i, c := range cases {
		r := NewRedactor(c.Patterns, nil)
		ungated := &Redactor{patterns: r.patterns, gated: r.gated}
		got, _ := r.Redact(c.In)
		if all, _ := ungated.Redact(c.In); all != got {
			t.Errorf("case %d: gated %q, every pattern %q", i, got, all)
		}
	}
}
