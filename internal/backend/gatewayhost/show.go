package gatewayhost

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw/sessions/internal/backend"
)

// Show is what the gateway says about the session ref (or label) names,
// with the requester's checks (Session): its sessions.list row and the
// messages of the window chat.history returns, counted.
func (g *Gateway) Show(ctx context.Context, ref, label string) (*backend.ShowResult, error) {
	sess, err := g.Session(ctx, ref, label)
	if err != nil {
		return nil, err
	}
	page, err := g.History(ctx, sess, backend.HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	return backend.ShowCounted(g.showRemote(sess, page), page), nil
}

// showRemote is what a gateway knows about the session beside its
// messages: its sessions.list row (as "entry"). What the gateway does not
// give is absent: transcript path and bytes, the lock, our run records;
// lineage children only from 2026.9 rows; busy from 2026.9's hasActiveRun.
// The window chat.history reaches may not be the whole transcript
// (transcript.partial, and a warning).
func (g *Gateway) showRemote(sess *backend.Session, page *backend.HistoryPage) *backend.ShowResult {
	var row struct {
		ModelProvider string   `json:"modelProvider"`
		InputTokens   *float64 `json:"inputTokens"`
		OutputTokens  *float64 `json:"outputTokens"`
		HasActiveRun  bool     `json:"hasActiveRun"`
	}
	_ = json.Unmarshal(sess.Raw, &row)
	r := sess.Row
	res := backend.NewShowResult(backend.ShowFacts{
		Key: r.Key, StoreKey: r.Key, SessionID: sess.SessionID, Row: r,
		Model: backend.ShowModel{Provider: row.ModelProvider, Model: r.Model},
		Input: row.InputTokens, Output: row.OutputTokens, Era: backend.HostedByGateway, Store: g.Where(),
		Children: sess.Children, Entry: sess.Raw,
	})
	res.Busy = row.HasActiveRun
	if page.WindowFull {
		res.Transcript.Partial = true
		g.warn(fmt.Sprintf("show: the gateway returns the last %d messages of %s; transcript.messages and firstMessageAt count those only", backend.HistoryWindow, sess.Key))
	}
	return res
}
