package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
)

// ShowQuery names the session to show: its key, sessionId or a unique
// sessionId prefix (Ref), or its label (with Config.Agent).
type ShowQuery struct {
	Ref   string
	Label string
}

// The document of one session (`sessions show --json`), as the host that
// has it builds it (backend.Host.Show).
type (
	ShowResult     = backend.ShowResult
	ShowModel      = backend.ShowModel
	ShowTokens     = backend.ShowTokens
	ShowTranscript = backend.ShowTranscript
	ShowEarlier    = backend.ShowEarlier
	ShowLineage    = backend.ShowLineage
	ShowLock       = backend.ShowLock
	ShowRun        = backend.ShowRun
)

// Sources of a run.
const (
	ShowRunSessions = backend.ShowRunSessions // our own run records (<state>/sessions-cli/runs)
	ShowRunOpenClaw = backend.ShowRunOpenClaw // OpenClaw's sub-agent registry (subagents/runs.json)
)

// Roles of the session in a run.
const (
	ShowRoleTarget    = backend.ShowRoleTarget    // the run's target (send) or child (spawn, sub-agent)
	ShowRoleRequester = backend.ShowRoleRequester // the session that asked for the run
)

// ShowFleetResult is the document of show over several gateways: the
// session as each host that has it shows it (each with its Context), and
// the hosts that failed. A host without the session is neither.
type ShowFleetResult struct {
	Sessions []*ShowResult `json:"sessions"`
	Count    int           `json:"count"`
	Errors   []HostError   `json:"errors"`
}

// Shown is what Show found: one session (the state dir or one gateway),
// or over a fleet the fleet's document.
type Shown struct {
	Session *ShowResult
	Fleet   *ShowFleetResult
}

// Show is everything about one session: its entry as stored and what the
// rest of the state says about it (kind, channel, transcript and its
// messages, model, tokens, lineage, the lock a run holds, its runs), as the
// host that has it tells (backend.Host.Show). Over a fleet every host is
// asked at once: none having it is exit 4 (unless one failed); a failing
// host is in Fleet.Errors beside the others.
func (o *Ops) Show(ctx context.Context, q ShowQuery) (*Shown, error) {
	v, err := o.show(ctx, q)
	return deliver(o, v, err)
}

// show is Show before the agent boundary.
func (o *Ops) show(ctx context.Context, q ShowQuery) (*Shown, error) {
	hosts, fleet, err := o.where.Hosts()
	if err != nil {
		return nil, err
	}
	defer closeAll(hosts)
	if !fleet {
		res, err := hosts[0].Show(ctx, q.Ref, q.Label)
		if err != nil {
			return nil, err
		}
		return &Shown{Session: res}, nil
	}
	found, errs := backend.Each(hosts, func(h backend.Host) (*ShowResult, error) { return h.Show(ctx, q.Ref, q.Label) })
	out := &ShowFleetResult{Sessions: []*ShowResult{}, Errors: []HostError{}}
	for i, h := range hosts {
		switch {
		case errs[i] == nil:
			found[i].Context = h.Where()
			out.Sessions = append(out.Sessions, found[i])
		case apperr.CodeOf(errs[i]) == apperr.CodeNotFound:
			// not on this host (an ambiguous prefix is a failure, exit 1)
		default:
			out.Errors = append(out.Errors, HostError{Context: h.Where(), Error: errs[i].Error(), Err: errs[i]})
		}
	}
	out.Count = len(out.Sessions)
	if out.Count == 0 && len(out.Errors) == 0 {
		return nil, apperr.NotFoundf("session %s not found on any of the %d gateways asked", q.describe(), len(hosts))
	}
	return &Shown{Fleet: out}, nil
}

func (q ShowQuery) describe() string {
	if q.Label != "" {
		return "with label " + q.Label
	}
	return q.Ref
}
