package show

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw/sessions/internal/backend"
)

// buildRemote is show over a gateway: the session's sessions.list row (as
// "entry") and its transcript through chat.history. What the gateway does
// not give is absent: transcript path and bytes, the lock, our run records;
// lineage children only from 2026.9 rows; busy from 2026.9's hasActiveRun.
func buildRemote(o *Options, tr backend.Transcripts, where string) (*Result, error) {
	ctx := context.Background()
	sess, err := tr.Session(ctx, o.Ref, o.Label)
	if err != nil {
		return nil, err
	}
	page, err := tr.History(ctx, sess, backend.HistoryQuery{Limit: backend.HistoryWindow, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	r := sess.Row
	res := &Result{
		Key: r.Key, StoreKey: r.Key, AgentID: r.AgentID, Kind: r.Kind, Channel: r.Channel,
		SessionID: sess.SessionID, Label: r.Label, DisplayName: r.DisplayName, UpdatedAt: r.UpdatedAt,
		Era: "gateway", Store: where, Runs: []Run{},
		Lineage: Lineage{SpawnedBy: r.SpawnedBy, Children: sess.Children},
		Entry:   sess.Raw,
	}
	if res.Channel == "unknown" {
		res.Channel = ""
	}
	var g struct {
		ModelProvider string   `json:"modelProvider"`
		InputTokens   *float64 `json:"inputTokens"`
		OutputTokens  *float64 `json:"outputTokens"`
		HasActiveRun  bool     `json:"hasActiveRun"`
	}
	_ = json.Unmarshal(sess.Raw, &g)
	if r.Model != "" || g.ModelProvider != "" {
		res.Model = &Model{Provider: g.ModelProvider, Model: r.Model}
	}
	if g.InputTokens != nil || g.OutputTokens != nil || r.TotalTokens != nil || r.ContextTokens != nil {
		res.Tokens = &Tokens{Input: g.InputTokens, Output: g.OutputTokens, Total: r.TotalTokens, Context: r.ContextTokens}
	}
	res.Busy = g.HasActiveRun
	res.Transcript.Exists = len(page.Messages) > 0
	res.Transcript.Messages = len(page.Messages)
	res.Transcript.FirstMessageAt, res.Transcript.LastMessageAt = messageTimes(page.Messages)
	if page.WindowFull {
		res.Transcript.Partial = true
		o.f.Warn(fmt.Sprintf("show: the gateway returns the last %d messages of %s; transcript.messages and firstMessageAt count those only", backend.HistoryWindow, sess.Key))
	}
	return res, nil
}
