package ops

import (
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// lifecycle runs op with the lifecycle options of this invocation: delete,
// reset, archive and prune write each agent's sessions where
// sessionwrite.Choose routes them — the one gateway the invocation selects
// (several are a usage error), else for an agent on a 2026.8+ SQLite store
// this host's live gateway for the state dir (looked for once), else the
// agent's store, written directly.
func (o *Ops) lifecycle(s *state.State, dryRun, force bool, op func(*lifecycle.Options) (*LifecycleResult, error)) (*LifecycleResult, error) {
	w, err := o.writes(s, oneHostLifecycle)
	if err != nil {
		return nil, err
	}
	if w.Host != nil {
		o.debug("lifecycle through the selected gateway", "gateway", w.Host.String())
	}
	lo := lifecycle.Options{DryRun: dryRun, Force: force, Now: o.cfg.Now, Open: func(agent string) (sessionwrite.Writes, error) {
		r, err := sessionwrite.Choose(s, agent, w.Options)
		if err != nil {
			return nil, err
		}
		return sessionwrite.OpenLifecycle(s, agent, r, w.Options)
	}}
	return op(&lo)
}
