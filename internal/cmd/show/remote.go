package show

import (
	"encoding/json"
	"fmt"

	"github.com/openclaw/sessions/internal/backend"
)

// buildRemote is what a gateway knows about the session beside its
// messages: its sessions.list row (as "entry"). What the gateway does not
// give is absent: transcript path and bytes, the lock, our run records;
// lineage children only from 2026.9 rows; busy from 2026.9's hasActiveRun.
// The window chat.history reaches may not be the whole transcript
// (transcript.partial, a line on stderr).
func buildRemote(o *Options, sess *backend.Session, page *backend.HistoryPage, where string) *Result {
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
	if page.WindowFull {
		res.Transcript.Partial = true
		o.f.Warn(fmt.Sprintf("show: the gateway returns the last %d messages of %s; transcript.messages and firstMessageAt count those only", backend.HistoryWindow, sess.Key))
	}
	return res
}
