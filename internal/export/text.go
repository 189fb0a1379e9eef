package export

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/render"
)

// mdWriter writes Markdown: a heading with the session's facts, then one
// section per message as `sessions history --format markdown` writes them,
// a rule and a note at each transcript boundary, the totals at the end.
type mdWriter struct {
	w        io.Writer
	meta     *Meta
	tot      Totals
	segments int
}

func (m *mdWriter) Begin(meta *Meta) error {
	m.meta = meta
	title := "Session " + meta.Key
	if meta.Key == "" {
		title = "Transcript " + meta.SessionID
	}
	return render.MarkdownHeader(m.w, title, meta.facts())
}

func (m *mdWriter) Segment(s Segment) error {
	m.segments++
	if m.segments == 1 && (s.Source == "current" || m.meta.Orphan) {
		return nil // the export's one transcript: the header says what it is
	}
	what := "Transcript " + s.SessionID
	switch s.Source {
	case "orphan":
		what = "Earlier transcript " + s.SessionID + " (before a reset)"
	case "archived":
		what = "Earlier transcript " + s.SessionID + " (archived)"
	case "current":
		what = "Current transcript " + s.SessionID
	}
	_, err := io.WriteString(m.w, "\n---\n\n**"+what+"**\n")
	return err
}

func (m *mdWriter) Write(l Line) error {
	if l.Message == nil {
		return nil
	}
	h := readHead(l.Message)
	m.tot.add(&h)
	var b strings.Builder
	mdMessage(&b, l.Seq, &h)
	_, err := io.WriteString(m.w, b.String())
	return err
}

func (m *mdWriter) End() error {
	_, err := io.WriteString(m.w, "\n---\n\nTotals: "+m.tot.line()+"\n")
	return err
}

// jsonWriter writes one JSON document: the session's facts and entry,
// then every message as stored, then the transcripts it read and the
// totals — written as it goes, so the messages are never held.
type jsonWriter struct {
	w    io.Writer
	n    int
	segs []Segment
	tot  Totals
}

func (j *jsonWriter) Begin(meta *Meta) error {
	b, err := jsonx.Marshal(meta)
	if err != nil {
		return err
	}
	_, err = io.WriteString(j.w, "{\"session\":"+string(b)+",\"messages\":[")
	return err
}

func (j *jsonWriter) Segment(s Segment) error {
	j.segs = append(j.segs, s)
	return nil
}

func (j *jsonWriter) Write(l Line) error {
	if l.Message == nil {
		return nil
	}
	if len(j.segs) > 0 {
		s := &j.segs[len(j.segs)-1]
		if s.Messages == 0 {
			s.First = l.Seq
		}
		s.Messages++
	}
	h := readHead(l.Message)
	j.tot.add(&h)
	sep := ",\n"
	if j.n == 0 {
		sep = "\n"
	}
	j.n++
	if _, err := io.WriteString(j.w, sep); err != nil {
		return err
	}
	_, err := j.w.Write(l.Message)
	return err
}

func (j *jsonWriter) End() error {
	if j.segs == nil {
		j.segs = []Segment{}
	}
	segs, err := jsonx.Marshal(j.segs)
	if err != nil {
		return err
	}
	tot, err := jsonx.Marshal(j.tot)
	if err != nil {
		return err
	}
	nl := "\n"
	if j.n == 0 {
		nl = ""
	}
	_, err = io.WriteString(j.w, nl+"],\"transcripts\":"+string(segs)+",\"totals\":"+string(tot)+"}\n")
	return err
}

// jsonlWriter writes OpenClaw's own lines as stored, one a line: every
// transcript's lines in turn (each begins with its own session header, the
// boundary OpenClaw itself writes).
type jsonlWriter struct {
	w io.Writer
}

func (j *jsonlWriter) Begin(*Meta) error     { return nil }
func (j *jsonlWriter) Segment(Segment) error { return nil }
func (j *jsonlWriter) End() error            { return nil }

var newline = []byte{'\n'}

func (j *jsonlWriter) Write(l Line) error {
	raw := l.Raw
	if raw == nil {
		raw = l.Message
	}
	if raw == nil {
		return nil
	}
	if _, err := j.w.Write(raw); err != nil || l.Unterminated {
		return err
	}
	_, err := j.w.Write(newline)
	return err
}

func indent(b *strings.Builder, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
		return err
	}
	b.Write(buf.Bytes())
	return nil
}
