// Package cmdutil is what every command shares: the factory of lazily
// built dependencies, the global flags, argument validators and the printer
// of JSON results.
package cmdutil

import (
	"io"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"

	"charm.land/log/v2"
	"github.com/itchyny/gojq"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// GlobalFlags are the persistent flags of the root command (CONTRACT §2–§4).
type GlobalFlags struct {
	StateDir    string
	Config      string
	Profile     string
	Agent       string
	As          string
	Sandboxed   bool
	Redact      bool
	JSON        bool
	JQ          string
	LogLevel    string
	LockTimeout time.Duration

	// Gateway says where the sessions live when not in the local state
	// dir: --gateway URL, --gateway-token-file, --insecure-gateway,
	// --gateway-fingerprint, --context NAME (repeatable, or all), as one
	// value that goes to ops.Config whole and is resolved there (by
	// internal/hostset, once per invocation).
	Gateway gatewaysel.Selector
}

// Factory builds what commands need, once, on first use.
type Factory struct {
	IO     *iostreams.IOStreams
	Env    config.Env
	Flags  *GlobalFlags
	Log    *log.Logger
	Now    func() time.Time
	Getenv func(string) string
	// Signals is the process's signal handling (cli.Main); nil in tests.
	Signals Signals

	opsOnce sync.Once
	ops     *ops.Ops
	jq      *gojq.Code
	// hostReads are the commands that are a host-only read (ReadsHost).
	hostReads map[*cobra.Command]*ops.HostRead
}

// ReadsHost says that cmd is the host-only read r (ops.HostRead): the
// root asks ops whether the invocation's host can answer it before
// anything runs (HostRead).
func (f *Factory) ReadsHost(cmd *cobra.Command, r *ops.HostRead) {
	if f.hostReads == nil {
		f.hostReads = map[*cobra.Command]*ops.HostRead{}
	}
	f.hostReads[cmd] = r
}

// HostRead is the host-only read cmd is, if it is one.
func (f *Factory) HostRead(cmd *cobra.Command) (*ops.HostRead, bool) {
	r, ok := f.hostReads[cmd]
	return r, ok
}

// EndRun lets go of what f holds for the run that has ended (cli.RunContext
// calls it): the operations with the state they opened, the host-only
// reads by command, the compiled --jq. cobra keeps every flag completion
// function ever registered (a map of its package, never emptied), and with
// it the Factory they refer to: without this a process that runs command
// after command (a test binary, a benchmark) would keep every run's state
// and command tree, and every collection would trace them again. A next
// run on f starts afresh.
func (f *Factory) EndRun() {
	f.opsOnce = sync.Once{}
	f.ops, f.jq, f.hostReads = nil, nil, nil
}

// JSONMode reports whether output is JSON (--json, or --jq which implies it).
func (f *Factory) JSONMode() bool { return f.Flags.JSON || f.Flags.JQ != "" }

// Warn logs a warning on stderr.
func (f *Factory) Warn(msg string) { f.Log.Warn(msg) }

// Ops is the operations layer of this invocation, configured from the
// global flags and the environment once, on first use.
func (f *Factory) Ops() *ops.Ops {
	f.opsOnce.Do(func() { f.ops = f.NewOps() })
	return f.ops
}

// NewOps builds a fresh operations layer from the global flags and the
// environment: a server that answers many requests builds one per request,
// so that nothing opened for one answer is served again stale.
func (f *Factory) NewOps() *ops.Ops { return ops.New(f.OpsConfig()) }

// OpsConfig is the operations layer's configuration: the global flags and
// the environment of this invocation.
func (f *Factory) OpsConfig() ops.Config {
	now := f.Now
	if now == nil {
		now = time.Now
	}
	return ops.Config{
		StateDir:    f.Flags.StateDir,
		ConfigPath:  f.Flags.Config,
		Profile:     f.Flags.Profile,
		Agent:       f.Flags.Agent,
		As:          f.Flags.As,
		Sandboxed:   f.Flags.Sandboxed,
		Redact:      f.Flags.Redact,
		LockTimeout: f.Flags.LockTimeout,
		Gateway:     f.Flags.Gateway,
		Env:         f.Env,
		Getenv:      f.Getenv,
		Now:         now,
		Log:         f.Log,
	}
}

// PrepareJQ compiles --jq early, so a bad expression fails before any work.
func (f *Factory) PrepareJQ() error {
	if f.Flags.JQ == "" {
		return nil
	}
	code, err := output.CompileJQ(f.Flags.JQ)
	if err != nil {
		return err
	}
	f.jq = code
	return nil
}

// PrintJSON prints the one JSON document of a command, filtered by --jq.
func (f *Factory) PrintJSON(v any) error {
	return f.printJSONTo(f.IO.Out, v)
}

// PrintJSONLine prints v as one line of JSON Lines output (compact), each
// --jq result on its own line: the streaming form of `history --follow`.
func (f *Factory) PrintJSONLine(v any) error {
	if f.Flags.JQ != "" {
		if f.jq == nil {
			if err := f.PrepareJQ(); err != nil {
				return err
			}
		}
		return output.JQLine(f.IO.Out, f.jq, v)
	}
	return output.JSONLine(f.IO.Out, v)
}

func (f *Factory) printJSONTo(w io.Writer, v any) error {
	if f.Flags.JQ != "" {
		if f.jq == nil {
			if err := f.PrepareJQ(); err != nil {
				return err
			}
		}
		return output.JQ(w, f.jq, v)
	}
	return output.JSON(w, v)
}

// ExactArgs is cobra.ExactArgs returning a usage error (exit 2); what names
// the missing arguments. The CLI prefixes the message with the command's path.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return apperr.Usagef("missing %s (usage: %s)", what, cmd.UseLine())
		}
		return tooMany(cmd, args, n)
	}
}

// Positional requires exactly one argument per name and names only the
// ones missing: `send main` is "missing MESSAGE", not "missing KEY and
// MESSAGE".
func Positional(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < len(names) {
			missing := names[len(args):]
			what := strings.Join(missing, " and ")
			if len(missing) > 2 {
				what = strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
			}
			return apperr.Usagef("missing %s (usage: %s)", what, cmd.UseLine())
		}
		return tooMany(cmd, args, len(names))
	}
}

func tooMany(cmd *cobra.Command, args []string, n int) error {
	if len(args) > n {
		return apperr.Usagef("too many arguments %q (usage: %s)", args[n:], cmd.UseLine())
	}
	return nil
}

// NoArgs refuses positional arguments with a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return apperr.Usagef("unexpected argument %q (usage: %s)", args[0], cmd.UseLine())
	}
	return nil
}

// IntRange checks a numeric flag's range: a value out of range is a usage
// error (exit 2, CONTRACT §4).
func IntRange(name string, v, min, max int) error {
	if v < min || (max > 0 && v > max) {
		if max > 0 {
			return apperr.Usagef("--%s must be between %d and %d (got %d)", name, min, max, v)
		}
		return apperr.Usagef("--%s must be at least %d (got %d)", name, min, v)
	}
	return nil
}
