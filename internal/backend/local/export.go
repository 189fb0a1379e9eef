package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/transcripts"
)

// ExportEntry is the session's entry as stored and its row.
func (l *Local) ExportEntry(sess *backend.Session) (json.RawMessage, *state.Row, error) {
	ls := handle(sess)
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
func (l *Local) ExportSources(_ context.Context, sess *backend.Session, lineage bool) ([]*backend.ExportSource, error) {
	ls := handle(sess)
	if ls == nil {
		return nil, apperr.Statef("%s is not a session of this host", sess.Key)
	}
	var out []*backend.ExportSource
	warn := l.Warn
	lineLine := func(fn func(backend.ExportLine) error) func(transcript.Line) error {
		return func(ln transcript.Line) error {
			switch ln.Status {
			case transcript.StatusTorn, transcript.StatusOversize:
				return nil
			}
			return fn(backend.ExportLine{Pos: ln.Pos, Check: ln.Check, Raw: ln.Raw, Message: ln.Message, Unterminated: !ln.Newline})
		}
	}
	fileSource := func(sid, source, path string) *backend.ExportSource {
		return &backend.ExportSource{SessionID: sid, Source: source, Path: path, Read: func(fn func(backend.ExportLine) error) error {
			err := transcript.Stream(path, 0, transcript.Options{Warn: warn}, lineLine(fn))
			if err != nil && !errors.Is(err, backend.ErrExportStop) {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // no transcript yet: no messages
				}
				return readErr(path, err)
			}
			return err
		}}
	}
	dbSource := func(agent, sid, source string) *backend.ExportSource {
		return &backend.ExportSource{SessionID: sid, Source: source, Read: func(fn func(backend.ExportLine) error) error {
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
			return []*backend.ExportSource{dbSource(ls.orphan.Agent, ls.orphan.SessionID, backend.EarlierOrphan)}, nil
		}
		return []*backend.ExportSource{fileSource(ls.orphan.SessionID, backend.EarlierOrphan, ls.orphan.Path())}, nil
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
				out = append(out, &backend.ExportSource{SessionID: e.sid, Source: backend.EarlierArchived, Path: arc.Name, Read: func(fn func(backend.ExportLine) error) error {
					return srch.EachLine(&srch.Source{SessionID: arc.SessionID, DB: db, Archive: arc}, int(transcript.DefaultMaxLineBytes), func(pos int64, line []byte) error {
						msg, st := transcript.Classify(line, true)
						if st == transcript.StatusSilent && msg == nil && strings.TrimSpace(string(line)) == "" {
							return nil
						}
						return fn(backend.ExportLine{Pos: pos, Raw: line, Message: msg})
					})
				}})
			case e.path != "":
				out = append(out, fileSource(e.sid, backend.EarlierOrphan, e.path))
			default:
				out = append(out, dbSource(t.Agent, e.sid, backend.EarlierOrphan))
			}
		}
	}
	if state.IsSQLite(t.Store) {
		out = append(out, dbSource(t.Agent, t.Entry.SessionID, backend.ExportCurrent))
		return out, nil
	}
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil {
		return nil, err
	}
	ls.tp = tp.Path
	if !tp.Exists {
		out = append(out, &backend.ExportSource{SessionID: t.Entry.SessionID, Source: backend.ExportCurrent, Path: tp.Path,
			Read: func(func(backend.ExportLine) error) error { return nil }})
		return out, nil
	}
	return append(out, fileSource(t.Entry.SessionID, backend.ExportCurrent, tp.Path)), nil
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
