// Package cli builds the root command and runs it: global flags, logging,
// and the one place where errors become exit codes and JSON error documents.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmd/agents"
	archivecmd "github.com/openclaw/sessions/internal/cmd/archive"
	"github.com/openclaw/sessions/internal/cmd/completion"
	deletecmd "github.com/openclaw/sessions/internal/cmd/delete"
	"github.com/openclaw/sessions/internal/cmd/doctor"
	exportcmd "github.com/openclaw/sessions/internal/cmd/export"
	"github.com/openclaw/sessions/internal/cmd/history"
	"github.com/openclaw/sessions/internal/cmd/list"
	mcpcmd "github.com/openclaw/sessions/internal/cmd/mcp"
	metricscmd "github.com/openclaw/sessions/internal/cmd/metrics"
	"github.com/openclaw/sessions/internal/cmd/patch"
	"github.com/openclaw/sessions/internal/cmd/prune"
	"github.com/openclaw/sessions/internal/cmd/reset"
	runnercmd "github.com/openclaw/sessions/internal/cmd/runner"
	runscmd "github.com/openclaw/sessions/internal/cmd/runs"
	"github.com/openclaw/sessions/internal/cmd/search"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmd/show"
	"github.com/openclaw/sessions/internal/cmd/skill"
	"github.com/openclaw/sessions/internal/cmd/spawn"
	uicmd "github.com/openclaw/sessions/internal/cmd/ui"
	"github.com/openclaw/sessions/internal/cmd/usage"
	"github.com/openclaw/sessions/internal/cmd/version"
	"github.com/openclaw/sessions/internal/cmd/wait"
	watchcmd "github.com/openclaw/sessions/internal/cmd/watch"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/startheap"
	"github.com/openclaw/sessions/internal/storecache"
	"github.com/spf13/cobra"
)

// Main runs the CLI with the process's streams and environment and returns
// the exit code.
func Main(args []string) int {
	// a command's first tens of MiB are not collected while it grows
	// (internal/startheap): most exit before they would matter
	startheap.Adjust(startheap.Goal)
	// a big store parsed by an earlier process is read from the user's
	// cache dir while its files are unchanged (internal/storecache)
	storecache.UseUserCache()
	f := &cmdutil.Factory{
		IO:     iostreams.System(),
		Env:    config.OSEnv(),
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: os.Getenv,
	}
	sig := newSignals()
	defer sig.stop()
	f.Signals = sig
	return RunContext(sig.ctx, f, args)
}

// Run executes args against a prepared factory (tests inject streams).
func Run(f *cmdutil.Factory, args []string) int {
	return RunContext(context.Background(), f, args)
}

// RunContext is Run with the context every command gets as cmd.Context().
func RunContext(ctx context.Context, f *cmdutil.Factory, args []string) int {
	// f is left as it came: what the run made (its logger, its operations
	// and the state they opened) is let go, not kept by the flag completion
	// functions cobra holds on to (cmdutil.Factory.EndRun).
	defer func(l *log.Logger) { f.Log = l }(f.Log)
	defer f.EndRun()
	if cmdutil.IsCompletionRequest(args) {
		// Tab completion prints candidates and nothing else: no warnings.
		f.Log = log.New(io.Discard)
	} else if f.Log == nil {
		f.Log = newLogger(f)
	}
	root := NewRoot(f)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return apperr.CodeOK
	}
	return report(f, cmd, args, err)
}

func newLogger(f *cmdutil.Factory) *log.Logger {
	l := log.NewWithOptions(f.IO.ErrOut, log.Options{Prefix: "sessions", Level: log.WarnLevel})
	if v := f.Getenv("SESSIONS_LOG_LEVEL"); v != "" {
		if lvl, err := log.ParseLevel(v); err == nil {
			l.SetLevel(lvl)
		}
	}
	return l
}

