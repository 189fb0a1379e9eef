// Package historydoc is the document of a page of a transcript as
// front-ends get it (ops.HistoryResult): the messages, the cap's and the
// mask's marks, the cursors of the pages around it — nothing of where the
// transcript is stored (the host reads the page, sanitize shapes it, ops
// masks and assembles it). A leaf: it imports nothing of the module.
package historydoc

import "encoding/json"

// Page is a page of a transcript (`sessions history --json`, the MCP
// server's sessions_history), oldest message first.
type Page struct {
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId,omitempty"`
	// Orphan: the page is of an orphan transcript (no entry points to it);
	// SessionKey is the key it belonged to when that is known, else "".
	Orphan   bool              `json:"orphan,omitempty"`
	Messages []json.RawMessage `json:"messages"`
	// Truncated: the 80 KiB cap dropped the oldest messages of the page
	// (Dropped of them); they are on the page before NextCursor.
	Truncated bool `json:"truncated"`
	Dropped   int  `json:"dropped,omitempty"`
	Bytes     int  `json:"bytes"`
	// HasMore: messages older than the first one returned exist;
	// NextCursor, given as Before, returns the page before it.
	HasMore    bool   `json:"hasMore"`
	NextCursor string `json:"nextCursor,omitempty"`
	// WindowFull (over a gateway): this page reaches the oldest of the last
	// 1000 messages chat.history returns; older ones, if any, are out of
	// reach there (stderr says so too).
	WindowFull bool `json:"windowFull,omitempty"`
	// AroundIndex (a page read --around a message only): the index in
	// Messages of the message asked for. HasNewer: messages newer than the
	// last one returned exist; PrevCursor, given as Before, returns the
	// next newer page (the --limit messages after this one), and is absent
	// when those reach the newest message (the newest page shows them).
	AroundIndex *int   `json:"aroundIndex,omitempty"`
	HasNewer    bool   `json:"hasNewer,omitempty"`
	PrevCursor  string `json:"prevCursor,omitempty"`
	// Redacted: credentials in the page's texts were masked (for an agent,
	// or with --redact).
	Redacted bool `json:"redacted,omitempty"`
	// With masking on (an agent's page, or --redact), sessions_history's
	// own marks, always present: DroppedMessages (the byte cap dropped
	// messages, or stood the one left as a placeholder), ContentTruncated
	// (a message lost its details/usage/cost or a text was cut),
	// ContentRedacted (= Redacted); Truncated is then any of the three
	// causes, as there. Absent otherwise (the operator's page is unchanged).
	DroppedMessages  *bool `json:"droppedMessages,omitempty"`
	ContentTruncated *bool `json:"contentTruncated,omitempty"`
	ContentRedacted  *bool `json:"contentRedacted,omitempty"`

	// Read is how many messages were read for the page before the cap.
	Read int `json:"-"`
	// Note is to be said once (on stderr): e.g. no transcript yet, or the
	// gateway's window.
	Note string `json:"-"`
}

// CapDropped: the 80 KiB cap dropped messages of the page (or, for an
// agent, stood the one left as a placeholder) — what Truncated says
// without masking; with it Truncated also covers cut texts.
func (r *Page) CapDropped() bool {
	return r.Dropped > 0 || r.DroppedMessages != nil && *r.DroppedMessages
}
