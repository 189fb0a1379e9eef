package ops

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// LifecycleResult is the document of delete, reset, archive and prune
// (the same with a dry run, "dryRun" aside).
type LifecycleResult = lifecycle.Result

// LifecycleItem is one session a lifecycle operation acted on.
type LifecycleItem = lifecycle.Item

// LifecycleSkip is a session prune selected but left alone, and why.
type LifecycleSkip = lifecycle.Skip

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

// Delete deletes the sessions q names: the main session is refused, a
// session with a live run refused unless Force waited for it, all before
// anything is written.
func (o *Ops) Delete(ctx context.Context, q DeleteRequest) (*LifecycleResult, error) {
	v, err := o.delete(ctx, q)
	return deliver(o, v, err)
}

// delete is Delete before the agent boundary.
func (o *Ops) delete(ctx context.Context, q DeleteRequest) (*LifecycleResult, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	var ts []*state.Target
	seen := map[string]bool{}
	for _, a := range q.Keys {
		t, err := s.Resolve(a, policy.OpSend)
		if err != nil {
			return nil, err
		}
		if !seen[t.Agent+"\x00"+t.Key] {
			seen[t.Agent+"\x00"+t.Key] = true
			ts = append(ts, t)
		}
	}
	return o.lifecycle(s, q.DryRun, q.Force, func(lo *lifecycle.Options) (*LifecycleResult, error) {
		lo.KeepTranscript = q.KeepTranscript
		return lifecycle.Delete(ctx, s, ts, *lo)
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
	return o.oneSession(ctx, q.Key, q.DryRun, q.Force, lifecycle.Reset)
}

// Archive archives the session q names; every agent's main session is
// refused.
func (o *Ops) Archive(ctx context.Context, q ArchiveRequest) (*LifecycleResult, error) {
	v, err := o.archive(ctx, q)
	return deliver(o, v, err)
}

// archive is Archive before the agent boundary.
func (o *Ops) archive(ctx context.Context, q ArchiveRequest) (*LifecycleResult, error) {
	return o.oneSession(ctx, q.Key, q.DryRun, q.Force, lifecycle.Archive)
}

func (o *Ops) oneSession(ctx context.Context, key string, dryRun, force bool, act func(context.Context, *state.State, *state.Target, lifecycle.Options) (*lifecycle.Result, error)) (*LifecycleResult, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	t, err := s.Resolve(key, policy.OpSend)
	if err != nil {
		return nil, err
	}
	return o.lifecycle(s, dryRun, force, func(lo *lifecycle.Options) (*LifecycleResult, error) {
		return act(ctx, s, t, *lo)
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
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	if !s.Req.Operator() {
		return nil, apperr.Forbiddenf("sessions prune is for the host operator (run it without --as and OPENCLAW_SESSION_KEY); an agent deletes its own sessions one by one with sessions delete")
	}
	agents := s.AgentIDs()
	if !q.AllAgents {
		a := s.Default
		if s.AgentFlag != "" {
			a = s.AgentFlag
		}
		agents = []string{a}
	}
	return o.lifecycle(s, q.DryRun, q.Force, func(lo *lifecycle.Options) (*LifecycleResult, error) {
		return lifecycle.Prune(ctx, s, agents, q.OlderThan, q.Kinds, *lo)
	})
}
