// Package agents implements `sessions agents`.
package agents

import (
	"context"
	"fmt"
	"strconv"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Options of `sessions agents`.
type Options struct{ f *cmdutil.Factory }

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	return &cobra.Command{
		Use:   "agents",
		Short: "List agents, the default one, and which ones spawn may target",
		Long: `List the agents of the state dir: configured in openclaw.json (agents.list)
or present under <state>/agents/. For each: its id, name, whether it is the
default agent, where its sessions are kept (era "json" = sessions.json,
"sqlite" = OpenClaw 2026.8+, "none" = no sessions yet), how many sessions it
has, whether the requester may see its sessions (agent-to-agent policy),
whether the requester agent's subagents.allowAgents lets 'sessions spawn
--agent ID' target it (spawnTarget), whether sessions can write its store
(writable: send, spawn and patch; an OpenClaw 2026.8+ SQLite store is
writable when no OpenClaw process holds the state dir and its schema is
2026.9.6's, or when its gateway is live on this host: the writes are then
routed through it, and reason says "routed through the live gateway at
URL"), and so whether a spawn into it can succeed (canSpawn), with the
reason when it cannot.

Over a gateway (--gateway, --context): every agent is writable through it;
with --as, spawnTarget and spawnAllowed come from the requester agent's
subagents.allowAgents in that host's config (config.get), without --as
every agent is a spawn target (the operator's spawn there starts from the
target agent's own main session).

JSON (--json): {"requester":{"key","agentId"},"defaultAgent","spawnAllowed",
"agents":[{"id","name","default","configured","era","store","sessions",
"visible","spawnTarget","writable","canSpawn","reason"}]}.
Piped: id, name, default, era, sessions, visible, spawnTarget, writable,
canSpawn, reason, tab-separated.`,
		Example: `  sessions agents
  sessions agents --jq '.agents[] | select(.canSpawn) | .id'
  sessions --as agent:ops:main agents --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
}

// Agent is one row.
type Agent = ops.AgentRow

// Requester names who asked.
type Requester = ops.AgentsRequester

// Result is the JSON document.
type Result = ops.AgentsResult

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Agents(ctx)
	if err != nil {
		return err
	}
	var failed []ops.HostError
	if res.Errors != nil {
		failed = *res.Errors
	}
	if f.JSONMode() {
		if err := f.PrintJSON(res); err != nil {
			return err
		}
		return cmdutil.ReportHostErrors(f, failed)
	}
	tty := f.IO.IsStdoutTTY()
	if err := table(res, tty).Render(f.IO.Out, tty, f.IO.TerminalWidth()); err != nil {
		return err
	}
	if tty && res.SaysRequester {
		who := "host operator"
		if res.Requester.Key != "" {
			who = res.Requester.Key
		}
		fmt.Fprintf(f.IO.ErrOut, "Requester: %s (agent %s); spawn may target: %s\n", who, res.Requester.AgentID, res.SpawnAllowed)
	}
	return cmdutil.ReportHostErrors(f, failed)
}

// table is the agents as a table: on a terminal yes/no cells and one
// Spawn column that says why not (through a gateway: how, too); piped
// every column of the document. Over a fleet each row starts with its
// context.
func table(res *Result, tty bool) *output.Table {
	hdr := []string{"Agent", "Name", "Default", "Era", "Sessions", "Visible", "Spawn target", "Writable", "Can spawn", "Reason"}
	if tty {
		hdr = []string{"Agent", "Name", "Default", "Era", "Sessions", "Visible", "Writable", "Spawn"}
	}
	if res.Fleet {
		hdr = append([]string{"Context"}, hdr...)
	}
	t := output.NewTable(hdr...)
	if tty {
		t.Flexible(len(hdr) - 1)
	}
	for _, a := range res.Agents {
		var cells []string
		if tty {
			cells = []string{a.ID, a.Name, yes(a.Default), a.Era, count(a.Sessions), yes(a.Visible), yes(a.Writable), spawnCell(a)}
		} else {
			b := strconv.FormatBool
			cells = []string{a.ID, a.Name, b(a.Default), a.Era, count(a.Sessions), b(a.Visible), b(a.SpawnTarget), b(a.Writable), b(a.CanSpawn), a.Reason}
		}
		if res.Fleet {
			cells = append([]string{a.Context}, cells...)
		}
		t.Row(cells...)
	}
	return t
}

// spawnCell: "yes", or "no: why"; through a gateway "yes: how" too.
func spawnCell(a Agent) string {
	switch {
	case !a.CanSpawn:
		return "no: " + a.Reason
	case a.ThroughGateway:
		return "yes: " + a.Reason
	}
	return "yes"
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// count is a session count cell ("" when not counted).
func count(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}
