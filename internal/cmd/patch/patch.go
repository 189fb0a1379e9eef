// Package patch implements `sessions patch`: OpenClaw's sessions.patch for
// the fields a script or an operator sets on a session (send policy,
// label), written safely beside a live OpenClaw (store.Update).
package patch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/spf13/cobra"
)

// MaxLabelLen is 2026.1.30's sessions.patch label limit (JS string length,
// UTF-16 code units, after trimming); a 2026.8+ agent allows 512
// (sessionwrite.ParseLabel).
const MaxLabelLen = sessionwrite.JSONMaxLabelLen

// Options are the parsed flags of `sessions patch`.
type Options struct {
	f          *cmdutil.Factory
	Ref        string
	SendPolicy string // "", allow, deny, inherit
	Label      string
	SetLabel   bool
	ClearLabel bool
	// TargetLabel names the session by its label (--target-label), with
	// --agent to pick the agent, instead of Ref.
	TargetLabel string
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (--wait-idle).
	WaitIdle time.Duration
	// Settle is how long to wait, after such a run released the lock, for
	// its end-of-turn store write (DefaultSettle; tests shorten it).
	Settle time.Duration
}

// DefaultWaitIdle is --wait-idle without a value.
const DefaultWaitIdle = 60 * time.Second

// DefaultSettle bounds the wait, after a run released its transcript
// lock, for OpenClaw's end-of-turn write of the store.
const DefaultSettle = 2 * time.Second

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f, Settle: DefaultSettle}
	cmd := &cobra.Command{
		Use:   "patch {KEY | SESSION_ID | PREFIX | --target-label L [--agent A]} [flags]",
		Short: "Change a session's send policy or label",
		Long: `Change fields of a session entry in sessions.json, as OpenClaw's sessions.patch
does, safely beside a live OpenClaw: under OpenClaw's own store lock, re-reading
the store inside it, changing only this entry (every other entry and every
unknown field kept), and replacing the file atomically (mode 0600).

--send-policy allow|deny sets the session's send policy override; inherit
removes it (the configured session.sendPolicy applies again). --label sets the
label (trimmed, 1-64 characters on a 2026.7-and-earlier agent, 1-512 on a
2026.8+ one as OpenClaw 2026.9.6 allows, unique within the agent's store); --clear-label
removes it. updatedAt becomes max(updatedAt, now).

The session is named by its key, its sessionId, a unique sessionId prefix (8+
hex digits) or --target-label L [--agent A] (--label is the new label).

Through the gateway: with --gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL
or a current context, the session is found with the gateway's sessions.list
and changed with its own sessions.patch (no local state dir needed; --as,
--wait-idle and several contexts are refused). An OpenClaw 2026.8+ (SQLite)
agent whose gateway is live on this host is patched through that gateway with
the config's credentials (--log-level debug says so). A token without the
operator.admin scope OpenClaw 1.30 needs is exit 3.

OpenClaw undoes a change made while it runs a turn on the session: when the
turn ends it rewrites the entry from the copy it took when the turn started.
When a live process holds the session's transcript lock (an agent turn is
running), patch warns that the change may be overwritten; --wait-idle[=D]
(default 60s; give a duration as --wait-idle=D) waits for the turn to end
and for OpenClaw to record it, then writes. Still busy after D: exit 5,
nothing written.

On OpenClaw 2026.8+ state the entry is patched in the agent's SQLite store as
2026.9.6's sessions.patch does, when no OpenClaw process holds the state dir
(else exit 10 naming its pid: use --gateway); a session with an active run
is refused there.

A corrupt store is refused with exit 10,
a lock held past --lock-timeout with exit 11.

JSON (--json): {"ok":true,"key","path","entry","warnings"} with the entry as
written; warnings only when there is one.`,
		Example: `  sessions patch main --send-policy deny
  sessions patch agent:main:telegram:group:-100123 --label standup --json
  sessions patch 26a610b5-ea74-4c48-bd74-9be14f7f2944 --send-policy inherit --clear-label
  sessions patch 26a610b5 --label alice
  sessions patch --target-label build-stats --label ci-stats --wait-idle=30s`,
		Args:              cmdutil.RefArgs(&o.TargetLabel, "target-label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if o.WaitIdle < 0 {
				return apperr.Usagef("--wait-idle must not be negative")
			}
			o.SetLabel = cmd.Flags().Changed("label")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	cmdutil.EnumVar(cmd, &o.SendPolicy, "send-policy", "", "send policy override (inherit removes the override)", "allow", "deny", "inherit")
	fl.StringVar(&o.Label, "label", "", "set the session's `LABEL` (1-64 characters; 1-512 on a 2026.8+ agent; unique in the store)")
	fl.BoolVar(&o.ClearLabel, "clear-label", false, "remove the session's label")
	cmdutil.AddRefLabelFlag(cmd, f, &o.TargetLabel, "target-label")
	fl.DurationVar(&o.WaitIdle, "wait-idle", 0, "first wait up to `DURATION` (--wait-idle=D; default 60s) for an OpenClaw turn running on the session to end")
	fl.Lookup("wait-idle").NoOptDefVal = DefaultWaitIdle.String()
	return cmd
}

