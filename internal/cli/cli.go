// Package cli builds the root command and runs it: global flags, logging,
// and the one place where errors become exit codes and JSON error documents.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmd/agents"
	"github.com/openclaw/sessions/internal/cmd/completion"
	"github.com/openclaw/sessions/internal/cmd/history"
	"github.com/openclaw/sessions/internal/cmd/list"
	"github.com/openclaw/sessions/internal/cmd/patch"
	"github.com/openclaw/sessions/internal/cmd/runscmd"
	"github.com/openclaw/sessions/internal/cmd/search"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmd/spawn"
	"github.com/openclaw/sessions/internal/cmd/version"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Main runs the CLI with the process's streams and environment and returns
// the exit code.
func Main(args []string) int {
	f := &cmdutil.Factory{
		IO:     iostreams.System(),
		Env:    config.OSEnv(),
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: os.Getenv,
	}
	return Run(f, args)
}

// Run executes args against a prepared factory (tests inject streams).
func Run(f *cmdutil.Factory, args []string) int {
	if cmdutil.IsCompletionRequest(args) {
		// Tab completion prints candidates and nothing else: no warnings.
		f.Log = log.New(io.Discard)
	} else if f.Log == nil {
		f.Log = newLogger(f)
	}
	root := NewRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return apperr.CodeOK
	}
	return report(f, err)
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
// JSON mode) and returns its exit code.
func report(f *cmdutil.Factory, err error) int {
	msg := err.Error()
	var typed *apperr.Error
	if !errors.As(err, &typed) && strings.HasPrefix(msg, "unknown command") {
		err = apperr.Usagef("%s", msg) // cobra's own parse error
	}
	code := apperr.CodeOf(err)
	if f.JSONMode() {
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
	fmt.Fprintf(f.IO.ErrOut, "sessions: %s\n", msg)
	if code == apperr.CodeUsage && !f.JSONMode() && !strings.Contains(msg, "usage:") {
		fmt.Fprintln(f.IO.ErrOut, "Run 'sessions --help' for usage.")
	}
	return code
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
			runscmd.AutoSweep(f, cmd) // archives due sub-agents; never fails the command
			return nil
		},
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return apperr.Usagef("%v (usage: %s)", err, c.UseLine())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&f.Flags.StateDir, "state-dir", "", "OpenClaw state dir (default: $OPENCLAW_STATE_DIR, else ~/.openclaw)")
	pf.StringVar(&f.Flags.Config, "config", "", "OpenClaw config file (default: $OPENCLAW_CONFIG_PATH, else <state>/openclaw.json)")
	pf.StringVar(&f.Flags.Profile, "profile", "", "use the profile state dir ~/.openclaw-`NAME`")
	pf.StringVar(&f.Flags.Agent, "agent", "", "agent `ID` to work on (default: the configured default agent)")
	pf.StringVar(&f.Flags.As, "as", "", "act as session `KEY` (default: $OPENCLAW_SESSION_KEY; unset = host operator)")
	pf.BoolVar(&f.Flags.Sandboxed, "sandboxed", false, "treat the requester as sandboxed (also $OPENCLAW_SANDBOXED=1)")
	pf.BoolVar(&f.Flags.JSON, "json", false, "print one JSON document on stdout")
	pf.StringVarP(&f.Flags.JQ, "jq", "q", "", "filter the JSON output with a jq `EXPR` (implies --json)")
	pf.StringVar(&f.Flags.LogLevel, "log-level", "", "stderr log level: debug, info, warn, error (default warn; also $SESSIONS_LOG_LEVEL)")
	pf.DurationVar(&f.Flags.LockTimeout, "lock-timeout", 10*time.Second, "give up waiting for a lock after this long (exit 11)")

	root.AddCommand(
		list.NewCmd(f, nil),
		history.NewCmd(f, nil),
		search.NewCmd(f, nil),
		patch.NewCmd(f, nil),
		agents.NewCmd(f, nil),
		send.NewCmd(f, nil),
		spawn.NewCmd(f, nil),
		runscmd.NewCmdRuns(f),
		runscmd.NewCmdWait(f),
		runscmd.NewCmdRunner(f),
		version.NewCmd(f),
		completion.NewCmd(f),
	)
	root.CompletionOptions.DisableDefaultCmd = true
	addExtras(root, f)
	return root
}
