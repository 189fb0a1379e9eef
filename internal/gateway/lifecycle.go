package gateway

import (
	"context"
	"encoding/json"

	"github.com/openclaw/sessions/internal/apperr"
)

// DeleteParams are sessions.delete's optional fields. ExpectedSessionID is
// sent to 2026.9.x only (1.30 rejects the field); DeleteTranscript false
// keeps the transcript (both versions).
type DeleteParams struct {
	KeepTranscript    bool
	ExpectedSessionID string
}

// DeleteResult is sessions.delete's answer: whether an entry went, and the
// transcripts moved aside (1.30: <file>.deleted.<ts>; 9.x: a zstd archive).
type DeleteResult struct {
	OK       bool     `json:"ok"`
	Key      string   `json:"key"`
	Deleted  bool     `json:"deleted"`
	Archived []string `json:"archived"`
}

// DeleteSession calls sessions.delete (operator.admin in both versions).
func (c *Client) DeleteSession(ctx context.Context, key string, p DeleteParams) (*DeleteResult, error) {
	if key == "" {
		return nil, apperr.Usagef("sessions.delete: no session key")
	}
	m := map[string]any{"key": key}
	if p.KeepTranscript {
		m["deleteTranscript"] = false
	}
	if p.ExpectedSessionID != "" && c.Protocol() >= 4 {
		m["expectedSessionId"] = p.ExpectedSessionID
	}
	var r DeleteResult
	if err := c.Call(ctx, "sessions.delete", m, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ResetResult is sessions.reset's answer; Entry is the new entry (1.30: a
// new sessionId; 9.x keeps the sessionId and sets a new lifecycleRevision).
type ResetResult struct {
	OK    bool            `json:"ok"`
	Key   string          `json:"key"`
	Entry json.RawMessage `json:"entry,omitempty"`
}

// ResetSession calls sessions.reset (operator.admin in both versions);
// expectedSessionID is sent to 2026.9.x only.
func (c *Client) ResetSession(ctx context.Context, key, expectedSessionID string) (*ResetResult, error) {
	if key == "" {
		return nil, apperr.Usagef("sessions.reset: no session key")
	}
	m := map[string]any{"key": key}
	if expectedSessionID != "" && c.Protocol() >= 4 {
		m["expectedSessionId"] = expectedSessionID
	}
	var r ResetResult
	if err := c.Call(ctx, "sessions.reset", m, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