func (o *Options) validate() error {
	switch o.SendPolicy {
	case "", "allow", "deny", "inherit":
	default:
		return apperr.Usagef("invalid --send-policy %q (allow, deny or inherit)", o.SendPolicy)
	}
	if o.SetLabel && o.ClearLabel {
		return apperr.Usagef("--label and --clear-label cannot be used together")
	}
	if o.SetLabel {
		// the loosest rule (2026.9.6's 512) here; the target's era decides
		// once it is known (2026.1.30: 64)
		l, err := sessionwrite.ParseLabel("", o.Label)
		if err != nil {
			return apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
		o.Label = l
	}
	if o.SendPolicy == "" && !o.SetLabel && !o.ClearLabel {
		return apperr.Usagef("nothing to change: give --send-policy, --label or --clear-label")
	}
	return nil
}

// ParseLabel is 2026.1.30's sessions.patch label check: trimmed, not
// empty, at most 64 characters (JS length).
func ParseLabel(raw string) (string, error) {
	l, err := sessionwrite.ParseLabel("json", raw)
	if err != nil {
		return "", errors.New(strings.TrimPrefix(err.Error(), "invalid label: "))
	}
	return l, nil
}

// Result is the JSON document of `sessions patch`.
type Result struct {
	OK       bool            `json:"ok"`
	Key      string          `json:"key"`
	Path     string          `json:"path"`
	Entry    json.RawMessage `json:"entry"`
	Warnings []string        `json:"warnings,omitempty"`
}

func run(o *Options) error {
	f := o.f
	if handled, err := patchRemote(o); handled {
		return err
	}
	s, err := f.State()
	if err != nil {
		return err
	}
	// A patch is a write: the checks of a send (visibility, agent-to-agent).
	t, err := s.ResolveRef(state.Ref{Arg: o.Ref, Label: o.TargetLabel, Agent: f.Flags.Agent}, policy.OpSend)
	if err != nil {
		return err
	}
	// where the write goes (sessionwrite.Choose): a 2026.8+ (SQLite) agent
	// whose gateway is live on this host through that gateway (it owns the
	// database while it runs), else the agent's files or database
	route, wo, err := f.WriteRoute(s, t.Agent, "patch")
	if err != nil {
		return err
	}
	if route.Era == era.Gateway {
		if err := o.refuseOverGateway(); err != nil {
			return err
		}
	}
	w, err := sessionwrite.OpenRoute(s, t.Agent, route, wo)
	if err != nil {
		return err
	}
	defer w.Close()
	if o.SetLabel {
		if o.Label, err = sessionwrite.ParseLabel(w.Era(), o.Label); err != nil {
			return apperr.Usagef("invalid --label: %s", strings.TrimPrefix(err.Error(), "invalid label: "))
		}
	}
	var warnings []string
	if w.Era() == era.JSON {
		// the SQLite era refuses a session with an active run itself
		storePath, _ := s.StorePath(t.Agent)
		now := time.Now
		if f.Now != nil {
			now = f.Now
		}
		if warnings, err = o.checkIdle(s, t, storePath, now); err != nil {
			return err
		}
	}
	sessionID := ""
	if t.ViaID {
		// the key may have moved on to a new session (/new) since we
		// resolved the id
		sessionID = t.Entry.SessionID
	}
	return o.write(context.Background(), w, t.Key, t.DisplayKey, sessionID, warnings)
}

// write patches key through w (every route: the JSON files, the SQLite
// store, a gateway's sessions.patch) and prints the result.
func (o *Options) write(ctx context.Context, w sessionwrite.Writes, key, display, sessionID string, warnings []string) error {
	f := o.f
	p := sessionwrite.Patch{NotFound: apperr.NotFoundf("No session found: %s", strings.TrimSpace(o.Ref)), SessionID: sessionID}
	if o.SetLabel {
		p.Label = &o.Label
	}
	if o.ClearLabel {
		empty := ""
		p.Label = &empty
	}
	switch o.SendPolicy {
	case "allow", "deny":
		p.SendPolicy = &o.SendPolicy
	case "inherit":
		empty := ""
		p.SendPolicy = &empty
	}
	res, err := w.Patch(ctx, key, p)
	if err != nil {
		return err
	}
	entry := res.Entry // as written, normalised by the writer (a gateway: as it answers)
	if w.Era() == era.Gateway {
		f.Log.Debug("patched through the gateway's sessions.patch", append([]any{"key", key}, res.Debug...)...)
	} else {
		f.Log.Debug("store updated", append([]any{"path", res.Path, "key", key, "era", w.Era()}, res.Debug...)...)
	}
	if f.JSONMode() {
		return f.PrintJSON(Result{OK: true, Key: key, Path: res.Path, Entry: entry, Warnings: warnings})
	}
	fmt.Fprintf(f.IO.Out, "patched %s: %s\n", display, o.describe())
	return nil
}
