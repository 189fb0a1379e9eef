// Package transcripts enumerates the transcripts of a state dir, agent by
// agent: each agent's store and its entries (the live sessions, whose
// transcripts are JSONL files on OpenClaw 2026.1.30 and the SQLite store's
// events on 2026.8+), the transcript files of its directories — the
// <sessionId>.jsonl files, also those no entry points to any more, and the
// .reset/.deleted archived copies (zstd-compressed or not) — and the
// archives a 2026.9 SQLite store keeps. It reads and decides nothing else:
// search and usage each pick what they read from the same enumeration.
package transcripts

import (
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// Options say which agents are enumerated and what is read beside their
// stores.
type Options struct {
	// AllAgents: every agent the requester may see (state.AgentsInScope).
	AllAgents bool
	// Agent: this agent only (after the scope is checked), e.g. the agent
	// of the one session a search is restricted to.
	Agent string
	// StoreArchives: read the list of the archives each 2026.9 SQLite store
	// keeps (session_transcript_archives).
	StoreArchives bool
}

// Set is the agents in scope, read one at a time (All).
type Set struct {
	s   *state.State
	o   Options
	IDs []string // the agents, in scope order
}

// Open picks the agents in scope (state.AgentsInScope: --agent, the
// requester's agent, or every agent it may see).
func Open(s *state.State, o Options) (*Set, error) {
	ids, err := s.AgentsInScope(o.AllAgents)
	if err != nil {
		return nil, err
	}
	if o.Agent != "" {
		ids = []string{o.Agent}
	}
	return &Set{s: s, o: o, IDs: ids}, nil
}

// Multi: more than one agent is enumerated (a reader then skips an agent
// whose store cannot be read, with a warning, instead of failing).
func (set *Set) Multi() bool { return len(set.IDs) > 1 }

// All reads the agents one after the other, each when the loop reaches it
// (a reader's warnings about one agent come before the next one is read).
func (set *Set) All() iter.Seq[*Agent] {
	return func(yield func(*Agent) bool) {
		for _, id := range set.IDs {
			if !yield(read(set.s, id, set.o)) {
				return
			}
		}
	}
}

// Agent is what one agent's sessions have for transcripts.
type Agent struct {
	ID  string
	Era era.Era
	// Err: the agent's store cannot be read; nothing else is set.
	Err error

	Store *store.Store
	// Entries are the store's entries of this agent, in store order.
	Entries []*store.Entry
	// DB is the open SQLite store of a 2026.8+ agent (nil otherwise).
	DB *sqlitestore.DB

	// SessionsDir is agents/<id>/sessions.
	SessionsDir string
	// Files are the transcript files (regular files only, never a link)
	// of SessionsDir, then of the store's own directory when it is another
	// one, each directory's by name.
	Files []File
	// DirErr: SessionsDir exists but cannot be read (no Files from it).
	DirErr error

	// Archives are the archives the SQLite store keeps, with
	// Options.StoreArchives; ArchivesErr says why they cannot be listed.
	Archives    []sqlitestore.Archive
	ArchivesErr error
}

// SQLite reports whether the agent's sessions are read from the 2026.8+
// SQLite store.
func (a *Agent) SQLite() bool { return state.IsSQLite(a.Store) }

// File is one transcript file of an agent's directories: <sessionId>.jsonl
// or an archived copy <sessionId>.jsonl.reset|deleted.<time>[…][.zst].
type File struct {
	Dir   string
	Name  string
	Entry fs.DirEntry
}

// Path is the file's path (in its directory, not resolved).
func (f *File) Path() string { return filepath.Join(f.Dir, f.Name) }

// JSONL is the sessionId of a <sessionId>.jsonl file.
func (f *File) JSONL() (sessionID string, ok bool) {
	return strings.CutSuffix(f.Name, ".jsonl")
}

// ArchiveOf is the sessionId of an archived copy, "" for another file.
func (f *File) ArchiveOf() string { return ArchiveOf(f.Name) }

// Zstd: the file is zstd-compressed (an archive of OpenClaw 2026.9).
func (f *File) Zstd() bool { return strings.HasSuffix(f.Name, ".zst") }

// archiveRe names an archived transcript: <sessionId>.jsonl.deleted.<time>
// or .reset.<time> (OpenClaw 2026.9 adds .<generation> and, compressed,
// .zst).
var archiveRe = regexp.MustCompile(`^(.+)\.jsonl\.(reset|deleted)\.[^/]+$`)

// ArchiveOf is the sessionId an archived transcript's file name carries,
// "" when name is no archive's.
func ArchiveOf(name string) string {
	m := archiveRe.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return m[1]
}

func read(s *state.State, id string, o Options) *Agent {
	a := &Agent{ID: id, Era: s.Era(id), SessionsDir: s.SessionsDir(id)}
	a.Store, a.Entries, a.Err = s.Entries(id)
	if a.Err != nil {
		return a
	}
	if a.SQLite() {
		a.DB = s.SQLiteDB(id)
	}
	dirs := []string{a.SessionsDir}
	if a.Store != nil && a.Store.Path != "" {
		if d := filepath.Dir(a.Store.Path); d != dirs[0] {
			dirs = append(dirs, d)
		}
	}
	for i, dir := range dirs {
		files, err := list(dir)
		if err != nil {
			if i == 0 {
				a.DirErr = apperr.Statef("cannot read sessions dir %s: %v", dir, err)
			}
			continue
		}
		a.Files = append(a.Files, files...)
	}
	if o.StoreArchives && a.DB != nil {
		a.Archives, a.ArchivesErr = a.DB.Archives()
	}
	return a
}

// list is the transcript files of dir by name; a missing dir has none.
func list(dir string) ([]File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []File
	for _, de := range ents {
		if !de.Type().IsRegular() { // never follow a link out of the state dir
			continue
		}
		f := File{Dir: dir, Name: de.Name(), Entry: de}
		if _, ok := f.JSONL(); ok || f.ArchiveOf() != "" {
			out = append(out, f)
		}
	}
	return out, nil // by name: os.ReadDir sorts them
}
