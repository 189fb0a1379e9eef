// Package send implements `sessions send` and the shared wait logic of
// `sessions wait`.
package send

import (
	"context"
	"errors"
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"path/filepath"
	"strings"
	"time"

	"github.com/briandowns/spinner"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions send`.
type Options struct {
	f        *cmdutil.Factory
	Ref      string
	Label    string
	Message  string
	Timeout  int
	Engine   string
	OpenClaw string
	Deliver  string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "send {KEY | SESSION_ID | PREFIX | --label L [--agent A]} MESSAGE [flags]",
		Short: "Send a message into a session and (optionally) wait for its reply",
		Long: `Send a message into another session, as OpenClaw's sessions_send does, without a
gateway: the message is recorded as a run and a short-lived detached runner
performs the target's turn, then (when a requester is set with --as and differs
from the target) the reply ping-pong, then the announce step, whose reply is
delivered to the target's channel unless it is exactly ANNOUNCE_SKIP.

Everything that can be refused is refused before anything is written: the
target must exist and be visible to the requester, the agent-to-agent policy
must allow it, and the send policy must not deny it (forbidden, exit 3).

--timeout S waits up to S seconds for the target's reply (default 30);
--timeout 0 returns at once with the run id. A caller that times out (exit 5)
or is killed does not stop the run: follow it with 'sessions wait RUN_ID'.

The agent turn is produced by an engine (--engine or $SESSIONS_ENGINE):
"auto" (default) takes openclaw when the executable is found, else provider;
"openclaw" runs a real OpenClaw turn (openclaw agent --local, with its tools;
--openclaw PATH or $SESSIONS_OPENCLAW names the executable); "provider" calls
the model provider openclaw.json configures, with the agent's persona and
workspace files but no tools; "exec:COMMAND" runs COMMAND with a JSON request
on stdin. The engine chosen is in the run record ('sessions runs'). Announces are
recorded in <state>/sessions-cli/outbox.jsonl and sent for real through
--deliver exec:COMMAND (or $SESSIONS_DELIVER).

Through a gateway: with --gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL
or a current context, the session is found with the gateway's sessions.list
and every turn is the gateway's own (the gateway engine; several contexts
are refused); no local state dir is needed, and the run is recorded on this
machine in the gateway's home under $XDG_STATE_HOME/sessions/gateways/
('sessions wait' and 'sessions runs' with the same gateway find it). --as
there is checked against that host's config (config.get: exit 3 when the
credentials lack its scope), and the run takes the host's maxPingPongTurns
and agents.defaults.timeoutSeconds from it (without --as: OpenClaw's
defaults, 5 turns and 600 s). An
OpenClaw 2026.8+ (SQLite) agent whose gateway is live on this host is sent
to through that gateway with the config's credentials (--log-level debug
says so), nothing written to its database by us. There, an --engine other
than gateway (or auto) is a usage error.

