// Package mcp implements `sessions mcp`: the session tools over the Model
// Context Protocol, for any agent.
package mcp

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/mcpserver"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions mcp`.
type Options struct {
	f            *cmdutil.Factory
	HTTP         string // --http ADDR ("" stdio)
	TokenFile    string
	InsecureBind bool
	ReadOnly     bool
	// Context ends the server (nil: SIGINT or SIGTERM).
	Context context.Context
	// Ready, when set, is told the HTTP address the server listens on.
	Ready func(addr string)

	cmdContext context.Context // cmd.Context(): ends on SIGINT/SIGTERM (cli.Main)
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR --token-file F] [--read-only]",
		Short: "Serve the session tools to agents over the Model Context Protocol",
		Long: `Serve OpenClaw's session tools over the Model Context Protocol (MCP), so that an
agent in OpenClaw (mcp.servers), Claude Code, Codex or any MCP client calls them
as tools instead of shelling out: sessions_list, sessions_history,
sessions_search, sessions_show, sessions_usage, sessions_wait, sessions_runs,
sessions_doctor (findings only), and the tools that write: sessions_send,
sessions_spawn, sessions_patch, sessions_delete, sessions_reset and
sessions_archive (each with dryRun; prune stays a command). Parameters are named as OpenClaw's own tools name them
(sessionKey, label, agentId, message, timeoutSeconds, task …); each tool's
structured result is the document the matching command prints with --json; a
failure is a tool error naming its exit code ("not found (exit 4): …").

Each call works on the state as it is then, with the global flags: --state-dir,
--agent, --gateway/--context, and --as (or $OPENCLAW_SESSION_KEY, which an MCP
client's config can set): the server acts as that session, with every policy
the CLI applies.

Transcripts are resources too (also with --read-only): resources/list lists the
sessions the requester may see, newest first, as
openclaw-session://AGENT/KEY (the key percent-encoded; ?context=NAME on a
fleet), and resources/read returns the page "sessions history --json --redact"
prints; the same URI with before=nextCursor (&limit=N for the page's size) is
the older page.

By default the server speaks MCP on stdin/stdout. --http ADDR serves the
streamable HTTP transport at http://ADDR/mcp instead: ADDR must be a loopback
address unless --insecure-bind, every request must carry
"Authorization: Bearer TOKEN" with the token in --token-file F (a file only its
owner can read, holding at least 32 bytes), and a request from a browser page
that is not local (its Origin header) or naming a host that is not a loopback
name (its Host header, unless --insecure-bind) is refused with 403.

--read-only lists only the tools that read, and refuses a call of one that
writes.`,
		Example: `  sessions mcp
  sessions --as agent:main:main mcp --read-only
  sessions mcp --http 127.0.0.1:8765 --token-file ~/.config/sessions/mcp.token`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.HTTP == "" {
				if o.TokenFile != "" {
					return apperr.Usagef("--token-file needs --http")
				}
				if o.InsecureBind {
					return apperr.Usagef("--insecure-bind needs --http")
				}
			}
			if runF != nil {
				return runF(o)
			}
			o.cmdContext = cmd.Context()
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.HTTP, "http", "", "serve streamable HTTP at http://`ADDR`/mcp instead of stdio (e.g. 127.0.0.1:8765)")
	fl.StringVar(&o.TokenFile, "token-file", "", "with --http: the bearer token every request must carry, in file `F` (mode 600)")
	fl.BoolVar(&o.InsecureBind, "insecure-bind", false, "with --http: allow an address other hosts can reach")
	fl.BoolVar(&o.ReadOnly, "read-only", false, "only the tools that read: list, history, search, show, usage, wait, runs, doctor")
	return cmd
}

func run(o *Options) error {
	f := o.f
	ctx := o.Context
	if ctx == nil {
		ctx = cmdutil.OrBackground(o.cmdContext) // ends on SIGINT or SIGTERM
		f.GracefulSignals()
	}
	var token string
	if o.HTTP != "" {
		// refused before anything is served: a missing or readable token
		// file, an address others reach
		var err error
		if token, err = mcpserver.ReadTokenFile(o.TokenFile); err != nil {
			return err
		}
		if err := mcpserver.CheckBind(o.HTTP, o.InsecureBind); err != nil {
			return err
		}
	}
	srv := mcpserver.New(mcpserver.Options{Ops: f.OpsConfig(), ReadOnly: o.ReadOnly, InsecureBind: o.InsecureBind})
	if o.HTTP == "" {
		return serveStdio(ctx, o, srv)
	}
	ln, err := net.Listen("tcp", o.HTTP)
	if err != nil {
		return apperr.Errorf("listen on %s: %v", o.HTTP, err)
	}
	addr := ln.Addr().String()
	f.Log.Info("serving MCP over HTTP", "url", "http://"+addr+mcpserver.Path, "readOnly", o.ReadOnly)
	if o.Ready != nil {
		o.Ready(addr)
	}
	return srv.ServeHTTP(ctx, ln, token)
}

// exitGrace is how long the server waits, once its input is gone or a
// signal came, for the calls in flight to end before it exits without them.
const exitGrace = 3 * time.Second

// serveStdio serves one client over stdin/stdout until the client closes
// its end (EOF on stdin) or a signal ends ctx. Either way the server exits
// within exitGrace even when a call is stuck (a system call that does not
// return): the calls still running are named on stderr and left behind
// (a send's or spawn's run goes on in its detached runner regardless).
func serveStdio(ctx context.Context, o *Options, srv *mcpserver.Server) error {
	f := o.f
	in := &watchedReader{r: f.IO.In, gone: make(chan struct{})}
	ended := make(chan error, 1)
	go func() {
		ended <- srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{f.IO.Out}})
	}()
	var why string
	select {
	case err := <-ended:
		if ctx.Err() != nil {
			return nil // stopped by a signal: a normal end
		}
		return err
	case <-ctx.Done():
		why = "stopped by a signal"
	case <-in.gone:
		why = "input closed"
	}
	grace := exitGrace
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-ended:
		if ctx.Err() != nil {
			return nil
		}
		return err
	case <-t.C:
		fmt.Fprintf(f.IO.ErrOut, "sessions mcp: %s; %d call(s) still running after %v, exiting without them\n", why, mcpserver.InFlight(), grace)
		return nil
	}
}

// watchedReader closes gone when its reader ends (EOF or an error): the
// client closed its end.
type watchedReader struct {
	r    io.Reader
	once sync.Once
	gone chan struct{}
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil {
		w.once.Do(func() { close(w.gone) })
	}
	return n, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
