// Package watch is the pure part of the change feed: what a change is
// (Event), what a listing looks like to the feed (Snapshot), and the diff of
// two snapshots. It does no I/O: the sources that notice changes — file
// events on the JSON era, the SQLite store's change counter, a gateway's
// event stream — live beside their era and call Diff on what they re-read.
package watch

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/state"
)

// Kind is what an Event says happened.
type Kind string

// The kinds of events.
const (
	Added   Kind = "added"   // a session appeared
	Updated Kind = "updated" // a session's row changed (Fields say which)
	Removed Kind = "removed" // a session went
	Message Kind = "message" // a message was appended to a session's transcript
	Run     Kind = "run"     // a run of ours changed status
)

// ID is a session in a feed: its context (a fleet's host, else ""), agent
// and key as listed.
type ID struct {
	Context string
	Agent   string
	Key     string
}

// Compare orders IDs by context, agent, key.
func (a ID) Compare(b ID) int {
	if c := cmp.Compare(a.Context, b.Context); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Agent, b.Agent); c != 0 {
		return c
	}
	return cmp.Compare(a.Key, b.Key)
}

// Item is one session of a snapshot: its row as `list --json` prints it
// (TranscriptPath and Messages aside: Diff ignores them) and the identity of
// its transcript, which tells a source where to read appended messages from.
type Item struct {
	Row state.Row
	// Transcript is where the transcript was last read to: a JSONL file's
	// size, a SQLite session's next event seq, a gateway's newest message
	// id. Diff ignores it.
	Transcript Mark
}

// Mark is how far a session's transcript has been seen.
type Mark struct {
	SessionID string
	Path      string // the JSONL file (JSON era)
	Offset    int64  // bytes (JSON era) or the next event seq (SQLite)
	LastID    string // the newest message id, when that is what is known
}

// Snapshot is the sessions of a listing by ID.
type Snapshot map[ID]Item

// Event is one change.
type Event struct {
	Kind   Kind
	ID     ID
	Fields []string   // Updated: the JSON names of the row fields that changed
	Row    *state.Row // Added, Updated: the row now
	// Msg is the appended message as stored (Message); the feed shortens
	// (and masks) its text.
	Msg   json.RawMessage
	MsgID string     // the message's id in its transcript, when it has one
	Run   *RunChange // Run
}

// RunChange is a run's new status.
type RunChange struct {
	ID     string
	Status string
	Kind   string // send | spawn
}

// Diff returns what changed from prev to next: a session added, updated
// (with the fields that changed) or removed, ordered by ID (removals and
// additions interleaved in that order). Transcript marks and the rows'
// TranscriptPath and Messages are not compared.
func Diff(prev, next Snapshot) []Event {
	var out []Event
	for id, n := range next {
		p, ok := prev[id]
		if !ok {
			r := n.Row
			out = append(out, Event{Kind: Added, ID: id, Row: &r})
			continue
		}
		if f := Fields(&p.Row, &n.Row); len(f) > 0 {
			r := n.Row
			out = append(out, Event{Kind: Updated, ID: id, Fields: f, Row: &r})
		}
	}
	for id := range prev {
		if _, ok := next[id]; !ok {
			out = append(out, Event{Kind: Removed, ID: id})
		}
	}
	slices.SortFunc(out, func(a, b Event) int { return a.ID.Compare(b.ID) })
	return out
}

// Fields returns the JSON names of the list-row fields that differ between
// a and b, in the row's JSON order. TranscriptPath and Messages are not
// compared (a feed does not read them for every row).
func Fields(a, b *state.Row) []string {
	var f []string
	add := func(differ bool, name string) {
		if differ {
			f = append(f, name)
		}
	}
	add(a.Context != b.Context, "context")
	add(a.Key != b.Key, "key")
	add(a.Kind != b.Kind, "kind")
	add(a.Channel != b.Channel, "channel")
	add(a.AgentID != b.AgentID, "agentId")
	add(a.Label != b.Label, "label")
	add(a.DisplayName != b.DisplayName, "displayName")
	add(!samePtr(a.UpdatedAt, b.UpdatedAt), "updatedAt")
	add(a.SessionID != b.SessionID, "sessionId")
	add(a.Model != b.Model, "model")
	add(!samePtr(a.ContextTokens, b.ContextTokens), "contextTokens")
	add(!samePtr(a.TotalTokens, b.TotalTokens), "totalTokens")
	add(a.ThinkingLevel != b.ThinkingLevel, "thinkingLevel")
	add(a.VerboseLevel != b.VerboseLevel, "verboseLevel")
	add(!samePtr(a.SystemSent, b.SystemSent), "systemSent")
	add(!samePtr(a.AbortedLastRun, b.AbortedLastRun), "abortedLastRun")
	add(a.SendPolicy != b.SendPolicy, "sendPolicy")
	add(a.SpawnedBy != b.SpawnedBy, "spawnedBy")
	add(a.LastChannel != b.LastChannel, "lastChannel")
	add(a.LastTo != b.LastTo, "lastTo")
	add(!samePtr(a.DeliveryContext, b.DeliveryContext), "deliveryContext")
	return f
}

// NotCompared are the row's JSON fields Fields leaves out.
var NotCompared = []string{"transcriptPath", "messages"}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ShortLen is how many runes of a message's text an event carries.
const ShortLen = 120

// Short is s on one line (runs of white space, newlines included, become
// one space; control characters go) and cut to n runes, with "…" when cut.
func Short(s string, n int) string {
	var b strings.Builder
	space := false
	runes := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			continue
		}
		if space {
			if runes+1 >= n {
				b.WriteString("…")
				return b.String()
			}
			b.WriteByte(' ')
			runes++
			space = false
		}
		if runes >= n {
			b.WriteString("…")
			return b.String()
		}
		b.WriteRune(r)
		runes++
	}
	return b.String()
}

// MessageInfo is what an event shows of a transcript message.
type MessageInfo struct {
	Role string
	ID   string
	Text string // the text blocks joined, not yet shortened
}

// ReadMessage picks the role, id and text of a message as the readers
// return it: either a transcript line's inner message ({"role", "content",
// …}, the id beside it under "id" or "__openclaw.id") or a whole line
// ({"type":"message","id","message":{…}}).
func ReadMessage(raw json.RawMessage) MessageInfo {
	var m struct {
		ID       string          `json:"id"`
		Role     string          `json:"role"`
		Content  json.RawMessage `json:"content"`
		Message  json.RawMessage `json:"message"`
		OpenClaw struct {
			ID string `json:"id"`
		} `json:"__openclaw"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return MessageInfo{}
	}
	if m.Role == "" && len(m.Message) > 0 {
		in := ReadMessage(m.Message)
		if in.ID == "" {
			in.ID = m.ID
		}
		return in
	}
	id := m.ID
	if id == "" {
		id = m.OpenClaw.ID
	}
	return MessageInfo{Role: m.Role, ID: id, Text: contentText(m.Content)}
}

// contentText is a content's text: a string, or the text blocks of an
// array joined by spaces; a block without text (a tool call, an image) is
// named in brackets.
func contentText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		Name string `json:"name"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.Type == "toolCall" || b.Type == "tool_use":
			parts = append(parts, "["+b.Name+"]")
		case b.Type == "thinking":
		case b.Type != "":
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}
