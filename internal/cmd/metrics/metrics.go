// Package metrics implements `sessions metrics`: this host's OpenClaw
// state as Prometheus metrics, printed once, written to a node_exporter
// textfile, or served at /metrics.
package metrics

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/httpserve"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/promlite"
	"github.com/spf13/cobra"
)

// Path is where --listen serves the metrics.
const Path = "/metrics"

// Build names the build in sessions_build_info (the root command sets it).
var Build = func() (version, commit string) { return "dev", "" }

// Options are the parsed flags of `sessions metrics`.
type Options struct {
	f             *cmdutil.Factory
	Textfile      string
	Listen        string
	TokenFile     string
	InsecureBind  bool
	AllAgents     bool
	Active        time.Duration
	PerSessionTop int
	DoctorEvery   time.Duration
	OpenMetrics   bool
	// Context ends the server (nil: SIGINT or SIGTERM).
	Context context.Context
	// Ready, when set, is told the address --listen serves on.
	Ready func(addr string)

	cmdContext context.Context // cmd.Context(): ends on SIGINT/SIGTERM (cli.Main)
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "metrics [--textfile PATH | --listen ADDR --token-file F]",
		Short: "This host's sessions, locks, usage, runs and stores as Prometheus metrics",
		Long: `Read this host's OpenClaw state dir once and write it as Prometheus metrics:
sessions by agent, kind and channel (archived copies with archived="true"),
active and busy sessions, stale locks and the oldest lock's age, tokens, cost
and messages (the same reading as sessions usage: the totals are equal), our
runs and OpenClaw's sub-agent runs by status, the size of each agent's store
files and its schema version, doctor's findings by severity, and the build,
the scrape's duration and its errors. docs/OPERATING.md lists every metric
and the alert rules shipped with them (monitoring/alerts.yml).

Three ways to run it:
  (default)          print one scrape on stdout (the Prometheus text format;
                     --openmetrics for OpenMetrics)
  --textfile PATH    write it to PATH atomically (a temporary file in the same
                     directory, then renamed) for node_exporter's textfile
                     collector; PATH must end in .prom
  --listen ADDR      serve it at http://ADDR/metrics, in the format the
                     scraper asks for (OpenMetrics or text); ADDR must be a
                     loopback address unless --insecure-bind, and with
                     --token-file F every request must carry
                     "Authorization: Bearer TOKEN" (as sessions mcp --http);
                     a request naming a host that is not a loopback name
                     (unless --insecure-bind) or from a page elsewhere (its
                     Origin) is refused with 403

Every agent is read by default (--agent ID for one). A store that cannot be
read is left out and counted in sessions_scrape_errors_total (doctor names
it): a scrape never fails for it, never takes a lock and never writes to the
state dir. Served, a scrape reads again only what changed since the last one:
the stores, the config and the transcripts' directories are checked with a
stat each and every transcript with one lstat, and what did not change is
not read again; doctor's findings are checked again every --doctor-every.
Host-only: through a gateway (--gateway, --context) it is refused (exit 2).`,
		Example: `  sessions metrics
  sessions metrics --textfile /var/lib/node_exporter/textfile/openclaw.prom
  sessions metrics --listen 127.0.0.1:9464
  sessions metrics --listen 0.0.0.0:9464 --insecure-bind --token-file ~/.config/sessions/metrics.token`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Textfile != "" && o.Listen != "" {
				return apperr.Usagef("--textfile and --listen cannot be used together")
			}
			if o.Listen == "" {
				if o.TokenFile != "" {
					return apperr.Usagef("--token-file needs --listen")
				}
				if o.InsecureBind {
					return apperr.Usagef("--insecure-bind needs --listen")
				}
			}
			if o.Textfile != "" && filepath.Ext(o.Textfile) != ".prom" {
				return apperr.Usagef("--textfile %s: node_exporter's textfile collector reads only files ending in .prom", o.Textfile)
			}
			if o.AllAgents && f.Flags.Agent != "" {
				return apperr.Usagef("--agent and --all-agents cannot be used together")
			}
			if o.Active <= 0 {
				return apperr.Usagef("--active must be positive")
			}
			if o.PerSessionTop < 0 {
				return apperr.Usagef("--per-session-top must be 0 or more")
			}
			if f.JSONMode() {
				return apperr.Usagef("metrics writes the Prometheus text format, not JSON: drop --json/--jq")
			}
			if runF != nil {
				return runF(o)
			}
			o.cmdContext = cmd.Context()
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Textfile, "textfile", "", "write the scrape to `PATH` (ending in .prom) atomically, for node_exporter's textfile collector")
	fl.StringVar(&o.Listen, "listen", "", "serve http://`ADDR`/metrics (e.g. 127.0.0.1:9464)")
	fl.StringVar(&o.TokenFile, "token-file", "", "with --listen: the bearer token every request must carry, in file `F` (mode 600)")
	fl.BoolVar(&o.InsecureBind, "insecure-bind", false, "with --listen: allow an address other hosts can reach")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "every agent (the default unless --agent)")
	fl.DurationVar(&o.Active, "active", time.Hour, "openclaw_sessions_active counts the sessions updated within this `DURATION`")
	fl.IntVar(&o.PerSessionTop, "per-session-top", 0, "add the `N` largest sessions by tokens as openclaw_session_tokens{agent,key}")
	fl.DurationVar(&o.DoctorEvery, "doctor-every", 5*time.Minute, "with --listen: check doctor's findings again after this `DURATION` (0: every scrape)")
	fl.BoolVar(&o.OpenMetrics, "openmetrics", false, "print or write OpenMetrics instead of the Prometheus text format")
	f.ReadsHost(cmd, ops.ReadMetrics)
	return cmd
}

