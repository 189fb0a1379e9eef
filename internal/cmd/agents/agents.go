// Package agents implements `sessions agents`.
package agents

import (
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
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
			return run(o)
		},
	}
}

// Agent is one row.
type Agent struct {
	Context     string  `json:"context,omitempty"`
	ID          string  `json:"id"`
	Name        string  `json:"name,omitempty"`
	Default     bool    `json:"default"`
	Configured  bool    `json:"configured"`
	Era         era.Era `json:"era"`
	Store       string  `json:"store"`
	Sessions    *int    `json:"sessions,omitempty"`
	Visible     bool    `json:"visible"`
	SpawnTarget bool    `json:"spawnTarget"`
	// Writable: send, spawn and patch can write this agent's store (an
	// OpenClaw 2026.8+ SQLite store: when no OpenClaw process holds the
	// state dir).
	Writable bool `json:"writable"`
	// CanSpawn: spawnTarget and writable — 'spawn --agent ID' would be
	// accepted by the requester; Reason says why not otherwise.
	CanSpawn bool   `json:"canSpawn"`
	Reason   string `json:"reason,omitempty"`
}

// Requester names who asked.
type Requester struct {
	Key     string `json:"key,omitempty"`
	AgentID string `json:"agentId"`
}

// Result is the JSON document.
type Result struct {
	Requester    Requester `json:"requester"`
	DefaultAgent string    `json:"defaultAgent"`
	SpawnAllowed string    `json:"spawnAllowed"`
	Agents       []Agent   `json:"agents"`
	// Errors: the hosts that failed, in fleet mode only.
	Errors *[]backend.HostError `json:"errors,omitempty"`
}