JSON: {"runId","status":"accepted","sessionKey"} with --timeout 0;
{"runId","status":"ok","reply","sessionKey","delivery":{"status":"pending","mode":"announce"}};
{"runId","status":"timeout","error"} (exit 5); {"runId","status":"error","error"} (exit 1).`,
		Example: `  sessions send agent:main:telegram:group:-100123 "Deploy finished" --timeout 60
  sessions send --label build-stats "status?" --json
  sessions --as agent:ops:main send main "need a hand" --timeout 0
  sessions send main "hi" --engine 'exec:openclaw agent --local --message "$(jq -r .message)"'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Label != "" {
				return cmdutil.Positional("MESSAGE")(cmd, args)
			}
			return cmdutil.Positional("KEY", "MESSAGE")(cmd, args)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 || o.Label != "" {
				return nil, cobra.ShellCompDirectiveNoFileComp // the message
			}
			return f.SessionKeys(toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Label != "" {
				o.Message = args[0]
			} else {
				o.Ref, o.Message = args[0], args[1]
			}
			if strings.TrimSpace(o.Message) == "" {
				return apperr.Usagef("message required")
			}
			if o.Timeout < 0 {
				return apperr.Usagef("--timeout must be 0 or more seconds (got %d)", o.Timeout)
			}
			if err := ResolveEngineDeliver(f.Getenv, &o.Engine, &o.Deliver); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Label, "label", "", "target the session with this `LABEL` (with --agent to pick the agent)")
	fl.IntVar(&o.Timeout, "timeout", 30, "wait up to `S` seconds for the reply (0 = return at once)")
	fl.StringVar(&o.Engine, "engine", "", "what produces the agent turn: auto | provider | openclaw | gateway | exec:COMMAND (default $SESSIONS_ENGINE, else auto)")
	fl.StringVar(&o.OpenClaw, "openclaw", "", "the openclaw executable for --engine openclaw/auto (default $SESSIONS_OPENCLAW, else openclaw on $PATH)")
	fl.StringVar(&o.Deliver, "deliver", "", "deliver announces through exec:COMMAND (default $SESSIONS_DELIVER)")
	_ = cmd.RegisterFlagCompletionFunc("label", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.Labels(toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("engine", CompleteEngine)
	_ = cmd.RegisterFlagCompletionFunc("deliver", cobra.FixedCompletions([]string{"exec:"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	return cmd
}

// CompleteEngine completes --engine: auto, provider, openclaw, gateway, or exec: followed by a
// command (no space after it).
func CompleteEngine(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, c := range []string{"auto\tgateway, else openclaw when found, else provider", "provider\tthe model provider openclaw.json configures (no tools)", "openclaw\ta real OpenClaw turn: openclaw agent --local", "gateway\ta real OpenClaw turn in the live gateway", "exec:\trun COMMAND with the request on stdin"} {
		if strings.HasPrefix(c, toComplete) && !strings.Contains(toComplete, "\t") {
			out = append(out, c)
		}
	}
	dir := cobra.ShellCompDirectiveNoFileComp
	if len(out) > 0 && strings.HasPrefix(out[len(out)-1], "exec:") {
		dir |= cobra.ShellCompDirectiveNoSpace // a command comes next
	}
	return out, dir
}

// ResolveEngineDeliver completes the --engine and --deliver flags of send
// and spawn: an empty one takes $SESSIONS_ENGINE / $SESSIONS_DELIVER; then
// both specs' syntax is checked (usage errors).
func ResolveEngineDeliver(getenv func(string) string, engine, deliver *string) error {
	if *engine == "" {
		*engine = getenv("SESSIONS_ENGINE")
	}
	if *deliver == "" {
		*deliver = getenv("SESSIONS_DELIVER")
	}
	if err := ValidateEngine(*engine); err != nil {
		return err
	}
	if *deliver != "" && !strings.HasPrefix(*deliver, "exec:") {
		return apperr.Usagef("invalid --deliver %q (want exec:COMMAND)", *deliver)
	}
	return nil
}

// ValidateEngine checks an engine spec's syntax.
func ValidateEngine(spec string) error {
	switch {
	case spec == "", spec == engine.SpecAuto, spec == engine.SpecProvider, spec == engine.SpecOpenClaw, spec == engine.SpecGateway:
		return nil
	case strings.HasPrefix(spec, "openclaw:") && strings.TrimSpace(strings.TrimPrefix(spec, "openclaw:")) != "":
		return nil
	case strings.HasPrefix(spec, "exec:") && strings.TrimSpace(strings.TrimPrefix(spec, "exec:")) != "":
		return nil
	}
	return apperr.Usagef("invalid --engine %q (want auto, provider, openclaw, gateway or exec:COMMAND)", spec)
}

// ChooseEngine turns the engine asked for into the one the run records:
// "auto" (the default) picks gateway, openclaw or provider (engine.ChooseAuto);
// "openclaw" becomes "openclaw:<path>" of the executable found (--openclaw
// PATH, $SESSIONS_OPENCLAW, $PATH; exit 1 when there is none). The choice
// and its reasons are logged at debug level.
func ChooseEngine(f *cmdutil.Factory, s *state.State, spec, openclawFlag string) (string, error) {
	switch {
	case spec == "" || spec == engine.SpecAuto:
		probe := func() (string, error) {
			if eps, err := f.GatewayEndpoints(); err == nil && len(eps) == 1 {
				return eps[0].String() + " (given)", gateway.Probe(context.Background(), eps[0], cmdutil.ProbeTimeout)
			}
			return f.ProbeLocalGateway(s)
		}
		c := engine.ChooseAuto(s.Cfg, engine.Probe{Getenv: f.Getenv, OpenClawFlag: openclawFlag, Gateway: probe, StateDir: s.Dir.Path})
		for _, r := range c.Reasons {
			f.Log.Debug("engine auto: " + r)
		}
		f.Log.Debug("engine chosen", "engine", c.Spec, "asked", "auto")
		return c.Spec, nil
	case spec == engine.SpecOpenClaw:
		bin, err := engine.FindOpenClaw(openclawFlag, f.Getenv)
		if err != nil {
			return "", apperr.Errorf("--engine openclaw: %v", err)
		}
		f.Log.Debug("engine chosen", "engine", "openclaw:"+bin, "asked", spec)
		return engine.SpecOpenClaw + ":" + bin, nil
	case spec == engine.SpecGateway:
		// fail now (exit 10 when none runs), not in the detached runner
		ep, err := f.TurnGateway(s)
		if err != nil {
			return "", err
		}
		f.Log.Debug("engine chosen", "engine", spec, "asked", spec, "gateway", ep.String())
		return spec, nil
	}
	f.Log.Debug("engine chosen", "engine", spec, "asked", spec)
	return spec, nil
}

// ChooseEngineFor is ChooseEngine for a run whose sessions are written
// through route: through a gateway, the turn is the gateway's own (the
// gateway engine; auto picks it), and any other engine is a usage error —
// it would write the turn itself, where only the gateway may.
func ChooseEngineFor(f *cmdutil.Factory, s *state.State, route sessionwrite.Route, agent, spec, openclawFlag string) (string, error) {
	if route.Era != era.Gateway {
		return ChooseEngine(f, s, spec, openclawFlag)
	}
	switch spec {
	case "", engine.SpecAuto, engine.SpecGateway:
		asked := spec
		if asked == "" {
			asked = engine.SpecAuto
		}
		f.Log.Debug("engine chosen", "engine", engine.SpecGateway, "asked", asked, "why", "the sessions of agent "+agent+" are written through the gateway "+route.Endpoint.String())
		return engine.SpecGateway, nil
	}
	return "", apperr.Usagef("--engine %s cannot run a turn on agent %s: its sessions are written through the gateway %s (%s), which runs the turns itself; use --engine gateway (or auto)", spec, agent, route.Endpoint.String(), whyShort(route))
}

func whyShort(r sessionwrite.Route) string {
	if r.Named {
		return "the gateway this invocation names"
	}
	return "a 2026.8+ SQLite store whose gateway is live on this host"
}

// Result is the JSON document of `send` and `wait`.
type Result struct {
	RunID      string         `json:"runId"`
	Status     string         `json:"status"`
	Reply      *string        `json:"reply,omitempty"`
	SessionKey string         `json:"sessionKey,omitempty"`
	Delivery   *DeliveryState `json:"delivery,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// DeliveryState is the delivery part of a result: the announce's delivery
// as the run record has it when the result is printed — "pending" until the
// runner has settled it, then skipped, recorded, delivered or failed (with
// the reason).
type DeliveryState struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Error  string `json:"error,omitempty"`
}

// deliveryOf is a run record's delivery state; "pending" while the record
// has none yet or has not settled it.
func deliveryOf(r *runs.Record) *DeliveryState {
	d := &DeliveryState{Status: "pending", Mode: "announce"}
	if rd := r.Delivery; rd != nil && rd.Status != "" {
		d.Status = rd.Status
		if rd.Mode != "" {
			d.Mode = rd.Mode
		}
		if rd.Status != "pending" {
			d.Error = rd.Error
		}
	}
	return d
}

func run(o *Options) error {
	f := o.f
	if ep, err := NamedGateway(f); err != nil {
		return err
	} else if ep != nil {
		return runRemote(o, *ep)
	}
	s, err := f.State()
	if err != nil {
		return err
	}
	t, err := s.ResolveRef(state.Ref{Arg: o.Ref, Label: o.Label, Agent: f.Flags.Agent}, policy.OpSend)
	if err != nil {
		return err
	}
	route, wo, err := f.WriteRoute(s, t.Agent, "send")
	if err != nil {
		return err
	}
	if route.Era == era.Gateway {
		// the engine first (a usage error), then the gateway answers
		// (handshake, credentials: exit 10, 3, 5) and has the session,
		// before a run exists
		if o.Engine, err = ChooseEngineFor(f, s, route, t.Agent, o.Engine, o.OpenClaw); err != nil {
			return err
		}
		if err := CheckTarget(s, t.Agent, t.Key, route, wo); err != nil {
			return err
		}
	} else if err := Preflight(s, t); err != nil {
		return err
	} else if s.Era(t.Agent) == era.SQLite {
		// an OpenClaw process beside us that runs (or has just written)
		// the session: exit 10 before a run exists, not a failed run
		if err := CheckTarget(s, t.Agent, t.Key, route, wo); err != nil {
			return err
		}
	}
	if s.SendPolicy(t) == "deny" {
		return apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", t.DisplayKey)
	}
	if route.Era != era.Gateway {
		if o.Engine, err = ChooseEngine(f, s, o.Engine, o.OpenClaw); err != nil {
			return err
		}
	}
	if err := CheckEngine(s, t, o.Engine, f.Getenv); err != nil {
		return err
	}
	rec := &runs.Record{
		RunID:          runs.NewID(),
		Kind:           runs.KindSend,
		Status:         runs.StatusAccepted,
		CreatedAt:      f.Now().UnixMilli(),
		Target:         runs.Session{Key: t.Key, DisplayKey: t.DisplayKey, AgentID: t.Agent, SessionID: t.Entry.SessionID, Channel: s.ChannelOf(t.Entry)},
		Message:        o.Message,
		TimeoutSeconds: o.Timeout,
		Engine:         o.Engine,
		Deliver:        o.Deliver,
		Steps:          []runs.Step{},
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	rec.Requester = Requester(s)
	return Launch(f, s, rec, time.Duration(o.Timeout)*time.Second)
}

// Requester describes the --as session for a run: its stored key (for the
// ping-pong turns), the raw key as given (what OpenClaw's prompts show) and
// its channel; nil for the host operator.
func Requester(s *state.State) *runs.Session {
	if s.Req.Operator() {
		return nil
	}
	r := &runs.Session{Key: s.Req.Key, DisplayKey: s.Req.Raw, AgentID: s.Req.Agent}
	if t, err := s.Lookup(s.Req.Raw); err == nil && t != nil {
		r.Key = t.Key
		r.SessionID = t.Entry.SessionID
		r.Channel = s.ChannelOf(t.Entry)
	}
	return r
}

// Preflight refuses what the runner could not do, before a run exists: an
// agent whose store cannot be written (PreflightAgent), or a transcript
// whose first line is not a session header (OpenClaw would overwrite it; we
// never repair it). A 2026.8+ (SQLite) transcript is checked by the writer
// in the transaction that appends.
func Preflight(s *state.State, t *state.Target) error {
	if err := PreflightAgent(s, t.Agent); err != nil {
		return err
	}
	if s.Era(t.Agent) == era.SQLite {
		return nil
	}
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil {
		return err
	}
	if !tp.Exists {
		if err := checkCreatable(tp.Path); err != nil {
			return err
		}
	}
	if tp.Exists {
		h, err := transcript.ReadHeader(tp.Path)
		if err != nil {
			return apperr.Statef("cannot read transcript %s: %v", tp.Path, err)
		}
		if h == nil {
			return apperr.Statef("transcript %s does not start with a session header; refusing to append to it", tp.Path)
		}
	}
	return nil
}

// CheckTarget refuses, before a run exists, what the runner could not do
// on route: through a gateway, connecting (unreachable or a failed
// handshake: exit 10; credentials refused or pairing required: exit 3; a
// call timing out: exit 5) and finding key there (exit 4); on the SQLite
// store, writing key beside an OpenClaw process that runs it (exit 10).
func CheckTarget(s *state.State, agent, key string, route sessionwrite.Route, o sessionwrite.Options) error {
	w, err := sessionwrite.OpenRoute(s, agent, route, o)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.Locate(key)
	return err
}

// PreflightAgent refuses an agent sessions cannot write (sessionwrite.CheckWritable:
// on the 2026.8+ SQLite store, an OpenClaw process holding the state dir or a
// schema other than 2026.9.6's, exit 10).
func PreflightAgent(s *state.State, agent string) error { return sessionwrite.CheckWritable(s, agent) }

// Launch records the run, starts its runner and waits as asked.
func Launch(f *cmdutil.Factory, s *state.State, rec *runs.Record, timeout time.Duration) error {
	rs := runs.Open(s.Dir.Path)
	if err := rs.Save(rec); err != nil {
		return err
	}
	if err := StartRunner(f, s, rs, rec); err != nil {
		return err
	}
	if timeout <= 0 {
		return PrintAccepted(f, rec)
	}
	return WaitAndPrint(f, rs, rec, timeout)
}

// StartRunner starts the detached runner of a saved run; when it cannot be
// started the run is ended as an error.
func StartRunner(f *cmdutil.Factory, s *state.State, rs *runs.Store, rec *runs.Record) error {
	cfgPath := ""
	if s.Cfg.Exists {
		cfgPath = s.Cfg.Path
	}
	var extra []string
	if f.Flags.LockTimeout > 0 {
		extra = append(extra, "--lock-timeout", f.Flags.LockTimeout.String())
	}
	if rec.Engine == engine.SpecGateway {
		extra = append(extra, GatewayFlags(f.Flags)...)
		// a gateway of the current context: that context by name, so the
		// runner talks to the same one if the current context changes
		if f.Flags.Gateway == "" && len(f.Flags.Contexts) == 0 {
			if ep, err := NamedGateway(f); err == nil && ep != nil && ep.Context != "" && ep.URLSource == "context" {
				extra = append(extra, "--context", ep.Context)
			}
		}
	}
	if _, err := runner.Start(rs, rec.RunID, runner.StartOptions{StateDir: s.Dir.Path, ConfigPath: cfgPath, Extra: extra}); err != nil {
		rec.Status = runs.StatusError
		rec.Error = err.Error()
		rec.ReplyDone = true
		_ = rs.Save(rec)
		return err
	}
	return nil
}

// GatewayFlags are the global flags naming a gateway, for the runner of a
// gateway-engine run (secrets stay in files and the environment, never on
// a command line).
func GatewayFlags(g *cmdutil.GlobalFlags) []string {
	var out []string
	if g.Gateway != "" {
		out = append(out, "--gateway", g.Gateway)
	}
	if g.GatewayTokenFile != "" {
		if abs, err := filepath.Abs(g.GatewayTokenFile); err == nil {
			out = append(out, "--gateway-token-file", abs)
		}
	}
	if g.InsecureGateway {
		out = append(out, "--insecure-gateway")
	}
	if g.GatewayFingerprint != "" {
		out = append(out, "--gateway-fingerprint", g.GatewayFingerprint)
	}
	for _, c := range g.Contexts {
		out = append(out, "--context", c)
	}
	return out
}

// PrintAccepted prints the fire-and-forget result.
func PrintAccepted(f *cmdutil.Factory, rec *runs.Record) error {
	if f.JSONMode() {
		return f.PrintJSON(Result{RunID: rec.RunID, Status: runs.StatusAccepted, SessionKey: displayOf(rec.Target)})
	}
	fmt.Fprintln(f.IO.Out, rec.RunID)
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Accepted; follow with: sessions wait %s\n", rec.RunID)
	}
	return nil
}

func displayOf(s runs.Session) string {
	if s.DisplayKey != "" {
		return s.DisplayKey
	}
	return s.Key
}

// WaitAndPrint waits for the first step of a run (the target's reply, or a
// sub-agent's task) and prints the result like `send`.
func WaitAndPrint(f *cmdutil.Factory, rs *runs.Store, rec *runs.Record, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var sp *spinner.Spinner
	if f.IO.IsStderrTTY() && !f.JSONMode() {
		sp = spinner.New(spinner.CharSets[14], 100*time.Millisecond, spinner.WithWriter(f.IO.ErrOut))
		sp.Suffix = " waiting for " + displayOf(rec.Target)
		sp.Start()
	}
	last, err := rs.Wait(ctx, rec.RunID, func(r *runs.Record) bool { return r.ReplyDone })
	if sp != nil {
		sp.Stop()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if last == nil {
		last = rec
	}
	if err != nil || !last.ReplyDone {
		msg := fmt.Sprintf("timed out after %s waiting for the reply; the run goes on (sessions wait %s)", timeout, last.RunID)
		return apperr.Timeoutf("%s", msg).With("runId", last.RunID)
	}
	return PrintDone(f, last)
}

// PrintDone prints a run whose first step has ended: ok with the reply, or
// the step's failure — "timeout" (exit 5) when the turn itself timed out,
// as OpenClaw's agent.wait reports it, else "error" (exit 1).
func PrintDone(f *cmdutil.Factory, r *runs.Record) error {
	if !hasOKTurn(r) {
		msg, timedOut := r.Error, r.Status == runs.StatusTimeout
		if len(r.Steps) > 0 {
			if msg == "" {
				msg = r.Steps[0].Error
			}
			timedOut = timedOut || r.Steps[0].Status == runs.StatusTimeout
		}
		if msg == "" {
			msg = "agent error"
		}
		e := apperr.Errorf("%s", msg)
		if timedOut {
			e = apperr.Timeoutf("%s", msg)
		}
		return e.With("runId", r.RunID)
	}
	reply := r.Reply
	res := Result{RunID: r.RunID, Status: runs.StatusOK, Reply: &reply, SessionKey: displayOf(r.Target), Delivery: deliveryOf(r)}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	fmt.Fprintln(f.IO.Out, reply)
	return nil
}

// hasOKTurn reports whether the first step succeeded (later steps may fail
// without failing what send waited for).
func hasOKTurn(r *runs.Record) bool {
	return len(r.Steps) > 0 && r.Steps[0].Status == runs.StatusOK
}