// report prints err (stderr always; stdout too, as the one JSON document, in
// JSON mode) and returns its exit code. cmd is the command that failed (the
// root for an unknown command); args are the raw arguments, read for --json
// and --jq when flag parsing failed before it reached them.
func report(f *cmdutil.Factory, cmd *cobra.Command, args []string, err error) int {
	err = wordCobraError(cmd, err)
	msg := err.Error()
	code := apperr.CodeOf(err)
	jsonMode := f.JSONMode() || rawJSONMode(args)
	var printed *apperr.Error
	if errors.As(err, &printed) && printed.Printed {
		if msg != "" {
			fmt.Fprintf(f.IO.ErrOut, "%s: %s\n", cmd.CommandPath(), msg)
		}
		return code
	}
	if jsonMode {
		doc := map[string]any{"status": apperr.StatusOf(err), "error": msg}
		var ae *apperr.Error
		if errors.As(err, &ae) {
			for k, v := range ae.Extra {
				doc[k] = v
			}
		}
		// Unfiltered: --jq must not hide a failure from a script.
		_ = output.JSON(f.IO.Out, doc)
	}
	prefix := "sessions"
	if cmd != nil && cmd.HasParent() {
		prefix = cmd.CommandPath()
	}
	fmt.Fprintf(f.IO.ErrOut, "%s: %s\n", prefix, msg)
	if code == apperr.CodeUsage && !jsonMode {
		fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", prefix)
	}
	return code
}

// wordCobraError turns cobra's own errors into typed usage errors worded
// for people: "unknown command" without its multi-line suggestion block.
func wordCobraError(cmd *cobra.Command, err error) error {
	var typed *apperr.Error
	if errors.As(err, &typed) {
		return err
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") {
		// cobra: unknown command "lsit" for "sessions"\n\nDid you mean this?\n\tlist\n
		first, _, _ := strings.Cut(msg, "\n")
		name := first
		if i := strings.Index(first, " for "); i > 0 {
			name = first[:i]
		}
		word := strings.TrimSpace(strings.TrimPrefix(name, "unknown command"))
		out := name
		if cmd != nil {
			if uq, e := strconv.Unquote(word); e == nil {
				if sugg := cmd.SuggestionsFor(uq); len(sugg) > 0 {
					out += " (did you mean " + strings.Join(sugg, " or ") + "?)"
				}
			}
		}
		return apperr.Usagef("%s", out)
	}
	return err
}

// rawJSONMode reports whether the raw arguments ask for JSON output
// (--json, --json=true, --jq EXPR, -q EXPR, history's --format json): flag
// parsing may have failed before reaching them, and a script that asked for
// JSON must still get its one JSON document.
func rawJSONMode(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json", a == "--jq", a == "-q", a == "--format=json":
			return true
		case a == "--format" && i+1 < len(args) && args[i+1] == "json":
			return true
		case strings.HasPrefix(a, "--json="):
			if b, err := strconv.ParseBool(strings.TrimPrefix(a, "--json=")); err == nil && b {
				return true
			}
		case strings.HasPrefix(a, "--jq="):
			return true
		case strings.HasPrefix(a, "-q") && len(a) > 2:
			return true // -qEXPR
		}
	}
	return false
}

