package local

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// lifecycleOptions are the lifecycle options of a write on s: each
// agent's writes opened on the route sessionwrite.Choose gives it (the
// files, the 2026.8+ store, or this host's live gateway).
func (l *Local) lifecycleOptions(s *state.State, dryRun, force, keep bool) lifecycle.Options {
	wo := l.writeOptions(s)
	return lifecycle.Options{DryRun: dryRun, Force: force, KeepTranscript: keep, Now: l.Now, Open: func(agent string) (sessionwrite.Writes, error) {
		r, err := sessionwrite.Choose(s, agent, wo)
		if err != nil {
			return nil, err
		}
		return sessionwrite.OpenLifecycle(s, agent, r, wo)
	}}
}

// Delete resolves q's references in this host's state dir with the checks
// of a send and deletes them (lifecycle.Delete).
func (l *Local) Delete(ctx context.Context, q backend.DeleteAsk) (*lifecycle.Result, error) {
	s, err := l.State()
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
	return lifecycle.Delete(ctx, s, ts, l.lifecycleOptions(s, q.DryRun, q.Force, q.KeepTranscript))
}

// Reset resolves q.Key in this host's state dir and resets it
// (lifecycle.Reset).
func (l *Local) Reset(ctx context.Context, q backend.SessionAsk) (*lifecycle.Result, error) {
	return l.oneSession(ctx, q, lifecycle.Reset)
}

// Archive resolves q.Key in this host's state dir and archives it
// (lifecycle.Archive).
func (l *Local) Archive(ctx context.Context, q backend.SessionAsk) (*lifecycle.Result, error) {
	return l.oneSession(ctx, q, lifecycle.Archive)
}

func (l *Local) oneSession(ctx context.Context, q backend.SessionAsk, act func(context.Context, *state.State, *state.Target, lifecycle.Options) (*lifecycle.Result, error)) (*lifecycle.Result, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	t, err := s.Resolve(q.Key, policy.OpSend)
	if err != nil {
		return nil, err
	}
	return act(ctx, s, t, l.lifecycleOptions(s, q.DryRun, q.Force, false))
}

// Prune deletes the old sessions of the host's agent (or every agent)
// from this host's state dir (lifecycle.Prune); for the operator only.
func (l *Local) Prune(ctx context.Context, q backend.PruneAsk) (*lifecycle.Result, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	if !s.Req.Operator() {
		return nil, apperr.Forbiddenf("%s", backend.MsgPruneOperator)
	}
	agents := s.AgentIDs()
	if !q.AllAgents {
		a := s.Default
		if s.AgentFlag != "" {
			a = s.AgentFlag
		}
		agents = []string{a}
	}
	return lifecycle.Prune(ctx, s, agents, q.OlderThan, q.Kinds, l.lifecycleOptions(s, q.DryRun, q.Force, false))
}
