package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/transcript"
)

// announceStepTimeout bounds the announce step of a sub-agent run, as
// OpenClaw's runAgentStep bounds its waits (min(timeout, 60 s)).
const announceStepTimeout = 60 * time.Second

// spawn performs a sub-agent run (CONTRACT §4 spawn, format §6.4-§6.6):
// the task on the child session with the sub-agent context as extra system
// prompt (bounded by --run-timeout), then the announce step on the child;
// unless it answers ANNOUNCE_SKIP, the normalised announce is delivered to
// the requester's channel and written into the requester's transcript;
// then, with cleanup "delete", the child is archived.
func (x *job) spawn(ctx context.Context) error {
	rec := x.rec
	sp := rec.Spawn
	if sp == nil || rec.Requester == nil {
		return errors.New("spawn run without its spawn details")
	}
	child, req := rec.Target, *rec.Requester
	c := SubagentContext{
		Task: sp.Task, Label: sp.Label,
		RequesterKey: req.DisplayKey, RequesterChannel: req.Channel,
		ChildKey: child.Key,
	}
	o := turnOptions{
		Timeout:  x.turnTimeout(),
		Thinking: sp.Thinking,
		// the agent acts as its own session: a nested `sessions spawn` run
		// by an exec engine is refused (sub-agents may not spawn)
		Env: []string{"OPENCLAW_SESSION_KEY=" + child.Key},
	}
	if sp.RunTimeoutSeconds > 0 {
		o.Timeout = time.Duration(sp.RunTimeoutSeconds) * time.Second
	}
	// through a 9.x gateway the task turn is already running (started by
	// sessions.create): the task step waits for it; through 1.30 the
	// step replays the spawn's own idempotency key (the same run)
	to := o
	to.AwaitRunID = sp.GatewayRunID
	reply, err := x.stepWith(ctx, "task", 0, child, sp.Task, SubagentSystemPrompt(c), to)
	task := rec.Steps[len(rec.Steps)-1]
	outcome := runs.StatusOK
	switch {
	case err == nil:
	case task.Status == runs.StatusTimeout:
		outcome = runs.StatusTimeout
	default:
		outcome = runs.StatusError
		sp.OutcomeError = err.Error()
	}
	sp.Outcome = outcome
	rec.ReplyDone = true
	rec.Reply = reply
	if err != nil {
		rec.Error = err.Error()
	}
	rec.Delivery = &runs.Delivery{Status: "pending", Mode: "announce"}
	x.save()

	status := StatusLabel(outcome, sp.OutcomeError)
	// the stats of the task, before the announce step touches the entry
	stats := x.statsLine(child, task)
	ao := o
	ao.Timeout = min(x.turnTimeout(), announceStepTimeout)
	ann, aerr := x.stepWith(ctx, "announce", 0, child, SubagentAnnounceMessage, SubagentAnnounceContext(c, status, reply), ao)
	switch {
	case aerr == nil && IsSkip(ann, AnnounceSkip):
		rec.Delivery.Status = "skipped"
		rec.Delivery.Error = AnnounceSkip
	default:
		if aerr == nil {
			if n := strings.TrimSpace(ann); n != "" && n != strings.TrimSpace(reply) {
				sp.Notes = n
			}
		}
		text := FormatSubagentAnnounce(status, reply, sp.Notes, stats)
		sp.Announce = text
		x.announceToRequester(ctx, req, text)
	}
	x.save()

	if sp.Cleanup == "delete" {
		var res *sessionwrite.Removed
		w, err := x.writesFor(child.AgentID)
		if err == nil {
			res, err = w.RemoveChild(ctx, child.Key)
		}
		if err != nil {
			x.r.Log.Warn("cannot delete the sub-agent session", "session", child.Key, "err", err)
		} else {
			sp.ArchivedAt, sp.ArchivedBy, sp.Archived = res.At, "cleanup", res.Renamed
			sp.RowArchived = res.Archived // OpenClaw 2026.8+: archived, not deleted
			if err := archive.Remove(x.r.State.Dir.Path, rec.RunID); err != nil {
				x.r.Log.Warn("cannot update the archive index", "err", err)
			}
		}
	}
	rec.Status = outcome
	return nil
}

// announceToRequester delivers the announce to the requester's channel
// (outbox, hook) and writes it into the requester's transcript as a
// delivery mirror — the requester agent sees it in its context either way,
// as OpenClaw's announce is a turn of the requester agent.
func (x *job) announceToRequester(ctx context.Context, req runs.Session, text string) {
	rec := x.rec
	if t := x.announceTarget(req); t != nil {
		x.dispatch(ctx, req, *t, text)
	} else {
		rec.Delivery.Status = "skipped"
		rec.Delivery.Error = "no delivery route for " + req.Key
		rec.Delivery.Message = text
	}
	l, err := x.locate(req)
	if err == nil {
		var w sessionwrite.Writes
		if w, err = x.writesFor(req.AgentID); err == nil {
			if a, ok := w.(sessionwrite.Announcer); ok {
				// through a gateway: chat.inject, else a turn of the requester
				var how string
				how, err = a.Announce(ctx, l, text, "sessions-"+rec.RunID+"-announce-requester")
				rec.Spawn.AnnouncedVia = how
			} else {
				err = x.mirror(ctx, req, transcript.MirrorText(text, nil))
			}
		}
	}
	if err != nil {
		rec.Spawn.RequesterError = err.Error()
		x.r.Log.Warn("cannot write the announce into the requester's transcript", "session", req.Key, "err", err)
		return
	}
	rec.Spawn.RequesterTranscript = l.Where
}

// statsLine is OpenClaw's stats line, from the child's store entry as the
// run left it (tokens, model) and the task step's times.
func (x *job) statsLine(child runs.Session, task runs.Step) string {
	in := StatsInput{SessionKey: child.Key, StartedAt: task.StartedAt, EndedAt: task.EndedAt}
	l, err := x.locate(child)
	if err != nil {
		return FormatStats(in)
	}
	e := l.Entry
	in.SessionID = e.SessionID
	if e.SessionID != "" {
		in.Transcript = l.Where
		if l.Path != "" {
			in.Transcript = filepath.Join(filepath.Dir(x.storePath(child.AgentID)), e.SessionID+".jsonl")
		}
	}
	in.Input, in.Output, in.Total = e.InputTokens, e.OutputTokens, e.TotalTokens
	if p, ok := x.r.State.Cfg.Models.Providers[strings.TrimSpace(e.ModelProvider)]; ok {
		if m := p.Model(strings.TrimSpace(e.Model)); m != nil && m.Cost != nil {
			in.CostInput, in.CostOutput, in.HasCost = m.Cost.Input, m.Cost.Output, true
		}
	}
	return FormatStats(in)
}
