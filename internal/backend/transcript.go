package backend

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// Transcripts reads and follows a session's transcript where it lives:
// local.Local (the JSONL files or the 2026.8+ SQLite store, a file-watching
// follower) and gatewayhost.Gateway (chat.history and its chat events) implement it,
// and history and show read through it whatever the reader is.
type Transcripts interface {
	// Cursor checks a --before cursor once, before any lookup: one this
	// reader cannot page (malformed, or made by the other kind of reader)
	// is refused (exit 2); History takes the Cursor it returns.
	Cursor(before string) (Cursor, error)
	// Session finds the session a reference names (key, sessionId, a
	// unique sessionId prefix, or a label with --agent).
	Session(ctx context.Context, ref, label string) (*Session, error)
	// History reads a page of the transcript: the last q.Limit messages,
	// or the ones before q.Before (a Cursor of this reader's).
	History(ctx context.Context, s *Session, q HistoryQuery) (*HistoryPage, error)
	// Follow calls emit with the messages appended after the page History
	// read (q.Last over a gateway), as they come, until ctx ends or q.Idle
	// passes without one; emit says how many it printed.
	Follow(ctx context.Context, s *Session, q FollowQuery, emit func([]json.RawMessage) (int, error)) error
}

// Session is one session as the transcript readers know it.
type Session struct {
	Key       string // the whole key
	SessionID string
	Agent     string
	Label     string
	Row       state.Row
	// Raw is the row as the gateway gave it (show's "entry").
	Raw json.RawMessage
	// Children are the keys whose spawnedBy is this session, newest first
	// (2026.9 rows only: 1.30's never carry spawnedBy).
	Children []string

	// Handle is what the host that resolved the session keeps of it
	// between its calls (History, Follow, an export's sources): that
	// host's own, opaque to everyone else.
	Handle any
}

// HistoryQuery is a page request.
type HistoryQuery struct {
	Limit        int
	IncludeTools bool
	Before       Cursor // a NextCursor of an earlier page (Transcripts.Cursor)
	// Follow: the page starts a follow (whether older messages exist need
	// not be known, and a missing transcript is no news).
	Follow bool
	// All: every message the reader reaches, Limit ignored (over a
	// gateway: chat.history's window).
	All bool
	// Around: the page of Limit messages around this message instead
	// (HistoryPage.Target says which it is); not with Before or Follow.
	Around Around
}

// HistoryPage is a page of messages, oldest first, as stored (the command
// sanitises them). CursorBefore(i) names the place before Messages[i].
type HistoryPage struct {
	Messages []json.RawMessage
	More     bool               // older messages exist before Messages[0]
	cursorAt func(i int) string // the reader's cursors (SetCursors)
	// Last is where Follow starts (the newest message read).
	Last string
	// Note is said once on stderr (e.g. a gateway that has no cursors).
	Note string
	// WindowFull: the gateway returned as many messages as chat.history
	// ever does (HistoryWindow); older ones, if any, are out of its reach.
	WindowFull bool
	// Target (a page read Around a message) is that message's index in
	// Messages; Newer how many messages after the page the reader knows
	// the places of (CursorAt), at most Limit+1.
	Target  int
	Newer   int
	newerAt func(k int) string
}

// CursorBefore is the --before cursor of the page before Messages[i].
func (p *HistoryPage) CursorBefore(i int) string {
	if p.cursorAt == nil {
		return ""
	}
	return p.cursorAt(i)
}

// SetCursors is how the reader that read the page names its places: at(i)
// is the --before cursor of the page before Messages[i] ("" when i is out
// of the page).
func (p *HistoryPage) SetCursors(at func(i int) string) { p.cursorAt = at }

// SetNewer gives a page read around a message the places of the n
// messages after it: at(k) is the cursor naming the k-th (CursorAt).
func (p *HistoryPage) SetNewer(n int, at func(k int) string) {
	p.Newer, p.newerAt = n, at
}

// FollowQuery shapes Follow.
type FollowQuery struct {
	IncludeTools bool
	Last         string        // HistoryPage.Last
	Poll         time.Duration // re-read at least this often (events only wake it)
	Idle         time.Duration // stop after this long without a message (0: never)
	// Notice gets the lines said on stderr while following: a reset (a
	// /new: the key's new sessionId), a transcript replaced or truncated,
	// the key gone from its store.
	Notice func(line string)
}

// HistoryWindow is the most chat.history returns (both versions): over a
// gateway, history reaches the last HistoryWindow messages of a session.
const HistoryWindow = 1000

// Anchor names one message of a gateway transcript: its timestamp and how
// many messages before it in the window share that timestamp. A place so
// named survives appends (which the gateway's offsets, counted from the
// newest message, do not).
type Anchor struct {
	TS  int64 `json:"t"`
	Dup int   `json:"d,omitempty"`
}

const cursorPrefix = "gw1."

// IsGatewayCursor reports whether a --before cursor was made over a gateway.
func IsGatewayCursor(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), cursorPrefix) }

// Cursor is the --before cursor naming the message a anchors in the
// transcript of session sessionID.
func (a Anchor) Cursor(sessionID string) string {
	b, _ := json.Marshal(struct {
		S string `json:"s"`
		Anchor
	}{sessionID, a})
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ParseGatewayCursor reads a gateway's cursor: its session and place
// (exit 2 when it is not one this command printed).
func ParseGatewayCursor(s string) (string, Anchor, error) {
	var c struct {
		S string `json:"s"`
		Anchor
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), cursorPrefix))
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.TS == 0 {
		return "", Anchor{}, apperr.Usagef("invalid --before %q: not a cursor this command printed; pass the nextCursor of an earlier page as printed", s)
	}
	return c.S, c.Anchor, nil
}

// Orphan is the orphan transcript behind s, nil when s is a session of an
// entry (or over a gateway).
func (s *Session) Orphan() *transcripts.OrphanAt {
	if h, ok := s.Handle.(interface{ Orphan() *transcripts.OrphanAt }); ok {
		return h.Orphan()
	}
	return nil
}
