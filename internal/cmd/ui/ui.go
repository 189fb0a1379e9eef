// Package ui implements `sessions ui`: the live terminal view.
package ui

import (
	"context"
	"os"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	tui "github.com/openclaw/sessions/internal/ui"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions ui`.
type Options struct {
	f         *cmdutil.Factory
	Kinds     []string
	AllAgents bool
	NoColor   bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var kinds string
	cmd := &cobra.Command{
		Use:   "ui [flags]",
		Short: "A live terminal view of the sessions",
		Long: `A live, full-screen view of OpenClaw sessions, on this host's state dir (both
storage eras, no gateway needed) or over a gateway or a fleet (--context NAME|all).

The sessions view is the start: the sessions of the requester's agent (or
--agent ID, or --all-agents), with the columns of list plus tokens and busy
(an OpenClaw run holds the transcript now). A row changes as soon as OpenClaw
writes; new sessions appear and removed ones go. Enter opens a session: show's
fields on top and the transcript below, newest at the bottom, following what
OpenClaw appends. From there the actions (send, spawn, label, send policy,
archive, delete, reset) ask before they write. ? lists every key.

Keys: arrows or j/k, PgUp/PgDn, Home/End (g/G), / filter or search, S search
every session as you type (as sessions search does; Enter opens the session at
the hit), Enter open, Esc or q back, q quits from the sessions view, Ctrl-C
anywhere, the mouse wheel scrolls.

It needs a terminal: with stdout not a terminal it exits 2. Colour follows
NO_COLOR and --no-color.`,
		Example: `  sessions ui
  sessions ui --all-agents
  sessions ui --context all --kinds main,group
  sessions ui --agent ops --no-color`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Kinds, err = cmdutil.ParseKinds(kinds); err != nil {
				return err
			}
			if o.AllAgents && f.Flags.Agent != "" {
				return apperr.Usagef("--agent and --all-agents cannot be used together")
			}
			if f.JSONMode() {
				return apperr.Usagef("ui is a terminal view: it has no --json (use list, show or history)")
			}
			if !f.IO.IsStdoutTTY() {
				return apperr.Usagef("ui needs a terminal: stdout is not one (for output to a pipe or file use list, show or history)")
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	cmdutil.KindsFlag(cmd, &kinds, cmdutil.KindsUsage)
	fl.BoolVar(&o.AllAgents, "all-agents", false, "the sessions of every agent")
	fl.BoolVar(&o.NoColor, "no-color", false, "no colours (also NO_COLOR)")
	return cmd
}

func run(o *Options) error {
	f := o.f
	// the terminal program handles SIGINT/SIGTERM itself (it restores the
	// terminal before it ends): the process's handling must not end it first
	f.GracefulSignals()
	first := f.NewOps()
	sc, err := first.Scope() // an unknown context fails here, before the screen changes
	if err != nil {
		return err
	}
	// A long-lived view of many sessions: the garbage of each re-read is
	// collected before the heap doubles (unless GOMEMLIMIT says otherwise).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	color := f.IO.ColorEnabled() && !o.NoColor
	// One parsed store for the listing, the session view's show and the
	// busy column, revalidated on every use (never a stale answer): each
	// would otherwise parse the whole store again, at once.
	cfg := f.OpsConfig()
	cfg.Cache = ops.NewStoreCache()
	newOps := func() *ops.Ops { return ops.New(cfg) }
	env := tui.Env{Ops: newOps, Styles: tui.NewStyles(color), Now: f.Now}
	if env.Now == nil {
		env.Now = timeNow
	}
	app := tui.NewApp(env, tui.Options{
		Kinds:     o.Kinds,
		AllAgents: o.AllAgents,
		Scope:     scopeText(f, o, sc),
		Watch: func(ctx context.Context, q ops.WatchQuery, ready func(), emit func(ops.WatchEvent) error) error {
			return newOps().Watch(ctx, q, ready, emit)
		},
		Views: tui.DefaultViews(),
	})
	defer app.Stop()
	// the search indexes the search view kept open and warm between keys
	defer func() { _ = ops.CloseSearchIndexes() }()
	opts := []tea.ProgramOption{tea.WithInput(f.IO.In), tea.WithOutput(f.IO.Out)}
	if !color {
		opts = append(opts, tea.WithEnvironment(append(os.Environ(), "NO_COLOR=1")))
	}
	_, err = tea.NewProgram(app, opts...).Run()
	return err
}

// memoryLimit is the heap the UI's collector aims to stay under.
const memoryLimit = 96 << 20

// scopeText says where the sessions come from, for the header.
func scopeText(f *cmdutil.Factory, o *Options, sc ops.Scope) string {
	var parts []string
	switch {
	case sc.Fleet:
		parts = append(parts, "all contexts")
		if len(f.Flags.Gateway.Contexts) > 0 && !(len(f.Flags.Gateway.Contexts) == 1 && f.Flags.Gateway.Contexts[0] == "all") {
			parts[0] = "contexts " + strings.Join(f.Flags.Gateway.Contexts, ",")
		}
	case len(sc.Contexts) == 1 && sc.Contexts[0] != "":
		parts = append(parts, "context "+sc.Contexts[0])
	case len(sc.Gateways) == 1:
		parts = append(parts, "gateway")
	}
	switch {
	case o.AllAgents:
		parts = append(parts, "all agents")
	case f.Flags.Agent != "":
		parts = append(parts, "agent "+f.Flags.Agent)
	}
	if len(o.Kinds) > 0 {
		parts = append(parts, "kinds "+strings.Join(o.Kinds, ","))
	}
	if len(parts) == 0 {
		return "default agent"
	}
	return strings.Join(parts, " · ")
}

func timeNow() time.Time { return time.Now() }
