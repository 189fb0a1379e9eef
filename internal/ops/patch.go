package ops

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// ParseLabel checks a label before the target's era is known
// (sessionwrite.CheckLabel): trimmed, not empty, at most 512 UTF-16 code
// units; the host holds it to its era's rule (2026.1.30: 64) once it
// knows the target. A usage error "invalid label: …".
func ParseLabel(raw string) (string, error) { return sessionwrite.CheckLabel(raw) }

// DefaultPatchSettle bounds the wait, after an OpenClaw run released a
// session's transcript lock, for its end-of-turn write of the store.
const DefaultPatchSettle = 2 * time.Second

// PatchRequest is a change of a session's send policy or label, as
// OpenClaw's sessions.patch makes it.
type PatchRequest struct {
	Ref         string // a key, sessionId or unique prefix; or TargetLabel
	TargetLabel string // the session with this label (Config.Agent picks the agent)
	SendPolicy  string // "", allow, deny, inherit (removes the override)
	SetLabel    bool   // set Label (checked with ParseLabel)
	Label       string
	ClearLabel  bool
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (the local state
	// dir only).
	WaitIdle time.Duration
	// Settle is how long to wait, after such a run released the lock, for
	// its end-of-turn store write (0: DefaultPatchSettle).
	Settle time.Duration
	// OnWaitIdle is told when the patch starts waiting for such a run
	// (WaitIdle), with what it waits for.
	OnWaitIdle func(msg string)
}

// Validate refuses a request that asks for nothing or for something
// invalid (usage errors, exit 2) before any store is read, and trims the
// label. The label is held to the loosest rule here (2026.9.6's 512); the
// target's era decides once it is known (2026.1.30: 64).
func (q *PatchRequest) Validate() error {
	switch q.SendPolicy {
	case "", "allow", "deny", "inherit":
	default:
		return apperr.Usagef("invalid --send-policy %q (allow, deny or inherit)", q.SendPolicy)
	}
	if q.SetLabel && q.ClearLabel {
		return apperr.Usagef("--label and --clear-label cannot be used together")
	}
	if q.SetLabel {
		l, err := ParseLabel(q.Label)
		if err != nil {
			return apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
		q.Label = l
	}
	if q.SendPolicy == "" && !q.SetLabel && !q.ClearLabel {
		return apperr.Usagef("nothing to change: give --send-policy, --label or --clear-label")
	}
	return nil
}

// PatchResult is the JSON document of `sessions patch`.
type PatchResult struct {
	OK       bool            `json:"ok"`
	Key      string          `json:"key"`
	Path     string          `json:"path"`
	Entry    json.RawMessage `json:"entry"`
	Warnings []string        `json:"warnings,omitempty"`
	// DisplayKey is the session's key as the requester names it.
	DisplayKey string `json:"-"`
}

// Patch changes a session's fields as OpenClaw's sessions.patch does,
// safely beside a live OpenClaw. It works on one host (o.host): the host
// finds the session with the checks of a send (visibility,
// agent-to-agent) and answers what the write can do there; the write goes
// where the chooser routes the agent's writes — through the gateway the
// invocation names (its sessions.patch), through the live gateway of a
// 2026.8+ agent, else the agent's sessions.json (under OpenClaw's lock) or
// SQLite store. On sessions.json an OpenClaw turn running on the session
// is warned about (its end-of-turn write may undo the change), or waited
// for with q.WaitIdle.
func (o *Ops) Patch(ctx context.Context, q PatchRequest) (*PatchResult, error) {
	v, err := o.patch(ctx, q)
	return deliver(o, v, err)
}

// patch is Patch before the agent boundary.
func (o *Ops) patch(ctx context.Context, q PatchRequest) (*PatchResult, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	h, err := o.where.OneHost(oneHostPatch)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	a := backend.PatchAsk{Ref: q.Ref, Label: q.TargetLabel, WaitIdle: q.WaitIdle, Settle: q.Settle, OnWait: q.OnWaitIdle}
	if a.Settle <= 0 {
		a.Settle = DefaultPatchSettle
	}
	switch {
	case q.SetLabel:
		a.NewLabel = &q.Label
	case q.ClearLabel:
		a.NewLabel = new(string)
	}
	switch q.SendPolicy {
	case "allow", "deny":
		a.SendPolicy = &q.SendPolicy
	case "inherit":
		a.SendPolicy = new(string)
	}
	p, err := h.Patch(ctx, a)
	if err != nil {
		return nil, err
	}
	return &PatchResult{OK: true, Key: p.Key, Path: p.Path, Entry: p.Entry, Warnings: p.Warnings, DisplayKey: p.DisplayKey}, nil
}