func run(o *Options) error {
	f := o.f
	readers, fleet, err := f.Readers()
	if err != nil {
		return err
	}
	defer cmdutil.CloseReaders(readers)
	if _, ok := readers[0].(*backend.Gateway); ok {
		return runRemote(o, readers, fleet)
	}
	s, err := f.State()
	if err != nil {
		return err
	}
	var allow []string
	if a := s.Cfg.Agent(s.Req.Agent); a != nil {
		allow = a.Subagents.AllowAgents
	}
	res := Result{
		Requester:    Requester{Key: s.Req.Key, AgentID: s.Req.Agent},
		DefaultAgent: s.Default,
		SpawnAllowed: policy.SpawnAllowedList(allow, config.NormalizeAgentID),
		Agents:       []Agent{},
	}
	fromSubagent := keys.IsSubagent(s.Req.Key)
	gatewayOf := writeGateway(f, s)
	for _, id := range s.AgentIDs() {
		a := Agent{ID: id, Default: id == s.Default, Era: s.Era(id)}
		if c := s.Cfg.Agent(id); c != nil {
			a.Configured = true
			a.Name = c.Name
		}
		a.Store, _ = s.StorePath(id)
		if a.Era == era.SQLite {
			a.Store = s.SQLitePath(id)
		}
		a.Visible = s.CanSeeAgent(id, policy.OpHistory) == ""
		if a.Era != era.None && a.Visible {
			if _, entries, err := s.Entries(id); err == nil {
				n := len(entries)
				a.Sessions = &n
			} else {
				f.Warn(err.Error())
			}
		}
		refusal := policy.SpawnTarget(allow, s.Req.Agent, id, config.NormalizeAgentID)
		a.SpawnTarget = !fromSubagent && refusal == ""
		// where send, spawn and patch would write (sessionwrite.Choose): a
		// 2026.8+ agent whose gateway is live here goes through it
		via := ""
		if a.Era == era.SQLite {
			via = gatewayOf(id)
		}
		werr := sessionwrite.CheckWritable(s, id)
		a.Writable = werr == nil || via != ""
		a.CanSpawn = a.SpawnTarget && a.Writable
		switch {
		case !a.Writable:
			a.Reason = notWritable(s, id, a.Era, werr)
		case fromSubagent:
			a.Reason = "a sub-agent may not spawn"
		case !a.SpawnTarget:
			a.Reason = "not allowed by " + s.Req.Agent + " (subagents.allowAgents: " + res.SpawnAllowed + ")"
		case via != "":
			a.Reason = "routed through the live gateway at " + via
		}
		res.Agents = append(res.Agents, a)
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	tty := f.IO.IsStdoutTTY()
	var t *output.Table
	if tty {
		t = output.NewTable("Agent", "Name", "Default", "Era", "Sessions", "Visible", "Writable", "Spawn").Flexible(7)
	} else {
		t = output.NewTable("Agent", "Name", "Default", "Era", "Sessions", "Visible", "Spawn target", "Writable", "Can spawn", "Reason")
	}
	for _, a := range res.Agents {
		n := ""
		if a.Sessions != nil {
			n = strconv.Itoa(*a.Sessions)
		}
		if tty {
			spawn := yes(a.CanSpawn)
			if !a.CanSpawn {
				spawn = "no: " + a.Reason
			}
			t.Row(a.ID, a.Name, yes(a.Default), a.Era.String(), n, yes(a.Visible), yes(a.Writable), spawn)
		} else {
			b := strconv.FormatBool
			t.Row(a.ID, a.Name, b(a.Default), a.Era.String(), n, b(a.Visible), b(a.SpawnTarget), b(a.Writable), b(a.CanSpawn), a.Reason)
		}
	}
	if err := t.Render(f.IO.Out, tty, f.IO.TerminalWidth()); err != nil {
		return err
	}
	if tty {
		who := "host operator"
		if s.Req.Key != "" {
			who = s.Req.Key
		}
		fmt.Fprintf(f.IO.ErrOut, "Requester: %s (agent %s); spawn may target: %s\n", who, s.Req.Agent, res.SpawnAllowed)
	}
	return nil
}

// writeGateway returns, per agent, the URL of the live gateway of this
// host its writes are routed through (sessionwrite.Choose, as send, spawn
// and patch decide), "" when they are written locally; the gateway is
// looked for once.
func writeGateway(f *cmdutil.Factory, s *state.State) func(agent string) string {
	wo, err := f.WriteOptions(s)
	if err != nil || wo.Gateways == nil || wo.Gateways.Local == nil {
		return func(string) string { return "" }
	}
	local := wo.Gateways.Local
	var once sync.Once
	var ep gateway.Endpoint
	var found string
	var lerr error
	wo.Gateways.Local = func() (gateway.Endpoint, string, error) {
		once.Do(func() { ep, found, lerr = local() })
		return ep, found, lerr
	}
	return func(agent string) string {
		r, err := sessionwrite.Choose(s, agent, wo)
		if err != nil || r.Era != era.Gateway {
			return ""
		}
		return r.Endpoint.URL
	}
}

// notWritable is the reason an agent cannot be written: an OpenClaw
// process holding the state dir of a 2026.8+ (SQLite) agent (the gateway is
// the way), else the refusal itself.
func notWritable(s *state.State, id string, e era.Era, err error) string {
	if e == era.SQLite {
		if hs, herr := sqlitewrite.Holders(s.Dir.Path, s.SQLitePath(id), time.Now()); herr == nil && len(hs) > 0 {
			pids := make([]string, 0, len(hs))
			for _, h := range hs {
				if h.PID > 0 {
					pids = append(pids, strconv.Itoa(h.PID))
				}
			}
			who := "OpenClaw is running"
			if len(pids) > 0 {
				who += " (pid " + strings.Join(pids, ", ") + ")"
			}
			return who + " and no gateway of it is live here: write through its gateway (--gateway URL)"
		}
	}
	msg := err.Error()
	if i := strings.IndexAny(msg, ":;"); i > 0 && len(msg) > 120 {
		msg = msg[:i]
	}
	return "not writable: " + msg
}