func run(o *Options) error {
	f := o.f
	if o.Listen != "" {
		// refused before anything is read: an address others reach, a
		// token file anyone may read
		if err := httpserve.CheckBind(o.Listen, "--listen", o.InsecureBind); err != nil {
			return err
		}
		if o.TokenFile == "" && o.InsecureBind {
			return apperr.Usagef("--insecure-bind needs --token-file F: metrics served to other hosts must need a token")
		}
	}
	var token string
	if o.TokenFile != "" {
		var err error
		if token, err = httpserve.ReadTokenFile(o.TokenFile, "--listen"); err != nil {
			return err
		}
	}
	m, err := newMetrics(f, o)
	if err != nil {
		return err
	}
	switch {
	case o.Listen != "":
		return serve(o, m, token)
	case o.Textfile != "":
		return writeTextfile(o.Textfile, m, o.OpenMetrics)
	default:
		return m.Write(f.IO.Out, o.OpenMetrics)
	}
}

// newMetrics prepares the scrapes the options ask for.
func newMetrics(f *cmdutil.Factory, o *Options) (*ops.Metrics, error) {
	version, commit := Build()
	c := f.OpsConfig()
	q := ops.MetricsQuery{AllAgents: c.Agent == "", Active: o.Active, PerSessionTop: o.PerSessionTop, Version: version, Commit: commit}
	if o.Listen != "" {
		q.DoctorEvery = o.DoctorEvery
	}
	return ops.NewMetrics(c, q)
}

// writeTextfile writes one scrape to a temporary file in path's directory
// and renames it over path: node_exporter never reads half a file.
func writeTextfile(path string, m *ops.Metrics, openMetrics bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return apperr.Errorf("--textfile: %v", err)
	}
	defer os.Remove(tmp.Name())
	if err := m.Write(tmp, openMetrics); err != nil {
		tmp.Close()
		return apperr.Errorf("--textfile: %v", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return apperr.Errorf("--textfile: %v", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return apperr.Errorf("--textfile: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return apperr.Errorf("--textfile: %v", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return apperr.Errorf("--textfile: %v", err)
	}
	return nil
}

// serve answers scrapes at Path until a signal (or o.Context) ends it,
// behind the same guard and limits as sessions mcp --http.
func serve(o *Options, m *ops.Metrics, token string) error {
	f := o.f
	ctx := o.Context
	if ctx == nil {
		ctx = cmdutil.OrBackground(o.cmdContext) // ends on SIGINT or SIGTERM
		f.GracefulSignals()
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return apperr.Errorf("listen on %s: %v", o.Listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promlite.HandlerFor(m.Gatherer(), promlite.HandlerOpts{
		EnableOpenMetrics: true, ErrorHandling: promlite.HTTPErrorOnError, MaxRequestsInFlight: 4, Timeout: 60 * time.Second}))
	// every request names a loopback host (unless --insecure-bind) and
	// comes from no page elsewhere, with or without a token
	h := httpserve.Guard(mux, httpserve.Access{Token: token, InsecureBind: o.InsecureBind}, httpserve.Limits{})
	addr := ln.Addr().String()
	f.Log.Info("serving metrics", "url", "http://"+addr+Path)
	if o.Ready != nil {
		o.Ready(addr)
	}
	return httpserve.Serve(ctx, ln, h, httpserve.Limits{})
}
