package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
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
		earlier, err := l.earlierOf(s, t)
		if err != nil {
			return nil, err
		}
		for _, e := range earlier {
			if src := e.source(); src != nil { // a store archive or an archived copy, zstd or not
				path := e.orphan.Path()
				if e.arc != nil {
					path = e.arc.Name
				}
				out = append(out, &backend.ExportSource{SessionID: e.sid(), Source: backend.EarlierArchived, Path: path, Read: func(fn func(backend.ExportLine) error) error {
					return srch.EachLine(src, int(transcript.DefaultMaxLineBytes), func(pos int64, line []byte) error {
						msg, st := transcript.Classify(line, true)
						if st == transcript.StatusSilent && msg == nil && strings.TrimSpace(string(line)) == "" {
							return nil
						}
						return fn(backend.ExportLine{Pos: pos, Raw: line, Message: msg})
					})
				}})
				continue
			}
			if e.orphan.SessionID == t.Entry.SessionID {
				continue // an orphan file of the current sessionId: not an earlier conversation
			}
			if p := e.orphan.Path(); p != "" {
				out = append(out, fileSource(e.sid(), backend.EarlierOrphan, p))
			} else {
				out = append(out, dbSource(t.Agent, e.sid(), backend.EarlierOrphan))
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
