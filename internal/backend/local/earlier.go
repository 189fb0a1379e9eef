package local

import (
	"errors"
	"slices"
	"time"

	"github.com/tidwall/gjson"

	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/transcripts"
)

// earlier is one earlier transcript of a session: an orphan transcript (a
// file, or a 2026.8+ store's events: path ""), a .reset/.deleted archived
// copy of a file (zstd-compressed or not), or an archive a 2026.9 store
// keeps.
type earlier struct {
	agent  *transcripts.Agent
	orphan transcripts.Orphan // an orphan or a copy (File set for a file)
	copy   bool               // orphan is an archived copy
	arc    *sqlitestore.Archive
	at     time.Time // when it began or was archived (zero: not known)
}

func (e *earlier) sid() string {
	if e.arc != nil {
		return e.arc.SessionID
	}
	return e.orphan.SessionID
}

// source is the copy or store archive to read with search's line reader
// (it reads zstd); nil for an orphan.
func (e *earlier) source() *srch.Source {
	switch {
	case e.arc != nil:
		return &srch.Source{SessionID: e.arc.SessionID, DB: e.agent.DB, Archive: e.arc}
	case e.copy:
		f := e.orphan.File
		return &srch.Source{SessionID: e.orphan.SessionID, Path: f.Path(), Archived: f.Name, Zstd: f.Zstd()}
	}
	return nil
}

// earlierOf are t's earlier transcripts that can be attributed to it,
// oldest first: the orphan transcripts whose key is t's (on 2026.1.30 a
// later transcript's header names them, on 2026.8+ the store's session
// window says so), the .reset/.deleted copies of its directories
// attributed to t (transcripts.Copies; never one the store keeps as an
// archive of its own) and the archives a 2026.9 store keeps under t's key,
// by time: when an orphan began (its first line's), when a copy or archive
// was archived (the time in its name); one whose time is not known first.
// Show lists them, export reads them. Nothing for a sandboxed requester
// (it reads neither orphans nor archives, as search --include-archived).
func (l *Local) earlierOf(s *state.State, t *state.Target) ([]earlier, error) {
	if s.Req.Restrict {
		return nil, nil
	}
	set, err := transcripts.Open(s, transcripts.Options{Agent: t.Agent, StoreArchives: state.IsSQLite(t.Store)})
	if err != nil {
		return nil, err
	}
	var out []earlier
	for a := range set.All() {
		if a.Err != nil {
			continue
		}
		for _, arc := range slices.Backward(a.Archives) { // the store lists them newest first
			if arc.SessionKey == t.Key {
				out = append(out, earlier{agent: a, arc: &arc, at: stamp(transcripts.ArchivedAt(arc.Name))})
			}
		}
		orphans := a.Orphans(s)
		nOrphans := len(orphans)
		orphans = append(orphans, a.Copies(s)...)
		a.Attribute(s, orphans)
		for i, or := range orphans {
			if or.Key != t.Key {
				continue
			}
			e := earlier{agent: a, orphan: or, copy: i >= nOrphans}
			switch {
			case e.copy:
				e.at = stamp(transcripts.ArchivedAt(or.File.Name))
			case or.File != nil:
				if h, err := transcript.ReadHeader(or.Path()); err == nil && h != nil {
					e.at = stamp(h.Timestamp)
				}
			case a.DB != nil:
				e.at = firstTime(a.DB, or.SessionID)
			}
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b earlier) int { return a.at.Compare(b.at) })
	return out, nil
}

// stamp is an RFC 3339 time (zero when it is none).
func stamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

var errFirst = errors.New("first line read")

// firstTime is the time of the first line of a store's events of sid that
// has one (their session header's, else the first entry's).
func firstTime(db *sqlitestore.DB, sid string) time.Time {
	var at time.Time
	_ = db.Stream(sid, 0, transcript.Options{}, func(ln transcript.Line) error {
		if at = stamp(gjson.GetBytes(ln.Raw, "timestamp").Str); at.IsZero() {
			return nil
		}
		return errFirst
	})
	return at
}
