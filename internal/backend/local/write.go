package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// idleQuery is what a write does about an OpenClaw run on its session
// (writeSession.idle).
type idleQuery struct {
	// Wait > 0: wait up to this long for the run to end (exit 5 after);
	// 0: warn that its end-of-turn write may undo the change.
	Wait time.Duration
	// Settle is how long to wait, after the run released the lock, for
	// its end-of-turn store write (0: not waited for).
	Settle time.Duration
	// OnWait is told when the wait starts, with what it waits for.
	OnWait func(msg string)
}

// idlePoll is how often the wait for an idle session re-checks the
// transcript lock and the store.
const idlePoll = 100 * time.Millisecond

// idle looks, before a write on route r, for an OpenClaw
// turn running on the session: a live holder of its transcript lock, which
// only this host's JSON-era files have (a 2026.8+ store refuses a session
// with an active run itself; a gateway orders the write with its runs).
// Without q.Wait it returns the warning that the write may be undone (also
// said through the host's Warn); with it, it waits for the turn to end and
// for OpenClaw's end-of-turn store write (at most q.Settle after the lock
// is released), or fails with exit 5 when the turn is still running after
// q.Wait.
func (w *writeSession) idle(ctx context.Context, r sessionwrite.Route, q idleQuery) ([]string, error) {
	if !r.Direct(era.JSON) || w.t == nil {
		return nil, nil
	}
	s, t := w.State, w.t
	storePath, _ := s.StorePath(t.Agent)
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil || tp.Path == "" {
		return nil, nil // no transcript to lock: nothing can be running on it
	}
	h, err := state.TranscriptBusy(tp.Path)
	if err != nil || h == nil {
		return nil, nil
	}
	held := w.l.now().Sub(h.Since).Round(time.Second)
	if q.Wait <= 0 {
		msg := fmt.Sprintf("an OpenClaw run (pid %d) has held the transcript lock of %s for %s: when its turn ends OpenClaw rewrites the entry from its own copy and may undo this change (use --wait-idle to wait for the run to end first)",
			h.PID, t.DisplayKey, held)
		w.l.Warn(msg)
		return []string{msg}, nil
	}
	if q.OnWait != nil {
		q.OnWait(fmt.Sprintf("waiting up to %s for the OpenClaw run on %s (pid %d, transcript lock held for %s) to end…", q.Wait, t.DisplayKey, h.PID, held))
	}
	before := storeStamp(storePath)
	ctx, cancel := context.WithTimeout(ctx, q.Wait)
	defer cancel()
	if last, err := state.WaitTranscriptIdle(ctx, tp.Path, idlePoll); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			pid := h.PID
			if last != nil {
				pid = last.PID
			}
			return nil, apperr.Timeoutf("still busy after %s: an OpenClaw run (pid %d) holds the transcript lock of %s; nothing was changed", q.Wait, pid, t.DisplayKey).With("sessionKey", t.DisplayKey)
		}
		return nil, err
	}
	// The turn's own store write comes right after it releases the lock:
	// wait for the store to change (or q.Settle), so that it lands first.
	timer := time.NewTimer(q.Settle)
	defer timer.Stop()
	for storeStamp(storePath) == before {
		select {
		case <-timer.C:
			return nil, nil
		case <-time.After(idlePoll):
		}
	}
	w.l.debug("store written after the run ended", "path", storePath)
	return nil, nil
}

// storeStamp identifies a version of the store file (size, mtime).
func storeStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}

// route is where agent's session writes go on this host's state dir s,
// and the options they open with: sessionwrite.Choose with this host's
// write options — the agent's own store here, or, for a 2026.8+ agent,
// this host's live gateway (an overlay of Local's: a gateway the
// invocation names is a host of its own, gatewayhost.Gateway). Said at debug level
// for the operation what, when it is a gateway or a 2026.8+ agent stays
// local.
func (l *Local) route(s *state.State, agent, what string) (sessionwrite.Route, sessionwrite.Options, error) {
	wo := l.writeOptions(s)
	r, err := sessionwrite.Choose(s, agent, wo)
	if err != nil {
		return r, wo, err
	}
	switch {
	case r.ThroughGateway():
		l.debug(what+": "+r.Why, "gateway", r.Gateway.URL, "auth", r.Gateway.AuthSource)
	case r.Why != "":
		l.debug(what+": "+r.Why+"; writing locally", "agent", agent)
	}
	return r, wo, nil
}

// writeSession is the session a write changes on this host, and what a
// write can do on it.
type writeSession struct {
	backend.WriteTarget
	// State is this host's state dir the session is in, where its writes
	// are routed from.
	State *state.State

	waitIdle bool
	l        *Local
	t        *state.Target // the local state's session
}

// through refuses what the write cannot do on route r: wait for an
// OpenClaw run (WaitIdle) through this host's live gateway of a 2026.8+
// agent.
func (w *writeSession) through(r sessionwrite.Route) error {
	if w.waitIdle && r.ThroughGateway() {
		return backend.ErrWaitIdleOverGateway()
	}
	return nil
}

// writeSession resolves the reference in this host's state dir with the
// checks of a send (state.ResolveRef, policy.OpSend).
func (l *Local) writeSession(q backend.WriteQuery) (*writeSession, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	t, err := s.ResolveRef(state.Ref{Arg: q.Ref, Label: q.Label, Agent: l.Agent}, policy.OpSend)
	if err != nil {
		return nil, err
	}
	w := &writeSession{WriteTarget: backend.WriteTarget{Key: t.Key, DisplayKey: t.DisplayKey, Agent: t.Agent}, State: s, waitIdle: q.WaitIdle, l: l, t: t}
	if t.ViaID {
		// the key may have moved on to a new session (/new) since we
		// resolved the id
		w.SessionID = t.Entry.SessionID
	}
	return w, nil
}
