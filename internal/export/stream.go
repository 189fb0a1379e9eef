package export

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
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/when"
)

// Bound is one end of an export's range (--from, --to).
type Bound struct {
	kind string // "seq", "time", "id", "cursor"
	seq  int
	ms   int64
	id   string
	sid  string
	pos  int64
	text string
}

// CursorPlace reads a history cursor: the transcript and position it
// names (ok), or gateway when it is a gateway's cursor (which names no
// place). The hosts own the cursor's encoding; an export only compares.
type CursorPlace func(s string) (sessionID string, pos int64, gateway, ok bool)

// ParseBound reads a --from/--to value (flag names it in errors): a
// message's sequence number (N or seq:N), a history cursor, a time (RFC
// 3339, a date, or 7d-style back from now; time:… to force it), or a
// line's id (id:… to force it). An empty value is no bound (nil).
func ParseBound(flag, s string, until bool, now time.Time, place CursorPlace) (*Bound, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	b := &Bound{text: s}
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
		ms, err := when.Parse(rest, now, now.Location(), until)
		if err != nil || ms == 0 {
			return nil, apperr.Usagef("invalid %s %q: %v", flag, s, err)
		}
		b.kind, b.ms = "time", dayEnd(rest, ms, until)
		return b, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, apperr.Usagef("invalid %s %q: a sequence number is 1 or more", flag, s)
		}
		b.kind, b.seq = "seq", n
		return b, nil
	}
	sid, pos, gw, ok := place(s)
	if gw {
		return nil, apperr.Usagef("invalid %s %q: a gateway's cursor names no place an export can start from; give a time or a sequence number", flag, s)
	}
	if ok {
		b.kind, b.sid, b.pos = "cursor", sid, pos
		return b, nil
	}
	if ms, err := when.Parse(s, now, now.Location(), until); err == nil && ms != 0 {
		b.kind, b.ms = "time", dayEnd(s, ms, until)
		return b, nil
	}
	b.kind, b.id = "id", s
	return b, nil
}

// dayEnd: --to a date (when.Parse's end of it: the next midnight) is its
// last millisecond, since --to is inclusive and the next midnight is the
// next day's.
func dayEnd(s string, ms int64, until bool) int64 {
	if _, err := time.Parse("2006-01-02", strings.TrimSpace(s)); until && err == nil {
		return ms - 1
	}
	return ms
}

func (b *Bound) String() string {
	switch b.kind {
	case "seq":
		return fmt.Sprintf("message %d", b.seq)
	case "time":
		return Stamp(b.ms)
	case "cursor":
		return "cursor " + b.text
	}
	return "id " + b.id
}

// RangeOf states the range in the export's header ("" for the whole
// conversation).
func RangeOf(from, to *Bound, last int) string {
	var parts []string
	switch {
	case last > 0 && from != nil:
		parts = append(parts, fmt.Sprintf("the last %d of the messages", last))
	case last > 0 && to != nil:
		parts = append(parts, fmt.Sprintf("the last %d messages up", last))
	case last > 0:
		parts = append(parts, fmt.Sprintf("the last %d messages", last))
	}
	if from != nil {
		parts = append(parts, "from "+from.String())
	}
	if to != nil {
		parts = append(parts, "to "+to.String()+" (inclusive)")
	}
	return strings.Join(parts, " ")
}

// SourceLine is one line of a transcript as a host streams it.
type SourceLine struct {
	// Pos is where it is stored (a byte offset, or an event's seq); Check
	// its fingerprint: what a history cursor names.
	Pos   int64
	Check uint32
	// Raw is the line as stored (valid until the callback returns);
	// Message its message object, nil when it has none.
	Raw          []byte
	Message      json.RawMessage
	Unterminated bool
}

// Source is one transcript of an export: its segment and its lines.
type Source struct {
	Seg    Segment
	Stream func(fn func(SourceLine) error) error
}

// Kind is what the bound names: "seq" (a message's sequence number),
// "time", "id" (a line's id) or "cursor" (a history cursor of this host's
// transcripts).
func (b *Bound) Kind() string { return b.kind }

// matches says whether a line is the one an id or cursor bound names. A
// message read over a gateway carries its line's id as __openclaw.id
// (OpenClaw 2026.9+).
func (b *Bound) matches(sid string, l *SourceLine) bool {
	switch b.kind {
	case "cursor":
		return sid == b.sid && l.Pos == b.pos
	case "id":
		if l.Raw != nil && gjson.GetBytes(l.Raw, "id").String() == b.id {
			return true
		}
		if l.Message == nil {
			return false
		}
		return gjson.GetBytes(l.Message, "id").String() == b.id || gjson.GetBytes(l.Message, "__openclaw.id").String() == b.id
	}
	return false
}

// Seeker finds, among a transcript's lines given in order, the message a
// bound names: the first message of the range --from would start there
// (history --around). An id or cursor of a line that holds no message
// names the first message after it.
type Seeker struct {
	r    ranger
	done bool
}

// NewSeeker seeks the message b names.
func NewSeeker(b *Bound) *Seeker { return &Seeker{r: ranger{from: b}} }