// NewRoot builds the command tree.
func NewRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "sessions <command>",
		Short: "List, read, send into and spawn OpenClaw sessions, straight from the state dir",
		Long: `sessions works directly on an OpenClaw state directory (~/.openclaw): it lists
sessions, reads transcripts, sends messages into sessions and spawns sub-agent
runs as local processes, with no gateway. It takes OpenClaw's own locks and
never writes its config.

Every command takes --json (one JSON document on stdout, also on failure) and
--jq EXPR (filter that document in-process). Without --json, people get a table
on a terminal and scripts get tab-separated lines when piped.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmdutil.IsCompletionCommand(cmd) {
				// Tab completion: no setup, no sweeps, no locks, no log lines.
				f.Log.SetOutput(io.Discard)
				return nil
			}
			if f.Flags.LogLevel != "" {
				lvl, err := log.ParseLevel(f.Flags.LogLevel)
				if err != nil {
					return apperr.Usagef("invalid --log-level %q (debug, info, warn, error)", f.Flags.LogLevel)
				}
				f.Log.SetLevel(lvl)
			}
			if f.Flags.Profile != "" {
				if err := config.ValidateProfile(f.Flags.Profile); err != nil {
					return apperr.Usagef("invalid --profile: %v", err)
				}
			}
			if f.Flags.LockTimeout < 0 {
				return apperr.Usagef("--lock-timeout must not be negative")
			}
			if err := f.PrepareJQ(); err != nil {
				return err
			}
			if err := refuseLocalOnlyOverGateway(f, cmd); err != nil {
				return err
			}
			autoSweep(f, cmd) // archives due sub-agents; never fails the command
			return nil
		},
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return apperr.Usagef("%s", FlagErrorMessage(err)).Wrap(err)
	})
	pf := root.PersistentFlags()
	pf.StringVar(&f.Flags.StateDir, "state-dir", "", "OpenClaw state dir (default: $OPENCLAW_STATE_DIR, else ~/.openclaw)")
	pf.StringVar(&f.Flags.Config, "config", "", "OpenClaw config file (default: $OPENCLAW_CONFIG_PATH, else <state>/openclaw.json)")
	pf.StringVar(&f.Flags.Profile, "profile", "", "use the profile state dir ~/.openclaw-`NAME`")
	pf.StringVar(&f.Flags.Agent, "agent", "", "agent `ID` to work on (default: the configured default agent)")
	pf.StringVar(&f.Flags.As, "as", "", "act as session `KEY` (default: $OPENCLAW_SESSION_KEY; unset = host operator)")
	pf.BoolVar(&f.Flags.Sandboxed, "sandboxed", false, "treat the requester as sandboxed (also $OPENCLAW_SANDBOXED=1)")
	pf.BoolVar(&f.Flags.Redact, "redact", false, "mask credentials in transcript text as an agent sees it (always on with --as)")
	pf.BoolVar(&f.Flags.JSON, "json", false, "print one JSON document on stdout")
	pf.StringVarP(&f.Flags.JQ, "jq", "q", "", "filter the JSON output with a jq `EXPR` (implies --json)")
	cmdutil.PersistentEnumVar(root, &f.Flags.LogLevel, "log-level", "", "stderr log level (default warn; also $SESSIONS_LOG_LEVEL)", "debug", "info", "warn", "error")
	pf.DurationVar(&f.Flags.LockTimeout, "lock-timeout", 10*time.Second, "give up waiting for a lock after this long (exit 11)")

	root.AddCommand(
		list.NewCmd(f, nil),
		watchcmd.NewCmd(f, nil),
		history.NewCmd(f, nil),
		exportcmd.NewCmd(f, nil),
		show.NewCmd(f, nil),
		search.NewCmd(f, nil),
		patch.NewCmd(f, nil),
		agents.NewCmd(f, nil),
		send.NewCmd(f, nil),
		spawn.NewCmd(f, nil),
		usage.NewCmd(f, nil),
		runscmd.NewCmd(f, nil),
		wait.NewCmd(f, nil),
		runnercmd.NewCmd(f, nil),
		doctor.NewCmd(f, nil),
		deletecmd.NewCmd(f, nil),
		reset.NewCmd(f, nil),
		prune.NewCmd(f, nil),
		archivecmd.NewCmd(f, nil),
		mcpcmd.NewCmd(f, nil),
		metricscmd.NewCmd(f, nil),
		uicmd.NewCmd(f, nil),
		skill.NewCmd(f, nil),
		version.NewCmd(f),
		completion.NewCmd(f),
	)
	root.CompletionOptions.DisableDefaultCmd = true
	addGatewayFlags(root, f)
	addExtras(root, f)
	return root
}

func init() {
	metricscmd.Build = func() (string, string) {
		i := version.Get()
		return i.Version, i.Revision
	}
}
