package agents

import (
	"context"
	"github.com/openclaw/sessions/internal/era"
	"strconv"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// runRemote is agents over one gateway or a fleet: agents.list and the
// session counts of sessions.list. Era is "gateway", store the context or
// URL; every agent is writable through the gateway (send, spawn and patch
// go there), and whether spawn may target it is computed as locally:
// with --as from the host's config (config.get: the requester agent's
// subagents.allowAgents, no spawn from a sub-agent), without it for the
// operator, whose spawn through a gateway starts from the target agent's
// own main session (always allowed). In a fleet every
// row says its context, requester and defaultAgent are empty (each row's
// default says it per host), and failed hosts are in "errors" (exit 1).
func runRemote(o *Options, readers []backend.Reader, fleet bool) error {
	f := o.f
	lists, errs := backend.Each(readers, func(r backend.Reader) ([]backend.AgentInfo, error) {
		return r.(*backend.Gateway).Agents(context.Background())
	})
	if !fleet && errs[0] != nil {
		return errs[0]
	}
	res := Result{Agents: []Agent{}}
	var failed []backend.HostError
	for i, r := range readers {
		if errs[i] != nil {
			failed = append(failed, backend.HostError{Context: r.Where(), Error: errs[i].Error(), Err: errs[i]})
			continue
		}
		sp := spawnRules(r.(*backend.Gateway).Requester())
		if !fleet {
			res.SpawnAllowed = sp.allowed
		}
		for _, a := range lists[i] {
			n := a.Sessions
			row := Agent{ID: a.ID, Name: a.Name, Default: a.Default, Configured: a.Name != "" || a.Default, Era: era.Gateway,
				Store: r.Where(), Sessions: &n, Visible: !a.Hidden, Writable: true}
			row.SpawnTarget, row.Reason = sp.target(a.ID, r.Where())
			row.CanSpawn = row.SpawnTarget
			if a.Hidden { // as locally: no count for an agent the requester may not see
				row.Sessions = nil
			}
			if fleet {
				row.Context = r.Where()
			} else if a.Default {
				res.DefaultAgent, res.Requester.AgentID = a.ID, a.ID
			}
			res.Agents = append(res.Agents, row)
		}
	}
	if acc := readers[0].(*backend.Gateway).Requester(); !fleet && acc != nil {
		res.Requester = Requester{Key: acc.Req.Key, AgentID: acc.Req.Agent}
	}
	if fleet {
		if failed == nil {
			failed = []backend.HostError{}
		}
		res.Errors = &failed
	}
	if f.JSONMode() {
		if err := f.PrintJSON(res); err != nil {
			return err
		}
		return cmdutil.ReportHostErrors(f, failed)
	}
	tty := f.IO.IsStdoutTTY()
	hdr := []string{"Agent", "Name", "Default", "Era", "Sessions", "Visible", "Spawn target", "Writable", "Can spawn", "Reason"}
	if tty {
		hdr = []string{"Agent", "Name", "Default", "Era", "Sessions", "Visible", "Writable", "Spawn"}
	}
	if fleet {
		hdr = append([]string{"Context"}, hdr...)
	}
	t := output.NewTable(hdr...)
	if tty {
		t.Flexible(len(hdr) - 1)
	}
	for _, a := range res.Agents {
		b := strconv.FormatBool
		var cells []string
		if tty {
			yes := map[bool]string{true: "yes", false: "no"}
			spawn := "yes: " + a.Reason
			if !a.CanSpawn {
				spawn = "no: " + a.Reason
			}
			cells = []string{a.ID, a.Name, yes[a.Default], a.Era.String(), count(a.Sessions), yes[a.Visible], yes[a.Writable], spawn}
		} else {
			cells = []string{a.ID, a.Name, b(a.Default), a.Era.String(), count(a.Sessions), b(a.Visible), b(a.SpawnTarget), b(a.Writable), b(a.CanSpawn), a.Reason}
		}
		if fleet {
			cells = append([]string{a.Context}, cells...)
		}
		t.Row(cells...)
	}
	if err := t.Render(f.IO.Out, tty, f.IO.TerminalWidth()); err != nil {
		return err
	}
	if len(failed) > 0 {
		return cmdutil.ReportHostErrors(f, failed)
	}
	return nil
}

// count is a session count cell ("" when not counted).
func count(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// remoteSpawn is what spawn may target on one gateway (spawnRules).
type remoteSpawn struct {
	acc     *state.Access
	allow   []string
	allowed string // the requester agent's allowAgents as agents shows it
}

// spawnRules are the spawn rules of the requester on a gateway: with
// --as, its agent's subagents.allowAgents from the host's config, as
// locally (nil acc: the operator).
func spawnRules(acc *state.Access) remoteSpawn {
	sp := remoteSpawn{acc: acc}
	if acc == nil || acc.Remote == nil {
		return sp
	}
	if a := acc.Remote.Agent(acc.Req.Agent); a != nil {
		sp.allow = a.Subagents.AllowAgents
	}
	sp.allowed = policy.SpawnAllowedList(sp.allow, config.NormalizeAgentID)
	return sp
}

// target: may spawn target agent id, and the reason (why not, else how the
// write goes).
func (sp remoteSpawn) target(id, where string) (bool, string) {
	via := "routed through the gateway " + where
	if sp.acc == nil || sp.acc.Remote == nil {
		return true, via + " (the operator's spawn from agent:" + id + ":main)"
	}
	if sp.acc.Req.Subagent {
		return false, "a sub-agent may not spawn"
	}
	if policy.SpawnTarget(sp.allow, sp.acc.Req.Agent, id, config.NormalizeAgentID) != "" {
		return false, "not allowed by " + sp.acc.Req.Agent + " (subagents.allowAgents: " + sp.allowed + ")"
	}
	return true, via
}
