package ops

import (
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// SessionHint is one session a shell completion may offer: its key as the
// requester is shown it, and what describes it.
type SessionHint struct {
	Key       string
	SessionID string
	Kind      string
	Channel   string
	Label     string
	UpdatedAt int64 // ms
}

// AgentHint is one agent a completion may offer.
type AgentHint struct {
	ID      string
	Name    string
	Default bool
}

// RunHint is one run a completion may offer.
type RunHint struct {
	RunID     string
	Kind      string
	Status    string
	Target    string // the target's key as shown
	CreatedAt int64  // ms
}

// completionAgents are the agents whose sessions the requester may read:
// the --agent one when given, else every agent the policy lets it see.
func completionAgents(s *state.State) []string {
	if s.AgentFlag != "" {
		return []string{s.AgentFlag}
	}
	var out []string
	for _, a := range s.AgentIDs() {
		if s.CanSeeAgent(a, policy.OpHistory) == "" {
			out = append(out, a)
		}
	}
	return out
}

// SessionHints are the sessions of this host's state dir the requester may
// read (store order; labelled only: those with a label), for completions:
// nothing is written, a store that cannot be read is skipped (warn says
// why).
func (o *Ops) SessionHints(labelled bool, warn func(string)) ([]SessionHint, error) {
	v, err := o.sessionHints(labelled, warn)
	return deliver(o, v, err)
}

// sessionHints is SessionHints before the agent boundary.
func (o *Ops) sessionHints(labelled bool, warn func(string)) ([]SessionHint, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	var out []SessionHint
	for _, agent := range completionAgents(s) {
		st, entries, err := s.Entries(agent)
		if err != nil {
			warn(err.Error())
			continue
		}
		for _, e := range entries {
			if !s.Visible(e) || (labelled && e.Label == "") || (!labelled && !s.Listable(e.Key)) {
				continue
			}
			r := s.Row(agent, st, e)
			out = append(out, SessionHint{Key: r.Key, SessionID: e.SessionID, Kind: r.Kind, Channel: r.Channel, Label: e.Label, UpdatedAt: e.Updated()})
		}
	}
	return out, nil
}

// AgentHints are the agents of this host's state dir (configured ones
// first, then the directories under <state>/agents), for completions.
func (o *Ops) AgentHints() ([]AgentHint, error) {
	v, err := o.agentHints()
	return deliver(o, v, err)
}

// agentHints is AgentHints before the agent boundary.
func (o *Ops) agentHints() ([]AgentHint, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	var out []AgentHint
	for _, id := range s.AgentIDs() {
		h := AgentHint{ID: id, Default: id == s.Default}
		if a := s.Cfg.Agent(id); a != nil {
			h.Name = a.Name
		}
		out = append(out, h)
	}
	return out, nil
}

// RunHints are our run records on this host, for completions: only read
// (no run is reaped: that writes).
func (o *Ops) RunHints() ([]RunHint, error) {
	v, err := o.runHints()
	return deliver(o, v, err)
}

// runHints is RunHints before the agent boundary.
func (o *Ops) runHints() ([]RunHint, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	recs, err := runs.Open(s.Dir.Path).List()
	if err != nil {
		return nil, err
	}
	out := make([]RunHint, 0, len(recs))
	for _, r := range recs {
		target := r.Target.DisplayKey
		if target == "" {
			target = r.Target.Key
		}
		out = append(out, RunHint{RunID: r.RunID, Kind: r.Kind, Status: r.Status, Target: target, CreatedAt: r.CreatedAt})
	}
	return out, nil
}
