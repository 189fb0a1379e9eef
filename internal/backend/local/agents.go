package local

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// AgentList are the agents of this host's state dir: configured in
// openclaw.json or present under <state>/agents/, each with what the
// requester may do with it (wo: the invocation's write options, whose
// live-gateway lookup the target does once).
func (l *Local) AgentList(_ context.Context, wo sessionwrite.Options) (*backend.AgentsResult, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	var allow []string
	if a := s.Cfg.Agent(s.Req.Agent); a != nil {
		allow = a.Subagents.AllowAgents
	}
	res := &backend.AgentsResult{
		Requester:     backend.AgentsRequester{Key: s.Req.Key, AgentID: s.Req.Agent},
		DefaultAgent:  s.Default,
		SpawnAllowed:  policy.SpawnAllowedList(allow, config.NormalizeAgentID),
		Agents:        []backend.AgentRow{},
		SaysRequester: true,
	}
	fromSubagent := keys.IsSubagent(s.Req.Key)
	caper := localCaps(s, wo)
	for _, id := range s.AgentIDs() {
		caps := caper.of(id)
		a := backend.AgentRow{ID: id, Default: id == s.Default, Era: caps.Era, Visible: caps.Readable, Writable: caps.Writable}
		if c := s.Cfg.Agent(id); c != nil {
			a.Configured = true
			a.Name = c.Name
		}
		a.Store, _ = s.StorePath(id)
		e := s.Era(id)
		if e == era.SQLite {
			a.Store = s.SQLitePath(id)
		}
		if e != era.None && a.Visible {
			if _, entries, err := s.Entries(id); err == nil {
				n := len(entries)
				a.Sessions = &n
			} else {
				l.Warn(err.Error())
			}
		}
		refusal := policy.SpawnTarget(allow, s.Req.Agent, id, config.NormalizeAgentID)
		a.SpawnTarget = !fromSubagent && refusal == ""
		a.CanSpawn = a.SpawnTarget && a.Writable
		switch {
		case !a.Writable:
			a.Reason = caps.WhyNot
		case fromSubagent:
			a.Reason = "a sub-agent may not spawn"
		case !a.SpawnTarget:
			a.Reason = "not allowed by " + s.Req.Agent + " (subagents.allowAgents: " + res.SpawnAllowed + ")"
		case caps.WritesThrough != "":
			a.Reason = "routed through the live gateway at " + caps.WritesThrough
		}
		res.Agents = append(res.Agents, a)
	}
	return res, nil
}
