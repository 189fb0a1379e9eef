// Package launch starts the runs of send and spawn: it checks the engine
// asked for and chooses the one a run records, refuses before a run exists
// what its runner could not do (preflight), records the run and starts its
// detached runner, and waits for a run's first step.
//
// It knows nothing of the invocation's flags or of where the invocation
// works: the operations layer gives it what its chooser decided (a
// Launcher: the state, the environment, the named gateway, how to find the
// gateway a turn runs in).
package launch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// Launcher is what choosing an engine and starting a runner need from the
// invocation. Its zero funcs are never called unless the engine asks for
// them (auto, gateway).
type Launcher struct {
	// State is this host's state; nil for a run through a named gateway
	// (where the engine is the gateway's own).
	State  *state.State
	Getenv func(string) string
	Log    *log.Logger
	// Named is the gateway the invocation names; nil: none.
	Named *gateway.Endpoint
	// ProbeTimeout bounds the handshake with the named gateway (auto).
	ProbeTimeout time.Duration
	// ProbeLocalGateway: a live local gateway that accepts the config's
	// credentials (where it is), or why not — the auto engine's test.
	ProbeLocalGateway func() (string, error)
	// TurnGateway is the gateway a gateway-engine turn runs in (exit 10
	// when none runs).
	TurnGateway func() (gateway.Endpoint, error)
	// RunnerFlags are the global flags the runner of a run gets
	// (--lock-timeout).
	RunnerFlags func() []string
	// RunnerGateway is the gateway selector the runner of a run with
	// engine resolves its gateway with, recorded in the run (nil: none).
	RunnerGateway func(engine string) *gatewaysel.Selector
}

func (l *Launcher) debug(msg string, kv ...any) {
	if l.Log != nil {
		l.Log.Debug(msg, kv...)
	}
}

// Launch records the run in s's runs, puts a sub-agent's child that has
// an archive time (Spawn.ArchiveAtMs) in s's archive index (a failure
// there is a warning: the child is then not archived automatically), and
// starts the run's runner.
func (l *Launcher) Launch(s *state.State, rec *runs.Record) (*runs.Store, error) {
	rs := runs.Open(s.Dir.Path)
	if l.RunnerGateway != nil {
		rec.Gateway = l.RunnerGateway(rec.Engine)
	}
	if err := rs.Save(rec); err != nil {
		return nil, err
	}
	if sp := rec.Spawn; sp != nil && sp.ArchiveAtMs > 0 {
		e := archive.Entry{RunID: rec.RunID, ChildKey: rec.Target.Key, Agent: rec.Target.AgentID, ArchiveAtMs: sp.ArchiveAtMs}
		if err := archive.Add(s.Dir.Path, e); err != nil && l.Log != nil {
			l.Log.Warn("cannot record the child in the archive index; it will not be archived automatically", "err", err)
		}
	}
	if err := l.startRunner(s, rs, rec); err != nil {
		return nil, err
	}
	return rs, nil
}

// startRunner starts the detached runner of a saved run; when it cannot be
// started the run is ended as an error.
func (l *Launcher) startRunner(s *state.State, rs *runs.Store, rec *runs.Record) error {
	cfgPath := ""
	if s.Cfg.Exists {
		cfgPath = s.Cfg.Path
	}
	var extra []string
	if l.RunnerFlags != nil {
		extra = l.RunnerFlags()
	}
	if _, err := runner.Start(rs, rec.RunID, runner.StartOptions{StateDir: s.Dir.Path, ConfigPath: cfgPath, Extra: extra}); err != nil {
		rec.Status = runs.StatusError
		rec.Error = err.Error()
		rec.ReplyDone = true
		_ = rs.Save(rec)
		return err
	}
	return nil
}

// Wait waits up to timeout for the first step of a run to end (the
// target's reply, or a sub-agent's task) and returns the run record as it
// then is. Giving up — the timeout, or ctx ended — is an error that
// carries the run id (runId): the run goes on.
func Wait(ctx context.Context, rs *runs.Store, rec *runs.Record, timeout time.Duration) (*runs.Record, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last, err := rs.Wait(wctx, rec.RunID, func(r *runs.Record) bool { return r.ReplyDone })
	if last == nil {
		last = rec
	}
	switch {
	case err == nil && last.ReplyDone:
		return last, nil
	case err == nil, errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		msg := fmt.Sprintf("timed out after %s waiting for the reply; the run goes on (sessions wait %s)", timeout, last.RunID)
		return nil, apperr.Timeoutf("%s", msg).With("runId", last.RunID)
	case ctx.Err() != nil:
		e := apperr.Errorf("stopped waiting for the reply (%w); the run goes on (sessions wait %s)", ctx.Err(), last.RunID)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e = apperr.Timeoutf("stopped waiting for the reply (%w); the run goes on (sessions wait %s)", ctx.Err(), last.RunID)
		}
		return nil, e.With("runId", last.RunID)
	}
	return nil, err
}
