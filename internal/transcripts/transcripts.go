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
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/lazyre"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
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
	// Reuse are agents All yielded before under the same state (by id):
	// yielded again as they are, not read again (their store's archives
	// read when StoreArchives asks for them and they were not), so that one
	// listing of a store and its directories serves a search and its
	// index's catch-up.
	Reuse map[string]*Agent
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
			a := set.o.Reuse[id]
			if a == nil {
				a = read(set.s, id, set.o)
			} else if set.o.StoreArchives && a.Err == nil {
				a.readArchives()
			}
			if !yield(a) {
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
	Archives     []sqlitestore.Archive
	ArchivesErr  error
	archivesRead bool

	// StoredErr says why a 2026.8+ store's transcripts cannot be listed
	// (Orphans then has none of them).
	StoredErr error
	stored    []sqlitestore.StoredTranscript
	storeRead bool
	// parents: headerParents, once read
	parents []named
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
var archiveRe = lazyre.New(`^(.+)\.jsonl\.(reset|deleted)\.[^/]+$`)

// ArchiveOf is the sessionId an archived transcript's file name carries,
// "" when name is no archive's.
func ArchiveOf(name string) string {
	// Most names are <sessionId>.jsonl: no regex for those (a listing of
	// 10,000 transcripts asks for each, twice).
	if !strings.Contains(name, ".jsonl.reset.") && !strings.Contains(name, ".jsonl.deleted.") {
		return ""
	}
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
	if o.StoreArchives {
		a.readArchives()
	}
	return a
}

// readArchives lists the archives the agent's SQLite store keeps, once.
func (a *Agent) readArchives() {
	if a.DB != nil && !a.archivesRead {
		a.Archives, a.ArchivesErr = a.DB.Archives()
		a.archivesRead = true
	}
}

// list is the transcript files of dir by name; a missing dir has none.
func list(dir string) ([]File, error) {
	ents, err := fsutil.ReadDir(dir)
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

// Orphan is a transcript no entry points to any more: the earlier
// conversation of a key OpenClaw 2026.1.30 reset (/new starts a new
// sessionId and leaves the old <sessionId>.jsonl behind), or a crash's
// leftovers; on 2026.8+ the events of a sessionId no entry's is (a key's
// window before its current one). Key is the session it belonged to when
// that can be known — the store's session window says, an entry has its
// sessionId (with another transcript), or (Attribute) a later transcript's
// header names the file as its parentSession — else "".
type Orphan struct {
	File      *File // the transcript file (nil: events of the SQLite store)
	SessionID string
	Key       string // as stored
}

// Path is the orphan's file ("" for the SQLite store's events).
func (o *Orphan) Path() string {
	if o.File == nil {
		return ""
	}
	return o.File.Path()
}

// Orphans are the transcripts of an agent no entry points to. On
// 2026.1.30 they are the <sessionId>.jsonl files of its sessions dir that
// no entry's transcript is, by name: an entry claims the file of its
// sessionId unless its sessionFile names another file of that dir, and the
// file its transcript resolves to (state.Transcript) — the claims usage
// has always made; an agent without a store has no entry, each of its
// <sessionId>.jsonl is one. On 2026.8+ they are the sessionIds the store holds
// events of (sqlitestore.Transcripts) that no entry has, by sessionId;
// those rows cannot outlive their session's node when SQLite enforces
// the store's foreign keys (transcript_events → session_windows →
// session_nodes, each ON DELETE CASCADE): what is left is a key's earlier
// windows (attributed by session_windows.session_key), or events whose
// window a writer removed without that enforcement (no key).
func (a *Agent) Orphans(s *state.State) []Orphan {
	switch {
	case a.Err != nil:
		return nil
	case a.SQLite():
		return a.storeOrphans(s)
	case a.Era != era.JSON && a.Era != era.None:
		return nil
	}
	claimed := map[string]bool{}
	bySID := map[string]string{}
	for _, e := range a.Entries {
		sid := e.Meta.SessionID
		if sid == "" || !s.Listable(e.Key) {
			continue
		}
		bySID[sid] = e.Key
		sf := e.Meta.SessionFile
		if name := sid + ".jsonl"; sf == "" || filepath.Dir(sf) == a.SessionsDir && filepath.Base(sf) == name {
			claimed[name] = true
			continue
		}
		if tr, err := s.Transcript(a.ID, a.Store, e); err == nil && filepath.Dir(tr.Path) == a.SessionsDir {
			claimed[filepath.Base(tr.Path)] = true
		}
	}
	var out []Orphan
	for i := range a.Files {
		f := &a.Files[i]
		if f.Dir != a.SessionsDir || claimed[f.Name] {
			continue
		}
		if sid, ok := f.JSONL(); ok {
			// an entry's sessionId whose transcript is another file
			out = append(out, Orphan{File: f, SessionID: sid, Key: bySID[sid]})
		}
	}
	return out
}

// Copies are the .reset/.deleted archived copies of the agent's
// directories (zstd-compressed or not) as Orphans, each directory's by
// name, but those a 2026.8+ store keeps as archives of its own (a copy
// whose name is one of Archives' names: read from the store instead).
// Nothing in a copy names its key: Key is set when a store entry has the
// copy's sessionId (an earlier generation of that session: OpenClaw
// 2026.9's reset keeps the sessionId); Attribute sets it when a later
// transcript's header names the copy by its name before the rename,
// <sessionId>.jsonl.
func (a *Agent) Copies(s *state.State) []Orphan {
	if a.Err != nil {
		return nil
	}
	stored := map[string]bool{}
	for i := range a.Archives {
		stored[a.Archives[i].Name] = true
	}
	bySID := map[string]string{}
	for _, e := range a.Entries {
		if sid := e.Meta.SessionID; sid != "" && s.Listable(e.Key) {
			bySID[sid] = e.Key
		}
	}
	var out []Orphan
	for i := range a.Files {
		f := &a.Files[i]
		sid := f.ArchiveOf()
		if sid == "" || stored[f.Name] {
			continue
		}
		out = append(out, Orphan{File: f, SessionID: sid, Key: bySID[sid]})
	}
	return out
}

// ArchivedAt is the time an archived copy's name carries (OpenClaw writes
// it with ':' as '-': <sessionId>.jsonl.reset.2026-01-30T12-34-56.789Z
// [.<generation>][.zst]), in RFC 3339 as a session header writes its
// timestamp; "" for another name.
func ArchivedAt(name string) string {
	sid := ArchiveOf(name)
	if sid == "" {
		return ""
	}
	rest := name[len(sid)+len(".jsonl."):]
	_, rest, _ = strings.Cut(rest, ".") // reset|deleted
	date, clock, ok := strings.Cut(rest, "T")
	end := strings.IndexByte(clock, 'Z')
	if !ok || end < 0 {
		return ""
	}
	return date + "T" + strings.ReplaceAll(clock[:end+1], "-", ":")
}

// storeOrphans are the sessionIds a 2026.8+ store holds events of that no
// entry has (the store's listing is read once per Agent).
func (a *Agent) storeOrphans(s *state.State) []Orphan {
	if a.DB == nil {
		return nil
	}
	if !a.storeRead {
		a.storeRead = true
		a.stored, a.StoredErr = stored.list(a.DB)
	}
	has := make(map[string]bool, len(a.Entries))
	for _, e := range a.Entries {
		if e.SessionID != "" {
			has[e.SessionID] = true
		}
	}
	var out []Orphan
	for _, t := range a.stored {
		if !has[t.SessionID] {
			o := Orphan{SessionID: t.SessionID}
			if t.Key != "" && s.Listable(t.Key) {
				o.Key = t.Key
			}
			out = append(out, o)
		}
	}
	return out
}

// Attribute sets the key of the orphan files a later transcript names: one
// whose session header's parentSession is the orphan's file — for an
// archived copy (Copies), its name before the rename (it reads the
// start of every transcript of the sessions dir, so a reader that needs no
// key leaves it out; Orphans already set the keys that cost nothing).
// parentSession is written when a thread session forks from its parent's
// transcript (format §4.1): the orphan then belonged to the thread's
// parent key (the key before its last :thread:/:topic: marker); from any
// other key, it was that key's own earlier transcript. An orphan named by
// an attributed orphan inherits its key the same way.
func (a *Agent) Attribute(s *state.State, orphans []Orphan) {
	a.attribute(s, orphans, a.headerParents)
}

// attribute is Attribute with the headers' parents from parents.
func (a *Agent) attribute(s *state.State, orphans []Orphan, parents func() []named) {
	orphan := map[string]int{}   // file name → the orphan
	asNamed := map[string]bool{} // the name a header gives an orphan
	for i := range orphans {
		if f := orphans[i].File; f != nil {
			orphan[f.Name] = i
			asNamed[namedAs(f)] = true
		}
	}
	if len(orphan) == 0 {
		return
	}
	keyOf := map[string]string{} // file name in the sessions dir → key
	for _, e := range a.Entries {
		if e.Meta.SessionID == "" || !s.Listable(e.Key) {
			continue
		}
		if tr, err := s.Transcript(a.ID, a.Store, e); err == nil && filepath.Dir(tr.Path) == a.SessionsDir {
			keyOf[filepath.Base(tr.Path)] = e.Key
		}
	}
	namedBy := map[string]string{} // the name a header gives an orphan → the file whose header it is
	for _, h := range parents() {  // by name: of two naming one orphan, the last
		if asNamed[h.parent] && h.parent != h.name {
			namedBy[h.parent] = h.name
		}
	}
	for range len(orphans) { // a chain of orphans is at most that long
		changed := false
		for i := range orphans {
			o := &orphans[i]
			by, ok := namedBy[namedAs(o.File)]
			if o.Key != "" || !ok {
				continue
			}
			k := keyOf[by]
			if j, isOrphan := orphan[by]; isOrphan {
				k = orphans[j].Key
			}
			if k != "" {
				o.Key, changed = parentKey(k), true
			}
		}
		if !changed {
			break
		}
	}
}

// namedAs is the name a later transcript's header gives f: its own, or
// for an archived copy the name it had before the rename.
func namedAs(f *File) string {
	if sid := f.ArchiveOf(); sid != "" {
		return sid + ".jsonl"
	}
	return f.Name
}

// named is a transcript file whose header names parent as its
// parentSession.
type named struct{ name, parent string }

// headerParents are the parentSession file names the headers of the
// <sessionId>.jsonl files of the sessions dir name (those that name one),
// by file name: read once per Agent, each file's from the process's cache
// while its version is unchanged (headers.go).
func (a *Agent) headerParents() []named {
	if a.parents == nil {
		a.parents = a.readParents(headers)
	}
	return a.parents
}

// readParents reads headerParents through c.
func (a *Agent) readParents(c *headerCache) []named {
	var names []string
	for i := range a.Files {
		f := &a.Files[i]
		if _, ok := f.JSONL(); ok && f.Dir == a.SessionsDir {
			names = append(names, f.Name)
		}
	}
	out := []named{} // not nil: read, once
	for i, p := range c.parents(a.SessionsDir, names) {
		if p != "" {
			out = append(out, named{names[i], p})
		}
	}
	return out
}

// headerParent is the file name a transcript's session header names as
// its parentSession ("" when none, or no header). buf is reused from one
// file to the next: only the start of each file is read, and parsed only
// when it has a parentSession.
func headerParent(path string, buf []byte) string {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return ""
	}
	n, _ := io.ReadFull(f, buf)
	f.Close()
	line := buf[:n]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if !bytes.Contains(line, []byte(`"parentSession"`)) {
		return ""
	}
	var h struct {
		Type          string `json:"type"`
		ParentSession string `json:"parentSession"`
	}
	if json.Unmarshal(line, &h) != nil || h.Type != "session" || h.ParentSession == "" {
		return ""
	}
	return filepath.Base(h.ParentSession)
}

// headerMax is how much of a transcript's start is read for its header:
// OpenClaw's is one short line (type, version, id, timestamp, cwd, and a
// parentSession path).
const headerMax = 8 << 10

// parentKey is the key a transcript named as parentSession belonged to:
// a thread's parent (OpenClaw's resolveThreadParentSessionKey strips the
// last :thread: or :topic: marker), else key itself.
func parentKey(key string) string {
	low := strings.ToLower(key)
	i := max(strings.LastIndex(low, ":thread:"), strings.LastIndex(low, ":topic:"))
	if i <= 0 {
		return key
	}
	return key[:i]
}

// OrphanAt is an orphan transcript and its agent.
type OrphanAt struct {
	Agent string
	Orphan
}

// FindOrphan is the orphan transcript of sessionID in an agent the
// requester may read (state.CanSeeAgent) — nil when none: a sessionId no
// entry has any more names its transcript, the file <sessionID>.jsonl of a
// 2026.1.30 sessions dir or the events a 2026.8+ store keeps of it. A
// sandboxed requester sees one only when it belongs to a session it may
// see (Sees). The
// same sessionId orphaned in two agents is ambiguous (exit 1), like two
// entries holding it.
func FindOrphan(s *state.State, sessionID string) (*OrphanAt, error) {
	if !plainID.MatchString(sessionID) {
		return nil, nil
	}
	var found []*OrphanAt
	for _, id := range s.AgentIDs() {
		if s.CanSeeAgent(id, policy.OpHistory) != "" {
			continue
		}
		switch s.Era(id) {
		case era.JSON, era.None:
			fi, err := os.Lstat(filepath.Join(s.SessionsDir(id), sessionID+".jsonl"))
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
		case era.SQLite:
		default:
			continue
		}
		a := read(s, id, Options{})
		orphans := a.Orphans(s)
		a.Attribute(s, orphans)
		for _, o := range orphans {
			if o.SessionID == sessionID && a.Sees(s, "", o.Key) {
				found = append(found, &OrphanAt{Agent: id, Orphan: o})
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	ags := make([]string, len(found))
	for i, f := range found {
		ags[i] = f.Agent
	}
	return nil, apperr.Errorf("Multiple orphan transcripts found for sessionId: %s (agents %s)", sessionID, strings.Join(ags, ", "))
}

// Sees says whether a sandboxed requester may read a transcript that is
// not an entry's own — an orphan, an archived copy — of sessionID, or
// belonging to key (as stored; "" when unknown): it is one of a session it
// may see. Any other requester reads them all.
func (a *Agent) Sees(s *state.State, sessionID, key string) bool {
	if !s.Req.Restrict {
		return true
	}
	for _, e := range a.Entries {
		if (sessionID != "" && e.SessionID == sessionID || key != "" && e.Key == key) && s.Listable(e.Key) && s.Visible(e) {
			return true
		}
	}
	return false
}

// plainID is a sessionId that can name a file of the sessions dir.
var plainID = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CountMessages counts the messages of one of a's orphans (tool results
// included): its file's, or the events a 2026.8+ store keeps of it.
func (a *Agent) CountMessages(or *Orphan) (int, error) {
	var r *transcript.Result
	var err error
	if or.File == nil {
		r, err = a.DB.Messages(or.SessionID, transcript.Options{IncludeTools: true})
	} else {
		r, err = transcript.ReadMessages(or.Path(), transcript.Options{IncludeTools: true})
	}
	if err != nil {
		return 0, err
	}
	return len(r.Messages), nil
}
