package ops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/when"
)

// ExportQuery shapes an export.
type ExportQuery struct {
	Format export.Format
	// Lineage: the session's earlier transcripts (a /new or /reset left
	// them) come first, each after a marked boundary.
	Lineage bool
	// From, To bound the range (inclusive): a message's sequence number
	// in the export (N or seq:N), a history cursor, a time (RFC 3339, a
	// date, or 7d-style back from now; time:… to force it), or a line's
	// id (id:… to force it). Last keeps the last Last messages of it.
	From, To string
	Last     int
	// NoTools, NoThinking leave out tool calls and results, thinking.
	NoTools, NoThinking bool
	// Progress, when set, is told the messages written so far, now and
	// then (a terminal's progress line), and once more with done at the
	// end.
	Progress func(messages int, done bool)
	// MaxBytes > 0 caps the messages written (a page for an agent, as
	// sessions_history's): the export stops before the message that would
	// pass it (the first one is cut instead) and says where the next page
	// starts (ExportResult.NextFrom).
	MaxBytes int
}

// ExportResult is what an export wrote.
type ExportResult struct {
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId,omitempty"`
	Format     string `json:"format"`
	Messages   int    `json:"messages"`
	// Transcripts is how many transcripts were read (more than one with
	// lineage).
	Transcripts int  `json:"transcripts"`
	Redacted    bool `json:"redacted"`
	// Window: the gateway's window cut the conversation (stated on the
	// page).
	Window string `json:"window,omitempty"`
	// With ExportQuery.MaxBytes: Bytes written; Truncated, a message was
	// cut to the cap; HasMore, messages of the range follow, from NextFrom
	// (give it as From, with the same To).
	Bytes     int    `json:"bytes,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	HasMore   bool   `json:"hasMore"`
	NextFrom  string `json:"nextFrom,omitempty"`
}

// bound is one end of an export's range.
type bound struct {
	kind  string // "seq", "time", "id", "cursor"
	seq   int
	ms    int64
	id    string
	sid   string
	pos   int64
	check uint32
	text  string
}

// parseBound reads a --from/--to value.
func (o *Ops) parseBound(flag, s string, until bool) (*bound, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	b := &bound{text: s}
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "seq":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return nil, apperr.Usagef("invalid %s %q: seq: takes a message's sequence number (1 or more)", flag, s)
		}
		b.kind, b.seq = "seq", n
		return b, nil
	case "id":
		if rest == "" {
			return nil, apperr.Usagef("invalid %s %q: id: takes a line's id", flag, s)
		}
		b.kind, b.id = "id", rest
		return b, nil
	case "time":
		ms, err := when.Parse(rest, o.Now(), o.Now().Location(), until)
		if err != nil || ms == 0 {
			return nil, apperr.Usagef("invalid %s %q: %v", flag, s, err)
		}
		b.kind, b.ms = "time", ms
		return b, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, apperr.Usagef("invalid %s %q: a sequence number is 1 or more", flag, s)
		}
		b.kind, b.seq = "seq", n
		return b, nil
	}
	if backend.IsGatewayCursor(s) {
		return nil, apperr.Usagef("invalid %s %q: a gateway's cursor names no place an export can start from; give a time or a sequence number", flag, s)
	}
	if sid, pos, check, err := backend.CursorPlace(s); err == nil {
		b.kind, b.sid, b.pos, b.check = "cursor", sid, pos, check
		return b, nil
	}
	if ms, err := when.Parse(s, o.Now(), o.Now().Location(), until); err == nil && ms != 0 {
		b.kind, b.ms = "time", ms
		return b, nil
	}
	b.kind, b.id = "id", s
	return b, nil
}

func (b *bound) String() string {
	switch b.kind {
	case "seq":
		return fmt.Sprintf("message %d", b.seq)
	case "time":
		return export.Stamp(b.ms)
	case "cursor":
		return "cursor " + b.text
	}
	return "id " + b.id
}

// rangeOf states the range in the export's header ("" for the whole
// conversation).
func rangeOf(from, to *bound, last int) string {
	var parts []string
	if last > 0 {
		parts = append(parts, fmt.Sprintf("the last %d messages", last))
		if from != nil || to != nil {
			parts = append(parts, "of")
		}
	}
	if from != nil {
		parts = append(parts, "from "+from.String())
	}
	if to != nil {
		parts = append(parts, "to "+to.String()+" (inclusive)")
	}
	return strings.Join(parts, " ")
}

// matches says whether a line is the one an id or cursor bound names.
func (b *bound) matches(sid string, l *backend.ExportLine) bool {
	switch b.kind {
	case "cursor":
		return sid == b.sid && l.Pos == b.pos
	case "id":
		if l.Raw != nil && gjson.GetBytes(l.Raw, "id").String() == b.id {
			return true
		}
		return l.Message != nil && gjson.GetBytes(l.Message, "id").String() == b.id
	}
	return false
}

// ranger walks the messages of an export in order and says which are in
// its range.
type ranger struct {
	from, to *bound
	started  bool
	done     bool
	seq      int // the sequence number of the last message seen
}

// next classifies the next line: in (write it), stop (nothing after it is
// in the range).
func (r *ranger) next(sid string, l *backend.ExportLine) (in bool) {
	if r.done {
		return false
	}
	isMsg := l.Message != nil
	if isMsg {
		r.seq++
	}
	if !r.started {
		switch {
		case r.from == nil:
			r.started = true
		case r.from.kind == "seq":
			r.started = isMsg && r.seq >= r.from.seq
		case r.from.kind == "time":
			r.started = isMsg && export.MessageTime(l.Message) >= r.from.ms
		default:
			r.started = r.from.matches(sid, l)
		}
		if !r.started {
			return false
		}
	}
	if r.to != nil && isMsg {
		switch r.to.kind {
		case "seq":
			if r.seq > r.to.seq {
				r.done = true
				return false
			}
		case "time":
			if ts := export.MessageTime(l.Message); ts > r.to.ms {
				r.done = true
				return false
			}
		}
	}
	if r.to != nil && (r.to.kind == "id" || r.to.kind == "cursor") && r.to.matches(sid, l) {
		r.done = true // the last line of the range
	}
	return true
}

// errStopExport ends a transcript's read once the range is done.
var errStopExport = backend.ErrExportStop

// exportSource is one transcript to write: a stream, or the messages a
// gateway gave.
type exportSource struct {
	seg    export.Segment
	stream func(fn func(backend.ExportLine) error) error
}

// Export writes the conversation ref (or label) names to w in q.Format,
// oldest first, one line at a time (the agent boundary masks each as it
// goes out, for a requester or with --redact); what it wrote is returned.
func (o *Ops) Export(ctx context.Context, ref, label string, q ExportQuery, w io.Writer) (*ExportResult, error) {
	res, err := o.export(ctx, ref, label, q, w)
	if err != nil {
		return nil, o.boundary().Err(err)
	}
	return deliver(o, res, nil)
}

func (o *Ops) export(ctx context.Context, ref, label string, q ExportQuery, w io.Writer) (*ExportResult, error) {
	if q.Last < 0 {
		return nil, apperr.Usagef("invalid --last %d: 1 or more", q.Last)
	}
	from, err := o.parseBound("--from", q.From, false)
	if err != nil {
		return nil, err
	}
	to, err := o.parseBound("--to", q.To, true)
	if err != nil {
		return nil, err
	}
	ew, err := export.New(q.Format, io.Discard)
	if err != nil || ew == nil {
		return nil, err
	}
	sess, err := o.session(ctx, ref, label)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	meta := &export.Meta{Key: sess.Key, SessionID: sess.SessionID, Agent: sess.Agent, Label: sess.Label, Orphan: sess.Orphan,
		Lineage: q.Lineage, Redacted: o.masking(), NoTools: q.NoTools, NoThinking: q.NoThinking, Range: rangeOf(from, to, q.Last)}
	var srcs []exportSource
	if ex, ok := sess.tr.(backend.Exporter); ok {
		meta.Where = "this host"
		raw, row, err := ex.ExportEntry(sess.b)
		if err != nil {
			return nil, err
		}
		meta.Entry = raw
		if row != nil {
			fillMeta(meta, row.Kind, row.Channel, row.Model, row.TotalTokens, row.UpdatedAt)
		}
		if raw != nil {
			meta.CreatedAt = export.TimeOf(json.RawMessage(gjson.GetBytes(raw, "createdAt").Raw))
		}
		xs, err := ex.ExportSources(ctx, sess.b, q.Lineage)
		if err != nil {
			return nil, err
		}
		for _, x := range xs {
			srcs = append(srcs, exportSource{seg: export.Segment{SessionID: x.SessionID, Source: x.Source, Path: x.Path}, stream: x.Stream})
		}
	} else {
		// Over a gateway: chat.history's window, whole.
		page, err := sess.tr.History(ctx, sess.b, backend.HistoryQuery{All: true, IncludeTools: true})
		if err != nil {
			return nil, err
		}
		meta.Where = "gateway " + sess.readers[0].Where()
		meta.SessionID = sess.b.SessionID
		meta.Entry = sess.b.Raw
		r := sess.b.Row
		fillMeta(meta, r.Kind, r.Channel, r.Model, r.TotalTokens, r.UpdatedAt)
		if page.WindowFull {
			meta.Window = fmt.Sprintf("Read over a gateway: chat.history gives at most the last %d messages of a session; this one reaches that limit, so older messages may be missing here (export on the gateway's host for the whole conversation).", backend.HistoryWindow)
		}
		if q.Lineage {
			o.warn("export: --lineage: a gateway gives the current transcript only")
		}
		msgs := page.Messages
		srcs = append(srcs, exportSource{seg: export.Segment{SessionID: sess.b.SessionID, Source: "gateway"}, stream: func(fn func(backend.ExportLine) error) error {
			for _, m := range msgs {
				if err := fn(backend.ExportLine{Raw: m, Message: m}); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	if meta.Key == "" && meta.SessionID == "" {
		meta.SessionID = sess.SessionID
	}
	skip := 0
	if q.Last > 0 {
		n, err := o.countExport(ctx, srcs, from, to, q)
		if err != nil {
			return nil, err
		}
		skip = max(0, n-q.Last)
	}
	shown, err := deliver(o, meta, nil)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var page *bytes.Buffer // with MaxBytes: the page, kept until it is known whole
	out := io.Writer(bw)
	if q.MaxBytes > 0 {
		page = &bytes.Buffer{}
		out = page
	}
	capped := false
	if ew, err = export.New(q.Format, out); err != nil {
		return nil, err
	}
	if err := ew.Begin(shown); err != nil {
		return nil, err
	}
	res := &ExportResult{SessionKey: sess.Key, SessionID: meta.SessionID, Format: string(q.Format), Transcripts: len(srcs), Redacted: meta.Redacted}
	if meta.Window != "" {
		res.Window = meta.Window
	}
	rg := &ranger{from: from, to: to}
	jsonl := q.Format == export.JSONL
	kept := 0
	for _, src := range srcs {
		if rg.done {
			break
		}
		if err := ew.Segment(src.seg); err != nil {
			return nil, err
		}
		sid := src.seg.SessionID
		err := src.stream(func(l backend.ExportLine) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			compaction(&l)
			in := rg.next(sid, &l)
			header := jsonl && l.Message == nil && l.Raw != nil && gjson.GetBytes(l.Raw, "type").Str == "session"
			if !in && !header {
				if rg.done {
					return errStopExport
				}
				return nil
			}
			if capped && l.Message != nil {
				res.HasMore, res.NextFrom = true, strconv.Itoa(rg.seq)
				return errStopExport
			}
			line := export.Line{Raw: l.Raw, Message: l.Message, Unterminated: l.Unterminated}
			if l.Message != nil {
				line.Seq = rg.seq
				m, keep := export.Filter(l.Message, q.NoTools, q.NoThinking)
				if !keep {
					return nil
				}
				if kept++; kept <= skip {
					return nil
				}
				if jsonl && line.Raw != nil && len(m) != len(l.Message) {
					line.Raw = export.ReplaceMessage(line.Raw, m) // the line, with what was left out taken out
				}
				line.Message = m
			} else if !jsonl || !header && kept < skip {
				return nil
			}
			before := 0
			if page != nil {
				before = page.Len()
			}
			if err := o.exportLine(ew, line, jsonl); err != nil {
				return err
			}
			if page != nil && line.Message != nil && page.Len() > q.MaxBytes {
				capped = true
				if res.Messages > 0 {
					page.Truncate(before) // this message begins the next page
					res.HasMore, res.NextFrom = true, strconv.Itoa(line.Seq)
					return errStopExport
				}
				cutAt := q.MaxBytes
				for cutAt > 0 && !utf8.RuneStart(page.Bytes()[cutAt]) {
					cutAt--
				}
				page.Truncate(cutAt)
				page.WriteString("\n\n…(truncated: the message is longer than the page's cap)\n")
				res.Truncated = true
			}
			if line.Message != nil {
				res.Messages++
				if q.Progress != nil && res.Messages%1000 == 0 {
					q.Progress(res.Messages, false)
				}
			}
			if rg.done {
				return errStopExport
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopExport) {
			return nil, err
		}
	}
	if err := ew.End(); err != nil {
		return nil, err
	}
	if page != nil {
		res.Bytes = page.Len()
		if _, err := bw.Write(page.Bytes()); err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if q.Progress != nil {
		q.Progress(res.Messages, true)
	}
	return res, nil
}

// exportLine writes one line, masked on its way out when text is masked
// (the message as history masks it, then the agent boundary; a jsonl line
// whole through the boundary).
func (o *Ops) exportLine(ew export.Writer, l export.Line, jsonl bool) error {
	if !o.masking() {
		return ew.Write(l)
	}
	if l.Message != nil {
		msgs := []json.RawMessage{append(json.RawMessage(nil), l.Message...)}
		o.redactMessages(msgs)
		if jsonl && l.Raw != nil {
			l.Raw = export.ReplaceMessage(l.Raw, msgs[0]) // the line, masked whole below
		} else {
			m, err := deliver(o, msgs[0], nil)
			if err != nil {
				return err
			}
			l.Message = m
		}
	}
	if l.Raw != nil {
		if len(l.Raw) > MaskMaxMessage {
			l.Raw = []byte(`{"type":"omitted","reason":"line too large to mask","bytes":` + strconv.Itoa(len(l.Raw)) + `}`)
		} else if json.Valid(l.Raw) {
			r, err := deliver(o, json.RawMessage(l.Raw), nil)
			if err != nil {
				return err
			}
			l.Raw = r
		} else {
			l.Raw = nil // an unreadable line cannot be masked: left out
			if l.Message == nil {
				return nil
			}
		}
	}
	return ew.Write(l)
}

// countExport counts the messages of the range (for --last), reading the
// transcripts once without writing.
func (o *Ops) countExport(ctx context.Context, srcs []exportSource, from, to *bound, q ExportQuery) (int, error) {
	rg := &ranger{from: from, to: to}
	n := 0
	for _, src := range srcs {
		if rg.done {
			break
		}
		sid := src.seg.SessionID
		err := src.stream(func(l backend.ExportLine) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			compaction(&l)
			if rg.next(sid, &l) && l.Message != nil {
				if _, keep := export.Filter(l.Message, q.NoTools, q.NoThinking); keep {
					n++
				}
			}
			if rg.done {
				return errStopExport
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopExport) {
			return 0, err
		}
	}
	return n, nil
}

func fillMeta(m *export.Meta, kind, channel, model string, tokens, updated *float64) {
	m.Kind, m.Channel, m.Model = kind, channel, model
	if tokens != nil {
		m.Tokens = int64(*tokens)
	}
	if updated != nil {
		m.UpdatedAt = int64(*updated)
	}
}

// ExportPageBytes is the cap of an agent's export page (sessions_export):
// sessions_history's 80 KiB.
const ExportPageBytes = sanitize.DefaultCapBytes

// compaction gives a compaction entry (a line of type "compaction": what
// OpenClaw summarised of the conversation before it) a message where it
// stands, of role "compactionSummary", so every format shows the summary
// in its place; its line is still written as stored in jsonl.
func compaction(l *backend.ExportLine) {
	if l.Message != nil || l.Raw == nil {
		return
	}
	r := gjson.GetManyBytes(l.Raw, "type", "summary", "timestamp")
	if r[0].Str != "compaction" || r[1].Type != gjson.String {
		return
	}
	m := map[string]any{"role": "compactionSummary", "content": []any{map[string]any{"type": "text", "text": r[1].Str}}}
	if ts := export.TimeOf(json.RawMessage(r[2].Raw)); ts > 0 {
		m["timestamp"] = ts
	}
	b, err := json.Marshal(m)
	if err == nil {
		l.Message = b
	}
}