// Next reports whether l (of the transcript of session sid) is the
// message sought; it is true once.
func (s *Seeker) Next(sid string, l *SourceLine) bool {
	if s.done || !s.r.next(sid, l) || l.Message == nil {
		return false
	}
	s.done = true
	return true
}

// ranger walks the messages of an export in order and says which are in
// its range.
type ranger struct {
	from, to *Bound
	started  bool
	done     bool
	seq      int // the sequence number of the last message seen
}

// next classifies the next line: in (write it); done is set once nothing
// after it is in the range.
func (r *ranger) next(sid string, l *SourceLine) (in bool) {
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
			r.started = isMsg && MessageTime(l.Message) >= r.from.ms
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
			if ts := MessageTime(l.Message); ts > r.to.ms {
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

// PageTrailer is the room a capped page keeps for what follows its
// messages: the truncation note of a message cut to the cap and the totals
// End writes (Markdown's line is under 300 bytes).
const PageTrailer = 512

// ErrStop, returned by a Stream callback, ends the read early (the
// range's end was reached); a Stream returns it as is.
var ErrStop = errors.New("export: end of range")

// Job is one export to run: the sources in order, the range and filters,
// and how a line goes out.
type Job struct {
	Format   Format
	Meta     *Meta // as delivered (Begin's)
	Sources  []Source
	From, To *Bound
	Last     int
	// NoTools, NoThinking leave out tool calls and results, thinking.
	NoTools, NoThinking bool
	// MaxBytes > 0 caps the page written, its header and totals included
	// (a Markdown or JSON page: PageTrailer bytes are kept for what End
	// writes): it is cut before the message that would pass it (the first
	// one is cut instead).
	MaxBytes int
	// Progress, when set, is told the messages written so far, now and
	// then, and once more with done at the end.
	Progress func(messages int, done bool)
	// Write writes one line with ew (the caller's agent boundary masks
	// it on its way out); nil writes it as it is.
	Write func(ew Writer, l Line, jsonl bool) error
}

// Result is what a Run wrote.
type Result struct {
	Messages  int
	Bytes     int
	Truncated bool
	HasMore   bool
	NextFrom  string
}

// Summary is what an export wrote: the document an export answers with
// (`sessions export --json`'s, the MCP server's sessions_export).
type Summary struct {
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
	// With Job.MaxBytes: Bytes written; Truncated, a message was
	// cut to the cap; HasMore, messages of the range follow, from NextFrom
	// (give it as From, with the same To).
	Bytes     int    `json:"bytes,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	HasMore   bool   `json:"hasMore"`
	NextFrom  string `json:"nextFrom,omitempty"`
}

// Summary is the document of what r wrote of the session m describes,
// in format f, from that many transcripts.
func (r *Result) Summary(m *Meta, f Format, transcripts int) *Summary {
	return &Summary{SessionKey: m.Key, SessionID: m.SessionID, Format: string(f), Transcripts: transcripts,
		Redacted: m.Redacted, Window: m.Window, Messages: r.Messages, Bytes: r.Bytes, Truncated: r.Truncated,
		HasMore: r.HasMore, NextFrom: r.NextFrom}
}

// Run writes the export to w: the sources' lines in the range, filtered,
// one at a time, in Job.Format.
func Run(ctx context.Context, j Job, w io.Writer) (*Result, error) {
	if err := checkRange(j.From, j.To); err != nil {
		return nil, err
	}
	write := j.Write
	if write == nil {
		write = func(ew Writer, l Line, _ bool) error { return ew.Write(l) }
	}
	skip := 0
	if j.Last > 0 {
		n, err := count(ctx, j)
		if err != nil {
			return nil, err
		}
		skip = max(0, n-j.Last)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var page *bytes.Buffer // with MaxBytes: the page, kept until it is known whole
	out := io.Writer(bw)
	if j.MaxBytes > 0 {
		page = &bytes.Buffer{}
		out = page
	}
	capped := false
	limit := max(j.MaxBytes-PageTrailer, j.MaxBytes/2) // the messages' room: End's totals follow them
	ew, err := New(j.Format, out)
	if err != nil {
		return nil, err
	}
	if err := ew.Begin(j.Meta); err != nil {
		return nil, err
	}
	res := &Result{}
	rg := &ranger{from: j.From, to: j.To}
	jsonl := j.Format == JSONL
	kept := 0
	for _, src := range j.Sources {
		if rg.done {
			break
		}
		if err := ew.Segment(src.Seg); err != nil {
			return nil, err
		}
		sid := src.Seg.SessionID
		err := src.Stream(func(l SourceLine) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			compaction(&l)
			in := rg.next(sid, &l)
			header := jsonl && l.Message == nil && l.Raw != nil && gjson.GetBytes(l.Raw, "type").Str == "session"
			if !in && !header {
				if rg.done {
					return ErrStop
				}
				return nil
			}
			if capped && l.Message != nil {
				res.HasMore, res.NextFrom = true, strconv.Itoa(rg.seq)
				return ErrStop
			}
			line := Line{Raw: l.Raw, Message: l.Message, Unterminated: l.Unterminated}
			if l.Message != nil {
				line.Seq = rg.seq
				m, keep := Filter(l.Message, j.NoTools, j.NoThinking)
				if !keep {
					return nil
				}
				if kept++; kept <= skip {
					return nil
				}
				if jsonl && line.Raw != nil && len(m) != len(l.Message) {
					line.Raw = ReplaceMessage(line.Raw, m) // the line, with what was left out taken out
				}
				line.Message = m
			} else if !jsonl || !header && kept < skip {
				return nil
			}
			before := 0
			if page != nil {
				before = page.Len()
			}
			if err := write(ew, line, jsonl); err != nil {
				return err
			}
			if page != nil && line.Message != nil && page.Len() > limit {
				capped = true
				if res.Messages > 0 {
					page.Truncate(before) // this message begins the next page
					res.HasMore, res.NextFrom = true, strconv.Itoa(line.Seq)
					return ErrStop
				}
				cutAt := limit
				for cutAt > 0 && !utf8.RuneStart(page.Bytes()[cutAt]) {
					cutAt--
				}
				page.Truncate(cutAt)
				page.WriteString("\n\n…(truncated: the message is longer than the page's cap)\n")
				res.Truncated = true
			}
			if line.Message != nil {
				res.Messages++
				if j.Progress != nil && res.Messages%1000 == 0 {
					j.Progress(res.Messages, false)
				}
			}
			if rg.done {
				return ErrStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrStop) {
			return nil, err
		}
	}
	if unmet(j.From, rg.started) {
		return nil, j.notFound("--from", j.From) // nothing is flushed yet: no message was written
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
	if j.Progress != nil {
		j.Progress(res.Messages, true)
	}
	if !res.HasMore && unmet(j.To, rg.done) {
		return nil, j.notFound("--to", j.To) // the export ran to its end without meeting it
	}
	return res, nil
}

// checkRange refuses a range whose ends are of one kind and out of order
// (--from 5 --to 3): it can hold no message.
func checkRange(from, to *Bound) error {
	if from == nil || to == nil || from.kind != to.kind {
		return nil
	}
	if from.kind == "seq" && from.seq > to.seq || from.kind == "time" && from.ms > to.ms {
		return apperr.Usagef("invalid range: --from %s is after --to %s", from.text, to.text)
	}
	return nil
}

// unmet: b names a line (an id or a cursor) the export never met.
func unmet(b *Bound, met bool) bool {
	return b != nil && !met && (b.kind == "id" || b.kind == "cursor")
}

// notFound is the error of a bound naming a line the export does not hold.
func (j *Job) notFound(flag string, b *Bound) error {
	name := "the export"
	if j.Meta != nil {
		switch {
		case j.Meta.Key != "":
			name = "the export of " + j.Meta.Key
		case j.Meta.SessionID != "":
			name = "the export of transcript " + j.Meta.SessionID
		}
	}
	what := "no such line in " + name
	if flag == "--to" && j.From != nil {
		what = "no such line in " + name + " at or after --from " + j.From.text
	}
	if j.Meta != nil && j.Meta.Window != "" {
		what += " (read over a gateway: older messages are beyond chat.history's window)"
	}
	return apperr.NotFoundf("%s %s: %s", flag, b.text, what)
}

// count counts the messages of the range (for Last), reading the
// transcripts once without writing.
func count(ctx context.Context, j Job) (int, error) {
	rg := &ranger{from: j.From, to: j.To}
	n := 0
	for _, src := range j.Sources {
		if rg.done {
			break
		}
		sid := src.Seg.SessionID
		err := src.Stream(func(l SourceLine) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			compaction(&l)
			if rg.next(sid, &l) && l.Message != nil {
				if _, keep := Filter(l.Message, j.NoTools, j.NoThinking); keep {
					n++
				}
			}
			if rg.done {
				return ErrStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrStop) {
			return 0, err
		}
	}
	return n, nil
}

// compaction gives a compaction entry (a line of type "compaction": what
// OpenClaw summarised of the conversation before it) a message where it
// stands, of role "compactionSummary", so every format shows the summary
// in its place; its line is still written as stored in jsonl.
func compaction(l *SourceLine) {
	if l.Message != nil || l.Raw == nil {
		return
	}
	r := gjson.GetManyBytes(l.Raw, "type", "summary", "timestamp")
	if r[0].Str != "compaction" || r[1].Type != gjson.String {
		return
	}
	m := map[string]any{"role": "compactionSummary", "content": []any{map[string]any{"type": "text", "text": r[1].Str}}}
	if ts := TimeOf(json.RawMessage(r[2].Raw)); ts > 0 {
		m["timestamp"] = ts
	}
	b, err := json.Marshal(m)
	if err == nil {
		l.Message = b
	}
}

// FillMeta sets the facts of a session's row on m.
func FillMeta(m *Meta, kind, channel, model string, tokens, updated *float64) {
	m.Kind, m.Channel, m.Model = kind, channel, model
	if tokens != nil {
		m.Tokens = int64(*tokens)
	}
	if updated != nil {
		m.UpdatedAt = int64(*updated)
	}
}
