package doctor

import (
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// Snapshot is what Collect read: plain facts, no handles.
type Snapshot struct {
	StateDir string
	Now      time.Time
	Limits   Limits
	Agents   []AgentFacts
	Locks    []LockFact
	Runs     []RunFact
	Outbox   []OutboxFact
	Due      []DueFact
	// OwnErrors are our own state files that could not be read (path → error).
	OwnErrors map[string]string
	// Index is what keeps search's index of this state dir from being kept
	// in the user's cache dir (collect_index.go).
	Index []searchindex.Problem
	// Scanned and Cached count the transcripts read and those whose facts
	// the ScanCache kept (unchanged since they were read).
	Scanned, Cached int
}

// AgentFacts is one agent's store and transcripts.
type AgentFacts struct {
	ID        string
	Era       era.Era
	StorePath string // the agent's sessions.json (shared stores: the same path)
	// JSON era.
	Store       *StoreFact
	Transcripts []TranscriptFact // files in the store dir and the sessions dir
	// SQLite era (or a half-migrated host: both).
	SQLite *SQLiteFact
	// Leftovers are import archives (<file>.migrated[.N]) beside the stores.
	Leftovers []string
	// LegacyBeside: legacy JSONL transcripts beside a SQLite store that
	// OpenClaw 2026.8+ does not read.
	LegacyBeside []string
	// LegacyImported: those of LegacyBeside whose sessionId the SQLite
	// store holds (an import's retained source).
	LegacyImported map[string]bool
	// LegacyStore: a sessions.json beside a SQLite store.
	LegacyStore *LegacyStoreFact
}

// LegacyStoreFact is a sessions.json beside a 2026.8+ SQLite store, compared
// with the store's rows.
type LegacyStoreFact struct {
	Path string
	Err  string // cannot be read or parsed
	// Entries is how many entries it has.
	Entries int
	// Missing are its keys the SQLite store lacks, has under another
	// sessionId, or has older than this file's entry: what moving the file
	// aside would lose.
	Missing []string
	// Compared: the SQLite store was read and compared (else Missing is
	// unknown).
	Compared bool
}

// ProcFact is a process found holding a file open (/proc/<pid>/fd).
type ProcFact struct {
	PID  int
	Name string
}

// StoreFact is one sessions.json.
type StoreFact struct {
	Path    string
	Dir     string
	Shared  bool // one store for every agent (a non-templated session.store)
	Missing bool
	// Unreadable: it exists but cannot be read (permissions, not a file).
	Unreadable string
	// Corrupt: empty, truncated, not an object — OpenClaw cannot load it.
	Corrupt string
	JSON5   bool // not strict JSON (comments, trailing commas, unquoted keys…)
	Skipped int  // values that are not objects
	Entries []EntryFact
}

// EntryFact is one entry of a store and where its transcript is.
type EntryFact struct {
	Key         string
	SessionID   string
	Label       string
	SessionFile string
	// Transcript is the resolved transcript path ("" when unresolvable).
	Transcript string
	Exists     bool
	// Outside: the transcript's real path is outside the state dir.
	Outside string
	// Links: how many names the transcript file has, when more than one
	// (a hard link, whose other name may lie outside the state dir).
	Links uint64
	// Invalid: the sessionId is unusable (path separators, ..).
	Invalid string
}

// TranscriptFact is one scanned transcript file.
type TranscriptFact struct {
	Path    string
	Agent   string
	Size    int64
	ModTime time.Time
	Header  string // "" ok, "missing" (empty file), "bad" (first line no header)
	// HeaderID is the header's id (the sessionId it was written for).
	HeaderID string
	Lines    int
	Corrupt  int // lines that are not valid JSON/UTF-8 (the torn last line excluded)
	// FirstCorrupt is the 1-based line number of the first corrupt line.
	FirstCorrupt int
	Torn         bool // the last line has no newline and does not parse
	TornLine     int
	Oversize     int // lines longer than the reader's limit
	FirstOver    int
	MaxLine      int64
	// BrokenParents: entries whose parentId names no earlier entry.
	BrokenParents int
	FirstBroken   int
	ReadErr       string

	// stamp is the file's version as listed (ScanCache).
	stamp fsutil.Stamp
}

// SQLiteFact is one 2026.8+ agent database.
type SQLiteFact struct {
	Path          string
	Err           string // could not be opened or read
	UserVersion   int
	QuickCheck    string   // "ok" or the first problem
	Invalid       []string // session keys with entry_valid != 1 (placeholders excluded)
	InvalidCount  int
	HasEntryValid bool

	// Size and WALSize are the database's and its -wal's sizes (stat).
	Size, WALSize int64
	// WALOpeners are the processes holding the database or its -wal open,
	// read only when the -wal is oversized.
	WALOpeners []ProcFact
	// Sessions and Transcripts are the rows of session_nodes the store
	// lists and the sessionIds it holds events of.
	Sessions, Transcripts int
	// Tables are the largest tables, read only when the database is over
	// Limits.DBBytes; TablesErr says why they are unknown.
	Tables    []sqlitestore.TableSpace
	TablesErr string
	// Media is the inline base64 media in transcript events.
	Media MediaFact
	// Locked: another connection held the write lock on every probe;
	// LockOpeners are the processes holding the database open then.
	Locked      bool
	LockOpeners []ProcFact
	LockErr     string
}

// MediaFact counts transcript events that carry media inline as base64
// (data: URIs, image blocks with their data).
type MediaFact struct {
	Events   int
	Bytes    int64 // the base64 text
	Sessions int
	// Largest is the session with the most such bytes.
	Largest      string // its key, else its sessionId
	LargestBytes int64
}

// LockFact is one OpenClaw lock file found.
type LockFact struct {
	Kind       string // "store" | "transcript"
	Path       string
	AgentID    string
	SessionKey string
	StorePath  string // the store it guards (store lock) or that lists the transcript
	Type       string // not a regular file: "fifo", "symlink", "directory"…
	PID        int
	Since      time.Time
	Alive      bool
	Stale      bool
}

// RunFact is one of our runs that has not ended.
type RunFact struct {
	RunID       string
	Path        string
	Status      string
	SessionKey  string
	CreatedAt   int64
	RunnerAlive bool
}

// OutboxFact is one outbox line not delivered.
type OutboxFact struct {
	Line       int
	ID         string
	RunID      string
	SessionKey string
	Status     string
	Error      string
	At         int64
}

// DueFact is a sub-agent whose archive time has come.
type DueFact struct {
	RunID       string
	ChildKey    string
	Agent       string
	ArchiveAtMs int64
	RunnerAlive bool
}
