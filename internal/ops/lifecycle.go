package ops

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/lifecycledoc"
)

// LifecycleResult is the document of delete, reset, archive and prune
// (the same with a dry run, "dryRun" aside).
type LifecycleResult = lifecycledoc.Result

// LifecycleItem is one session a lifecycle operation acted on.
type LifecycleItem = lifecycledoc.Item

// LifecycleSkip is a session prune selected but left alone, and why.
type LifecycleSkip = lifecycledoc.Skip

// DeleteRequest deletes sessions as OpenClaw's sessions.delete does.
type DeleteRequest struct {
	Keys []string // session keys or sessionIds, as the requester names them
	// DryRun computes the same result and writes nothing.
	DryRun bool
	// Force waits (up to 15 s) for a live run on a session to end instead
	// of refusing at once.
	Force bool
	// KeepTranscript leaves the transcripts where they are.
	KeepTranscript bool
}

// ResetRequest starts a session afresh as OpenClaw's sessions.reset does.
type ResetRequest struct {
	Key    string
	DryRun bool
	Force  bool
}

// ArchiveRequest archives a session (2026.8+: archivedAt; JSON era: as
// 1.30 archives sub-agents, a delete).
type ArchiveRequest struct {
	Key    string
	DryRun bool
	Force  bool
}

// PruneRequest deletes every session not updated for a while.
type PruneRequest struct {
	OlderThan time.Duration // last updated more than this long ago
	Kinds     []string      // only these kinds (empty: all)
	// AllAgents: every agent, not only --agent (else the default agent).
	AllAgents bool
	DryRun    bool
	Force     bool
}

// Delete deletes the sessions q names on the one host the invocation
// works on (this host's state dir, or the gateway it names — no state dir
// needed then): the main session is refused, a session with a live run
// refused unless Force waited for it, all before anything is written.
func (o *Ops) Delete(ctx context.Context, q DeleteRequest) (*LifecycleResult, error) {
	v, err := o.delete(ctx, q)
	return deliver(o, v, err)
}

// delete is Delete before the agent boundary.
func (o *Ops) delete(ctx context.Context, q DeleteRequest) (*LifecycleResult, error) {
	return onHost(o, func(h backend.Host) (*LifecycleResult, error) {
		return h.Delete(ctx, backend.DeleteAsk{Keys: q.Keys, DryRun: q.DryRun, Force: q.Force, KeepTranscript: q.KeepTranscript})
	})
}

// Reset gives the session q names a new sessionId as sessions.reset does
// (2026.9.x through its gateway: the same id, a new lifecycleRevision);
// the old transcript stays.
func (o *Ops) Reset(ctx context.Context, q ResetRequest) (*LifecycleResult, error) {
	v, err := o.reset(ctx, q)
	return deliver(o, v, err)
}

// reset is Reset before the agent boundary.
func (o *Ops) reset(ctx context.Context, q ResetRequest) (*LifecycleResult, error) {
	return onHost(o, func(h backend.Host) (*LifecycleResult, error) {
		return h.Reset(ctx, backend.SessionAsk{Key: q.Key, DryRun: q.DryRun, Force: q.Force})
	})
}

// Archive archives the session q names; every agent's main session is
// refused.
func (o *Ops) Archive(ctx context.Context, q ArchiveRequest) (*LifecycleResult, error) {
	v, err := o.archive(ctx, q)
	return deliver(o, v, err)
}

// archive is Archive before the agent boundary.
func (o *Ops) archive(ctx context.Context, q ArchiveRequest) (*LifecycleResult, error) {
	return onHost(o, func(h backend.Host) (*LifecycleResult, error) {
		return h.Archive(ctx, backend.SessionAsk{Key: q.Key, DryRun: q.DryRun, Force: q.Force})
	})
}

// Prune deletes, as Delete does, every session of the agent (or every
// agent) last updated more than q.OlderThan ago, of q.Kinds; never a main
// session, never one with a live run (both skipped, with the reason). It
// is for the host operator.
func (o *Ops) Prune(ctx context.Context, q PruneRequest) (*LifecycleResult, error) {
	v, err := o.prune(ctx, q)
	return deliver(o, v, err)
}

// prune is Prune before the agent boundary.
func (o *Ops) prune(ctx context.Context, q PruneRequest) (*LifecycleResult, error) {
	return onHost(o, func(h backend.Host) (*LifecycleResult, error) {
		return h.Prune(ctx, backend.PruneAsk{OlderThan: q.OlderThan, Kinds: q.Kinds, AllAgents: q.AllAgents, DryRun: q.DryRun, Force: q.Force})
	})
}

// onHost runs a lifecycle operation on the one host the invocation works
// on (several are a usage error), and closes it.
func onHost(o *Ops, op func(backend.Host) (*LifecycleResult, error)) (*LifecycleResult, error) {
	h, err := o.where.OneHost(oneHostLifecycle)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return op(h)
}
