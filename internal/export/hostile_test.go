package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// pngPixel is a 1×1 PNG.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// hostileMessages are a transcript an attacker wrote into: every way a
// string could leave its text and run, or load something. base is a URL
// a request to would be noticed.
func hostileMessages(base string) []json.RawMessage {
	js := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	run := fmt.Sprintf("document.title='PWNED';fetch('%s/ran')", base)
	texts := []string{
		"</script><script>" + run + "</script>",
		`<img src=x onerror="` + run + `">`,
		`<a href="javascript:` + run + `">click</a> [md link](javascript:alert(1))`,
		`<img src="` + base + `/img.png"><link rel=stylesheet href="` + base + `/s.css"><style>body{background:url(` + base + `/bg.png)}</style>`,
		`<iframe src="` + base + `/frame"></iframe><meta http-equiv="refresh" content="0;url=` + base + `/refresh">`,
		"]]></style></details></pre></article><svg onload=\"" + run + "\">",
	}
	var out []json.RawMessage
	for i, t := range texts {
		out = append(out, js(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": t}}, "timestamp": 1795236215000 + i*1000}))
	}
	out = append(out,
		js(map[string]any{"role": "assistant", "model": "m<script>1</script>", "timestamp": 1795322615000,
			"usage": map[string]any{"input": 10, "output": 5, "totalTokens": 15, "cost": map[string]any{"total": 0.0123}},
			"content": []any{
				map[string]any{"type": "thinking", "thinking": "secret plan <script>" + run + "</script>"},
				map[string]any{"type": "toolCall", "id": "c1", "name": "exec</summary><script>x</script>", "arguments": map[string]any{"cmd": "<img src=x onerror=" + run + ">", "url": "javascript:" + run}},
				map[string]any{"type": "image", "mimeType": "image/png", "data": pngPixel},
				map[string]any{"type": "image", "mimeType": "image/svg+xml", "data": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"},
				map[string]any{"type": "image", "mimeType": "image/png\" onerror=\"" + run, "data": pngPixel},
				map[string]any{"type": "image", "mimeType": "image/png", "data": "x\" onerror=\"" + run},
			}}),
		js(map[string]any{"role": "toolResult", "toolName": "exec", "toolCallId": "c1", "timestamp": 1795322616000,
			"content": []any{map[string]any{"type": "text", "text": strings.Repeat("long output <b>line</b>\n", 10000)}}}),
		js(map[string]any{"role": "user", "timestamp": 1795322617000, "content": strings.Repeat("<script>"+run+"</script>", 10<<20)[:10<<20]}),
	)
	return out
}

func renderHTML(t testing.TB, msgs []json.RawMessage, meta *Meta) string {
	t.Helper()
	var b bytes.Buffer
	w, err := New(HTML, &b)
	if err != nil {
		t.Fatal(err)
	}
	if meta == nil {
		meta = &Meta{Key: "agent:main:<script>alert(1)</script>", Agent: "main", Channel: "<img src=x onerror=alert(1)>"}
	}
	if err := w.Begin(meta); err != nil {
		t.Fatal(err)
	}
	if err := w.Segment(Segment{SessionID: "s1", Source: "current"}); err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if err := w.Write(Line{Seq: i + 1, Message: m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// pageTags are the elements a page is made of; pageAttr the attributes.
var (
	pageTags = map[string]bool{"!doctype": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"div": true, "header": true, "h1": true, "dl": true, "dt": true, "dd": true, "p": true, "main": true, "section": true, "h2": true,
		"article": true, "a": true, "span": true, "code": true, "time": true, "details": true, "summary": true, "pre": true, "img": true,
		"nav": true, "ol": true, "li": true, "footer": true}
	tagRe  = regexp.MustCompile(`<(/?)([!a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	attrRe = regexp.MustCompile(`\s([a-zA-Z-]+)(?:="([^"]*)")?`)
)

// checkPage fails unless every element and attribute of page is the
// page's own: text never became markup.
func checkPage(t testing.TB, page string) {
	t.Helper()
	for _, m := range tagRe.FindAllStringSubmatch(page, -1) {
		tag := strings.ToLower(m[2])
		if !pageTags[tag] {
			t.Errorf("element <%s> in the page: %.120s", tag, m[0])
			continue
		}
		for _, a := range attrRe.FindAllStringSubmatch(m[3], -1) {
			name, val := strings.ToLower(a[1]), a[2]
			switch {
			case strings.HasPrefix(name, "on"):
				t.Errorf("event handler %s in %.120s", name, m[0])
			case name == "href" && !strings.HasPrefix(val, "#"):
				t.Errorf("a link out of the page: %.120s", m[0])
			case name == "src" && !strings.HasPrefix(val, "data:image/png;base64,"):
				t.Errorf("an image not stored in the page: %.120s", m[0])
			case tag == "meta" && name == "http-equiv" && val != "Content-Security-Policy":
				t.Errorf("meta %s", m[0])
			}
		}
	}
}

// Every string of a hostile transcript is escaped: the page has no element
// or attribute but its own.
func TestHTMLEscapesEverything(t *testing.T) {
	page := renderHTML(t, hostileMessages("http://127.0.0.1:9"), nil)
	checkPage(t, page)
	low := strings.ToLower(page)
	if n := strings.Count(low, "<style"); n != 1 {
		t.Errorf("%d style elements, want the page's one", n)
	}
	if n := strings.Count(low, "<img "); n != 1 {
		t.Errorf("%d images, want the one PNG stored as base64", n)
	}
	if !strings.Contains(page, `<img src="data:image/png;base64,`+strings.ReplaceAll(pngPixel, "+", "&#43;")+`"`) {
		t.Error("the stored PNG is not inline")
	}
	if !strings.Contains(page, "64.0 KiB shown of 234.4 KiB") || !strings.Contains(page, "1.0 MiB shown of 10.0 MiB") {
		t.Error("long texts are not cut with their size shown")
	}
	if len(page) > 2<<20 {
		t.Errorf("page is %d bytes: the 10 MB line was not cut", len(page))
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-`) {
		t.Error("no Content-Security-Policy forbidding every request and script")
	}
}

// The policy allows the page's style sheet by its hash: the hash is of
// the text the page holds.
func TestHTMLStyleHashMatches(t *testing.T) {
	page := renderHTML(t, nil, &Meta{Key: "main"})
	i, j := strings.Index(page, "<style>"), strings.Index(page, "</style>")
	if i < 0 || j < i || page[i+len("<style>"):j] != pageCSS {
		t.Fatal("the page's style sheet is not pageCSS as is")
	}
}

func TestFilter(t *testing.T) {
	m := json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"toolCall","name":"n"}],"model":"m"}`)
	got, keep := Filter(m, true, true)
	if !keep || string(got) != `{"role":"assistant","content":[{"type":"text","text":"x"}],"model":"m"}` {
		t.Errorf("Filter = %s %v", got, keep)
	}
	if _, keep := Filter(json.RawMessage(`{"role":"toolResult","content":"x"}`), true, false); keep {
		t.Error("a tool result is kept with --no-tools")
	}
	if _, keep := Filter(json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall"}]}`), true, false); keep {
		t.Error("a message of tool calls only is kept with --no-tools")
	}
	if got, _ := Filter(m, false, false); !bytes.Equal(got, m) {
		t.Error("Filter changed a message with nothing to leave out")
	}
}
