package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/export"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/transcripts"
)

// Exporter reads a session's whole conversation as a stream, transcript by
// transcript, oldest first (Local). A reader without it (a gateway) gives
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
	stream    func(fn func(ExportLine) error) error
}

// Stream calls fn with each line of the transcript, in order, one at a
// time. A torn last line (a writer mid-append) and lines too long to read
// are passed over; other unreadable lines are given as stored, without a
// message.
func (x *ExportSource) Stream(fn func(ExportLine) error) error { return x.stream(fn) }

// CursorPlace is the transcript and position a history cursor names.
func CursorPlace(cursor string) (sessionID string, pos int64, check uint32, err error) {
	c, err := ParseCursor(cursor)
	if err != nil {
		return "", 0, 0, err
	}
	return c.SessionID, c.Pos, c.Check, nil
}

// ExportEntry is the session's entry as stored and its row.
func (l *Local) ExportEntry(sess *Session) (json.RawMessage, *state.Row, error) {
	ls := sess.local
	if ls == nil || ls.t == nil {
		return nil, nil, nil
	}
	raw, err := showEntryRaw(ls.s, ls.t)
	if err != nil {
		return nil, nil, err
	}
	row := ls.s.Row(ls.t.Agent, ls.t.Store, ls.t.Entry)
	return raw, &row, nil
}

// ExportSources: see Exporter.
func (l *Local) ExportSources(_ context.Context, sess *Session, lineage bool) ([]*ExportSource, error) {
	ls := sess.local
	if ls == nil {
		return nil, apperr.Statef("%s is not a session of this host", sess.Key)
	}
	var out []*ExportSource
	warn := l.Warn
	lineLine := func(fn func(ExportLine) error) func(transcript.Line) error {
		return func(ln transcript.Line) error {
			switch ln.Status {
			case transcript.StatusTorn, transcript.StatusOversize:
				return nil
			}
			return fn(ExportLine{Pos: ln.Pos, Check: ln.Check, Raw: ln.Raw, Message: ln.Message, Unterminated: !ln.Newline})
		}
	}
	fileSource := func(sid, source, path string) *ExportSource {
		return &ExportSource{SessionID: sid, Source: source, Path: path, stream: func(fn func(ExportLine) error) error {
			err := transcript.Stream(path, 0, transcript.Options{Warn: warn}, lineLine(fn))
			if err != nil && !isExportStop(err) {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // no transcript yet: no messages
				}
				return readErr(path, err)
			}
			return err
		}}
	}
	dbSource := func(agent, sid, source string) *ExportSource {
		return &ExportSource{SessionID: sid, Source: source, stream: func(fn func(ExportLine) error) error {
			db := ls.s.SQLiteDB(agent)
			if db == nil {
				return apperr.Statef("no SQLite store open for agent %s", agent)
			}
			err := db.Stream(sid, 0, transcript.Options{Warn: warn}, lineLine(fn))
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}}
	}
	if ls.orphan != nil {
		if ls.orphan.File == nil {
			return []*ExportSource{dbSource(ls.orphan.Agent, ls.orphan.SessionID, EarlierOrphan)}, nil
		}
		return []*ExportSource{fileSource(ls.orphan.SessionID, EarlierOrphan, ls.orphan.Path())}, nil
	}
	s, t := ls.s, ls.t
	if lineage {
		earlier, err := l.exportEarlier(s, t)
		if err != nil {
			return nil, err
		}
		for _, e := range earlier {
			switch {
			case e.arc != nil:
				arc, db := e.arc, e.db
				out = append(out, &ExportSource{SessionID: e.sid, Source: EarlierArchived, Path: arc.Name, stream: func(fn func(ExportLine) error) error {
					return srch.EachLine(&srch.Source{SessionID: arc.SessionID, DB: db, Archive: arc}, int(transcript.DefaultMaxLineBytes), func(pos int64, line []byte) error {
						msg, st := transcript.Classify(line, true)
						if st == transcript.StatusSilent && msg == nil && strings.TrimSpace(string(line)) == "" {
							return nil
						}
						return fn(ExportLine{Pos: pos, Raw: line, Message: msg})
					})
				}})
			case e.path != "":
				out = append(out, fileSource(e.sid, EarlierOrphan, e.path))
			default:
				out = append(out, dbSource(t.Agent, e.sid, EarlierOrphan))
			}
		}
	}
	if state.IsSQLite(t.Store) {
		out = append(out, dbSource(t.Agent, t.Entry.SessionID, ExportCurrent))
		return out, nil
	}
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil {
		return nil, err
	}
	ls.tp = tp.Path
	if !tp.Exists {
		out = append(out, &ExportSource{SessionID: t.Entry.SessionID, Source: ExportCurrent, Path: tp.Path,
			stream: func(func(ExportLine) error) error { return nil }})
		return out, nil
	}
	return append(out, fileSource(t.Entry.SessionID, ExportCurrent, tp.Path)), nil
}

// earlierExport is one earlier transcript of a session: a file, a
// store's events (path ""), or an archive a 2026.9 store keeps.
type earlierExport struct {
	sid, path string
	db        *sqlitestore.DB
	arc       *sqlitestore.Archive
	started   string // the header's time (orphan files)
}

// exportEarlier are t's earlier transcripts (those show lists), oldest
// first: a 2026.9 store's archives (it lists them newest first), then the
// orphans a reset left, by their header's time.
func (l *Local) exportEarlier(s *state.State, t *state.Target) ([]earlierExport, error) {
	if s.Req.Restrict {
		return nil, nil
	}
	set, err := transcripts.Open(s, transcripts.Options{Agent: t.Agent, StoreArchives: state.IsSQLite(t.Store)})
	if err != nil {
		return nil, err
	}
	var out, arcs []earlierExport
	for a := range set.All() {
		if a.Err != nil {
			continue
		}
		orphans := a.Orphans(s)
		a.Attribute(s, orphans)
		for _, or := range orphans {
			if or.Key != t.Key || or.SessionID == t.Entry.SessionID {
				continue
			}
			e := earlierExport{sid: or.SessionID, path: or.Path()}
			if e.path != "" {
				if h, err := transcript.ReadHeader(e.path); err == nil && h != nil {
					e.started = h.Timestamp
				}
			}
			out = append(out, e)
		}
		for i := range a.Archives {
			arc := &a.Archives[i]
			if arc.SessionKey != t.Key {
				continue
			}
			arcs = append(arcs, earlierExport{sid: arc.SessionID, arc: arc, db: a.DB})
		}
	}
	slices.SortStableFunc(out, func(a, b earlierExport) int { return strings.Compare(a.started, b.started) })
	slices.Reverse(arcs)
	return append(arcs, out...), nil
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
// names that host, for a gateway): with an Exporter (Local) its entry and
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
			p.Sources = append(p.Sources, export.Source{Seg: export.Segment{SessionID: x.SessionID, Source: x.Source, Path: x.Path}, Stream: x.stream})
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
