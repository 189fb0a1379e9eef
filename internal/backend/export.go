package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// Exporter reads a session's whole conversation as a stream, transcript by
// transcript, oldest first (local.Local). A reader without it (a gateway) gives
// what History with All reaches.
type Exporter interface {
	// ExportSources are the transcripts of s in order: with lineage its
	// earlier ones first (those show lists: orphans a reset left, archives
	// a 2026.9 store keeps), then its current one.
	ExportSources(ctx context.Context, s *Session, lineage bool) ([]*ExportSource, error)
	// ExportEntry is s's entry as stored (nil for an orphan).
	ExportEntry(s *Session) (json.RawMessage, *state.Row, error)
}

// ExportLine is one line of a transcript (an event of a 2026.8+ store),
// as an export reads it.
type ExportLine = export.SourceLine

// Sources of an export's transcripts (ExportSource.Source).
const (
	ExportCurrent = "current"
)

// ExportSource is one transcript of an export.
type ExportSource struct {
	SessionID string
	Source    string // ExportCurrent, EarlierOrphan, EarlierArchived
	Path      string // the file, "" for a store's events or archive
	// Read streams the lines (Stream).
	Read func(fn func(ExportLine) error) error
}

// Stream calls fn with each line of the transcript, in order, one at a
// time. A torn last line (a writer mid-append) and lines too long to read
// are passed over; other unreadable lines are given as stored, without a
// message.
func (x *ExportSource) Stream(fn func(ExportLine) error) error { return x.Read(fn) }

// CursorPlace is the transcript and position a history cursor names.
func CursorPlace(cursor string) (sessionID string, pos int64, check uint32, err error) {
	c, err := ParseCursor(cursor)
	if err != nil {
		return "", 0, 0, err
	}
	return c.SessionID, c.Pos, c.Check, nil
}

func isExportStop(err error) bool { return errors.Is(err, ErrExportStop) }

// ErrExportStop, returned by a Stream callback, ends the read early
// (the range's end was reached); Stream returns it as is.
var ErrExportStop = export.ErrStop

// ExportPlan is what an export of one session reads: the facts its header
// states and its transcripts in order.
type ExportPlan struct {
	Meta    export.Meta // the host's facts (Where, Entry, the row's, Window)
	Sources []export.Source
	// Warn, when set, is a note for the operator (a gateway gives no
	// lineage).
	Warn string
}

// PlanExport assembles what an export of s reads on the host of tr (where
// names that host, for a gateway): with an Exporter (local.Local) its entry and
// transcripts (with lineage, the earlier ones first); else the gateway's
// chat.history window, whole.
func PlanExport(ctx context.Context, tr Transcripts, s *Session, where string, lineage bool) (*ExportPlan, error) {
	p := &ExportPlan{}
	m := &p.Meta
	if ex, ok := tr.(Exporter); ok {
		m.Where = "this host"
		raw, row, err := ex.ExportEntry(s)
		if err != nil {
			return nil, err
		}
		m.Entry = raw
		if row != nil {
			export.FillMeta(m, row.Kind, row.Channel, row.Model, row.TotalTokens, row.UpdatedAt)
		}
		if raw != nil {
			m.CreatedAt = export.TimeOf(json.RawMessage(gjson.GetBytes(raw, "createdAt").Raw))
		}
		xs, err := ex.ExportSources(ctx, s, lineage)
		if err != nil {
			return nil, err
		}
		for _, x := range xs {
			p.Sources = append(p.Sources, export.Source{Seg: export.Segment{SessionID: x.SessionID, Source: x.Source, Path: x.Path}, Stream: x.Read})
		}
		return p, nil
	}
	page, err := tr.History(ctx, s, HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	m.Where = "gateway " + where
	m.SessionID = s.SessionID
	m.Entry = s.Raw
	r := s.Row
	export.FillMeta(m, r.Kind, r.Channel, r.Model, r.TotalTokens, r.UpdatedAt)
	if page.WindowFull {
		m.Window = fmt.Sprintf("Read over a gateway: chat.history gives at most the last %d messages of a session; this one reaches that limit, so older messages may be missing here (export on the gateway's host for the whole conversation).", HistoryWindow)
	}
	if lineage {
		p.Warn = "export: --lineage: a gateway gives the current transcript only"
	}
	msgs := page.Messages
	p.Sources = append(p.Sources, export.Source{Seg: export.Segment{SessionID: s.SessionID, Source: "gateway"}, Stream: func(fn func(ExportLine) error) error {
		for _, m := range msgs {
			if err := fn(ExportLine{Raw: m, Message: m}); err != nil {
				return err
			}
		}
		return nil
	}})
	return p, nil
}

// ExportCursorPlace reads an export bound's history cursor
// (export.CursorPlace): the place a cursor of this host names, or that it
// is a gateway's.
func ExportCursorPlace(s string) (sessionID string, pos int64, gateway, ok bool) {
	if IsGatewayCursor(s) {
		return "", 0, true, false
	}
	sid, pos, _, err := CursorPlace(s)
	return sid, pos, false, err == nil
}
