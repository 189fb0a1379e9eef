package ops

import (
	"context"
	"encoding/json"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/sessionrow"
)

// HostError is one host of a fleet that failed: its context and why.
type HostError = backend.HostError

// Row is one session as a listing shows it (CONTRACT §4): its document,
// with nothing of the store it was read from.
type Row = sessionrow.Row

// ListQuery is what a listing asks for.
type ListQuery struct {
	Kinds     []string // only these kinds (empty: all)
	Limit     int      // at most this many rows; < 0: all
	Active    int      // only sessions updated in the last Active minutes (0: any)
	Messages  int      // the last N messages of each row, prepared like history's
	AllAgents bool     // every agent (locally the operator otherwise sees its requester's)
}

// ListResult is the document of a listing (`sessions list --json`).
// TotalCount, LimitApplied and HasMore are what OpenClaw 2026.9's
// `openclaw sessions --json` reports: the matching sessions before the
// limit, the limit in force (null for no limit) and whether rows were left
// out.
type ListResult struct {
	Count        int   `json:"count"`
	TotalCount   int   `json:"totalCount"`
	LimitApplied *int  `json:"limitApplied"`
	HasMore      bool  `json:"hasMore"`
	Sessions     []Row `json:"sessions"`
	// Errors: the hosts that failed, over a fleet only (--context all);
	// [] when none did.
	Errors *[]HostError `json:"errors,omitempty"`

	// MultiAgent: the rows span several agents (a table shows the agent).
	MultiAgent bool `json:"-"`
	// Fleet: the rows come from several hosts (each row says its context).
	Fleet bool `json:"-"`
}

// List returns the newest sessions the requester may see that match q,
// from wherever this invocation works: the state dir, one gateway, or a
// fleet of them (every host at once; a failing host is in Errors, the
// others' rows are kept).
func (o *Ops) List(ctx context.Context, q ListQuery) (*ListResult, error) {
	v, err := o.list(ctx, q)
	return deliver(o, v, err)
}

// list is List before the agent boundary.
func (o *Ops) list(ctx context.Context, q ListQuery) (*ListResult, error) {
	readers, fleet, err := o.where.Readers()
	if err != nil {
		return nil, err
	}
	defer closeAll(readers)
	bq := backend.ListQuery{Kinds: q.Kinds, Limit: q.Limit, Active: q.Active, Messages: q.Messages, AllAgents: q.AllAgents, Now: o.Now()}
	var lr *backend.ListResult
	var failed []HostError
	if fleet {
		lr, failed = backend.ListFleet(ctx, readers, bq)
	} else if lr, err = readers[0].List(ctx, bq); err != nil {
		return nil, err
	}
	rows := lr.Rows
	if o.masking() {
		// The messages masked here, on copies (what the readers hold stays
		// as stored), as history masks them; every other string of a row
		// is masked by the boundary (deliver).
		rows = append([]Row(nil), rows...)
		for i := range rows {
			if len(rows[i].Messages) > 0 {
				msgs := append([]json.RawMessage(nil), rows[i].Messages...)
				o.redactMessages(msgs)
				rows[i].Messages = msgs
			}
		}
	}
	res := &ListResult{Count: len(lr.Rows), TotalCount: lr.Total, HasMore: len(lr.Rows) < lr.Total, Sessions: rows,
		MultiAgent: lr.MultiAgent, Fleet: fleet}
	if q.Limit >= 0 {
		n := q.Limit
		res.LimitApplied = &n
	}
	if fleet {
		if failed == nil {
			failed = []HostError{}
		}
		res.Errors = &failed
	}
	return res, nil
}
