package ops

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/sanitize"
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

// ExportResult is what an export wrote (export.Summary).
type ExportResult = export.Summary

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
	from, err := export.ParseBound("--from", q.From, false, o.Now(), backend.ExportCursorPlace)
	if err != nil {
		return nil, err
	}
	to, err := export.ParseBound("--to", q.To, true, o.Now(), backend.ExportCursorPlace)
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
	plan, err := backend.PlanExport(ctx, sess.tr, sess.b, sess.readers[0].Where(), q.Lineage)
	if err != nil {
		return nil, err
	}
	if plan.Warn != "" {
		o.warn(plan.Warn)
	}
	meta := &plan.Meta
	meta.Key, meta.Agent, meta.Label, meta.Orphan = sess.Key, sess.Agent, sess.Label, sess.Orphan
	if meta.SessionID == "" {
		meta.SessionID = sess.SessionID
	}
	meta.Lineage, meta.Redacted, meta.NoTools, meta.NoThinking = q.Lineage, o.masking(), q.NoTools, q.NoThinking
	meta.Range = export.RangeOf(from, to, q.Last)
	shown, err := deliver(o, meta, nil)
	if err != nil {
		return nil, err
	}
	r, err := export.Run(ctx, export.Job{Format: q.Format, Meta: shown, Sources: plan.Sources, From: from, To: to, Last: q.Last,
		NoTools: q.NoTools, NoThinking: q.NoThinking, MaxBytes: q.MaxBytes, Progress: q.Progress, Write: o.exportLine}, w)
	if err != nil {
		return nil, err
	}
	return r.Summary(meta, q.Format, len(plan.Sources)), nil
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

// ExportPageBytes is the cap of an agent's export page (sessions_export):
// sessions_history's 80 KiB.
const ExportPageBytes = sanitize.DefaultCapBytes
