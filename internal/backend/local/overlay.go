package local

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/backend/gatewayhost"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// spawnThroughLive spawns through this host's live gateway of a 2026.8+
// agent (route, Local.route's overlay): the engine is the gateway's, the
// requester's entry read here for the child's announce.
func (l *Local) spawnThroughLive(ctx context.Context, s *state.State, ln *launch.Launcher, q backend.SpawnAsk, a spawnAsk, route sessionwrite.Route, wo sessionwrite.Options) (*backend.SpawnedChild, error) {
	var err error
	g := gatewayhost.ChildSpawn{State: s, Launcher: ln, Route: route, Writes: wo, Agent: a.target, Label: a.label, Thinking: a.thinking, Debug: l.debug}
	if g.Engine, err = ln.ChooseEngineFor(route, a.target, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	g.Requester = runs.Session{Key: a.reqKey, DisplayKey: s.Req.Raw, AgentID: a.reqAgent}
	if t, err := s.Lookup(a.reqKey); err == nil && t != nil {
		g.Requester.Key, g.Requester.SessionID, g.Requester.Channel = t.Entry.Key, t.Entry.SessionID, s.ChannelOf(t.Entry)
	}
	if a.model != nil {
		g.Model = a.model.Key()
	}
	return gatewayhost.SpawnThrough(ctx, q, g)
}
