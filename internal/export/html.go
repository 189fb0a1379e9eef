package export

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The longest texts a page shows whole: a tool's output or arguments, and
// any other text (a message, a thinking block). Longer ones are cut, with
// their size shown; Markdown, JSON and JSONL keep everything.
const (
	MaxToolBytes = 64 << 10
	MaxTextBytes = 1 << 20
)

// imageType: the images a page shows inline (as data: URIs, as stored);
// others are noted. SVG is not among them: it is a document.
func imageType(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// pageCSS is the page's one style sheet; the Content-Security-Policy
// allows it by its hash, and nothing else: no script, no request.
const pageCSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1f;--dim:#60606a;--line:#dcdce2;--user:#eef4ff;--asst:#f6f6f8;--tool:#f3f7ef;--warn:#fff4e0;--code:#f0f0f3}
@media (prefers-color-scheme:dark){:root{--bg:#141417;--fg:#e6e6ea;--dim:#9a9aa6;--line:#33333b;--user:#1b2436;--asst:#1c1c21;--tool:#19231a;--warn:#3a2c12;--code:#22222a}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.page{display:flex;flex-direction:column;max-width:56rem;margin:0 auto;padding:1rem}
.head{order:-3}.toc{order:-2;border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:0 0 1rem}main{order:0}footer{order:1;color:var(--dim);font-size:.85em;margin-top:2rem}
h1{font-size:1.4rem;margin:.2rem 0 .6rem;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0 0 .8rem}dt{color:var(--dim)}dd{margin:0;overflow-wrap:anywhere}
.notice{background:var(--warn);border-radius:6px;padding:.4rem .8rem}
.toc h2{font-size:1rem;margin:.3rem 0}.toc ol{margin:.3rem 0;padding-left:1.4rem}
h2.day{font-size:1rem;color:var(--dim);border-bottom:1px solid var(--line);margin:1.5rem 0 .5rem}
.boundary{border-top:3px double var(--line);margin:2rem 0 1rem;padding-top:.5rem}.boundary h2{font-size:1.1rem;margin:0}
.msg{border:1px solid var(--line);border-radius:8px;padding:.5rem .8rem;margin:.6rem 0;background:var(--asst);break-inside:avoid-page}
.msg.user{background:var(--user)}.msg.tool{background:var(--tool)}
.meta{font-size:.85em;color:var(--dim);margin-bottom:.3rem;overflow-wrap:anywhere}.meta .role{font-weight:600;color:var(--fg)}.meta a{color:inherit;text-decoration:none}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);border-radius:4px;padding:.4rem .6rem;margin:.3rem 0;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details{margin:.3rem 0}summary{cursor:pointer;color:var(--dim)}
.cut,.note{color:var(--dim);font-style:italic;font-size:.9em;overflow-wrap:anywhere}.err{color:#c0392b}
img{max-width:100%;height:auto;border-radius:4px}
@media print{body{font-size:11pt}.page{max-width:none}.toc{break-after:page}details>*{display:block}a{color:inherit}}
@media print{details::details-content{content-visibility:visible;display:block}}`

// CSP is the page's Content-Security-Policy: nothing may load or run but
// its own style sheet and images stored in it (data: URIs).
var CSP = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
})

var pageTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`{{define "begin"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<div class="page">
<header class="head">
<h1>{{.Title}}</h1>
<dl>{{range .Facts}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{if .Redacted}}<p class="notice" id="redacted">Redacted: secrets, tokens and keys in this conversation (tool arguments and results included) were masked before it was written.</p>
{{end}}{{if .Window}}<p class="notice" id="window">{{.Window}}</p>
{{end}}</header>
<main>
{{end}}{{define "segment"}}<section class="boundary" id="t{{.N}}"><h2>{{.Title}}</h2>{{if .Path}}<p class="note">{{.Path}}</p>{{end}}</section>
{{end}}{{define "msg"}}{{if .Day}}<h2 class="day" id="d{{.DayN}}">{{.Day}}</h2>
{{end}}<article class="msg {{.Class}}" id="m{{.Seq}}">
<div class="meta"><a href="#m{{.Seq}}">#{{.Seq}}</a> <span class="role">{{.Role}}</span>{{if .Tool}} <code>{{.Tool}}</code>{{end}}{{if .Error}} <span class="err">(error)</span>{{end}}{{if .Time}} · <time>{{.Time}}</time>{{end}}{{if .Model}} · <span class="model">{{.Model}}</span>{{end}}{{if .Tokens}} · {{.Tokens}} tokens{{end}}{{if .Cost}} · cost {{.Cost}}{{end}}</div>
{{range .Parts}}{{if eq .Kind "text"}}<div class="text">{{.Text}}</div>
{{else if eq .Kind "thinking"}}<details class="thinking"><summary>Thinking</summary><pre>{{.Text}}</pre></details>
{{else if eq .Kind "call"}}<details class="call"><summary>Tool call: {{.Title}}</summary><pre>{{.Text}}</pre></details>
{{else if eq .Kind "result"}}<details class="result"><summary>{{.Title}}</summary><pre>{{.Text}}</pre></details>
{{else if eq .Kind "image"}}<img src="{{.URL}}" alt="{{.Title}}">
{{else if eq .Kind "error"}}<p class="err">{{.Text}}</p>
{{else}}<p class="note">{{.Text}}</p>
{{end}}{{if .Cut}}<p class="cut">{{.Cut}}</p>
{{end}}{{end}}</article>
{{end}}{{define "end"}}</main>
<nav class="toc" id="toc">
<h2>Contents</h2>
<p>{{.Totals}}</p>
{{if .Days}}<ol>{{range .Days}}<li><a href="#d{{.N}}">{{.Day}}</a>: {{.Count}} messages</li>{{end}}</ol>{{end}}
</nav>
<footer>Written by sessions export: one file, no scripts, nothing loaded from elsewhere.</footer>
</div>
</body>
</html>
{{end}}`))
})

type htmlWriter struct {
	w       io.Writer
	t       *template.Template
	meta    *Meta
	tot     Totals
	lastDay string
	days    []tocDay
	segs    int
}

type tocDay struct {
	N     int
	Day   string
	Count int
}

func newHTML(w io.Writer) *htmlWriter { return &htmlWriter{w: w, t: pageTemplates()} }

func (h *htmlWriter) Begin(m *Meta) error {
	h.meta = m
	title := "Session " + m.Key
	if m.Key == "" {
		title = "Transcript " + m.SessionID
	}
	return h.t.ExecuteTemplate(h.w, "begin", map[string]any{
		"CSP": CSP(), "CSS": template.CSS(pageCSS), "Title": title, "Facts": m.facts(),
		"Redacted": m.Redacted, "Window": m.Window,
	})
}

func (h *htmlWriter) Segment(s Segment) error {
	h.segs++
	h.lastDay = ""
	if h.segs == 1 && (s.Source == "current" || h.meta.Orphan) {
		return nil // the export's one transcript: the header says what it is
	}
	title := "Transcript " + s.SessionID
	switch s.Source {
	case "orphan":
		title = "Earlier transcript " + s.SessionID + " (before a reset)"
	case "archived":
		title = "Earlier transcript " + s.SessionID + " (archived)"
	case "current":
		title = "Current transcript " + s.SessionID
	}
	return h.t.ExecuteTemplate(h.w, "segment", map[string]any{"N": h.segs, "Title": title, "Path": s.Path})
}

type part struct {
	Kind  string // text, thinking, call, result, image, error, note
	Title string
	Text  string
	URL   template.URL
	Cut   string
}

type msgView struct {
	Seq               int
	Day               string
	DayN              int
	Class, Role, Tool string
	Error             bool
	Time, Model, Cost string
	Tokens            int64
	Parts             []part
}

func (h *htmlWriter) Write(l Line) error {
	if l.Message == nil {
		return nil
	}
	hd := readHead(l.Message)
	m := &hd
	h.tot.add(m)
	v := msgView{Seq: l.Seq, Role: roleName(m.Role), Model: m.Model, Tokens: m.tokens(), Error: m.IsError}
	switch m.Role {
	case "user":
		v.Class = "user"
	case "toolResult", "tool":
		v.Class, v.Tool = "tool", m.ToolName
	default:
		v.Class = "assistant"
	}
	if m.Cost > 0 {
		v.Cost = fmt.Sprintf("%.4f", m.Cost)
	}
	ts := m.Time
	v.Time = Stamp(ts)
	if d := day(ts); d != "" && d != h.lastDay {
		h.lastDay = d
		h.days = append(h.days, tocDay{N: len(h.days) + 1, Day: d})
		v.Day, v.DayN = d, len(h.days)
	}
	if len(h.days) > 0 && h.lastDay != "" {
		h.days[len(h.days)-1].Count++
	}
	if v.Class == "tool" {
		v.Parts = resultParts(m)
	} else {
		v.Parts = contentParts(m.content)
	}
	if m.Error != "" {
		v.Parts = append(v.Parts, part{Kind: "error", Text: "Error: " + m.Error})
	}
	if len(v.Parts) == 0 {
		v.Parts = []part{{Kind: "note", Text: "(empty)"}}
	}
	return h.t.ExecuteTemplate(h.w, "msg", v)
}

func (h *htmlWriter) End() error {
	return h.t.ExecuteTemplate(h.w, "end", map[string]any{"Totals": h.tot.line(), "Days": h.days})
}

func roleName(role string) string {
	switch role {
	case "user":
		return "User"
	case "assistant":
		return "Assistant"
	case "toolResult", "tool":
		return "Tool result"
	case "compactionSummary":
		return "Compaction summary"
	case "":
		return "Message"
	}
	return role
}

// cut keeps the first max bytes of s (at a character's start) and says
// what was left out.
func cut(s string, max int) (string, string) {
	if len(s) <= max {
		return s, ""
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], fmt.Sprintf("… cut here: %s shown of %s", humanBytes(i), humanBytes(len(s)))
}

func textPart(kind, title, s string, max int) part {
	t, c := cut(s, max)
	return part{Kind: kind, Title: title, Text: t, Cut: c}
}

// contentParts are a user or assistant message's parts: a string, or its
// blocks.
func contentParts(c gjson.Result) []part {
	switch {
	case c.Type == gjson.String:
		if strings.TrimSpace(c.Str) == "" {
			return nil
		}
		return []part{textPart("text", "", c.Str, MaxTextBytes)}
	case !c.IsArray():
		if !c.Exists() || c.Type == gjson.Null {
			return nil
		}
		return []part{textPart("note", "", c.Raw, MaxToolBytes)}
	}
	var out []part
	c.ForEach(func(_, b gjson.Result) bool {
		switch typ := strField(b, "type"); typ {
		case "text":
			if t := strField(b, "text"); strings.TrimSpace(t) != "" {
				out = append(out, textPart("text", "", t, MaxTextBytes))
			}
		case "thinking":
			if t := strField(b, "thinking"); strings.TrimSpace(t) != "" {
				out = append(out, textPart("thinking", "", t, MaxTextBytes))
			}
		case "toolCall", "tool_use", "toolUse":
			args := b.Get("arguments")
			if !args.Exists() {
				args = b.Get("input")
			}
			title := strField(b, "name")
			if id := strField(b, "id"); id != "" {
				title += " (" + id + ")"
			}
			out = append(out, textPart("call", title, pretty(json.RawMessage(args.Raw)), MaxToolBytes))
		case "image":
			out = append(out, imagePart(b))
		default:
			if typ == "" {
				typ = "unknown"
			}
			out = append(out, textPart("result", "["+typ+" block]", pretty(json.RawMessage(b.Raw)), MaxToolBytes))
		}
		return true
	})
	return out
}

// resultParts are a tool result's: its texts joined into one collapsed
// output, images shown.
func resultParts(m *head) []part {
	var texts []string
	var imgs []part
	c := m.content
	switch {
	case c.Type == gjson.String:
		texts = append(texts, c.Str)
	case c.IsArray():
		c.ForEach(func(_, b gjson.Result) bool {
			switch strField(b, "type") {
			case "text":
				texts = append(texts, strField(b, "text"))
			case "image":
				imgs = append(imgs, imagePart(b))
			default:
				texts = append(texts, pretty(json.RawMessage(b.Raw)))
			}
			return true
		})
	case c.Exists() && c.Type != gjson.Null:
		texts = append(texts, pretty(json.RawMessage(c.Raw)))
	}
	out := []part{}
	if t := strings.Join(texts, "\n"); t != "" {
		title := "Output"
		if m.ToolName != "" {
			title = "Output of " + m.ToolName
		}
		title += ", " + humanBytes(len(t))
		out = append(out, textPart("result", title, t, MaxToolBytes))
	}
	return append(out, imgs...)
}

// imagePart shows an image stored as base64 of an image type inline (a
// data: URI, the only kind of image the page's policy loads); any other is
// noted.
func imagePart(b gjson.Result) part {
	mime, data := strings.ToLower(strField(b, "mimeType")), strField(b, "data")
	if imageType(mime) && data != "" && isBase64(data) {
		return part{Kind: "image", Title: "image (" + mime + ")", URL: template.URL("data:" + mime + ";base64," + data)}
	}
	if mime == "" {
		mime = "unknown type"
	}
	return part{Kind: "note", Text: "[image: " + mime + ", not shown]"}
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// pretty indents JSON in its own key order; anything else is shown as is.
func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b strings.Builder
	if err := indent(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
