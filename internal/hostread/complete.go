package hostread

import (
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// The hints a shell completion offers, read from a state dir: nothing is
// written (no run is reaped, no archive swept), and what cannot be read is
// skipped.

// The hints are the documents front-ends get (internal/hostdoc).
type (
	SessionHint = hostdoc.SessionHint
	AgentHint   = hostdoc.AgentHint
	RunHint     = hostdoc.RunHint
)

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

// SessionHints are the sessions of s the requester may read, in store
// order (labelled: only those with a label); a store that cannot be read is
// skipped, warn says why.
func SessionHints(s *state.State, labelled bool, warn func(string)) []SessionHint {
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
	return out
}

// AgentHints are the agents of s: configured ones first, then the
// directories under <state>/agents.
func AgentHints(s *state.State) []AgentHint {
	var out []AgentHint
	for _, id := range s.AgentIDs() {
		h := AgentHint{ID: id, Default: id == s.Default}
		if a := s.Cfg.Agent(id); a != nil {
			h.Name = a.Name
		}
		out = append(out, h)
	}
	return out
}

// RunHints are our run records in s's state dir, as they are recorded.
func RunHints(s *state.State) ([]RunHint, error) {
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
