// Package history implements `sessions history`.
package history

import (
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/render"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/spf13/cobra"
)

// MaxLimit is the gateway's hard maximum for chat.history.
const MaxLimit = 1000

// Options are the parsed flags of `sessions history`.
type Options struct {
	f            *cmdutil.Factory
	Ref          string
	Limit        int
	IncludeTools bool
	Raw          bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "history {KEY | SESSION_ID} [flags]",
		Short: "Print the messages of a session's transcript",
		Long: `Print the messages of a session's transcript in transcript order (every
message line, as OpenClaw's sessions_history returns them), the last --limit of
them (default 200, at most 1000).

By default tool results are left out (--include-tools keeps them) and the
messages are prepared for an agent's context: inbound envelopes stripped from
user messages, text and thinking over 4000 characters cut, image data replaced
by its size, signatures/usage/cost/details removed, and the oldest messages
dropped until the whole is at most 80 KiB. --raw prints the messages exactly
as stored, uncapped.

JSON (--json): {"sessionKey","sessionId","messages","truncated","bytes"}.`,
		Example: `  sessions history main
  sessions history agent:main:signal:group:abc --limit 20 --json
  sessions history 26a610b5-ea74-4c48-bd74-9be14f7f2944 --raw --include-tools --json`,
		Args: cmdutil.ExactArgs(1, "session KEY or SESSION_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Ref = args[0]
			if err := cmdutil.IntRange("limit", o.Limit, 1, MaxLimit); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Limit, "limit", 200, "the last `N` messages (1-1000)")
	fl.BoolVar(&o.IncludeTools, "include-tools", false, "keep tool result messages")
	fl.BoolVar(&o.Raw, "raw", false, "messages exactly as stored: no sanitising, no size cap")
	return cmd
}

// Result is the JSON document of `sessions history`.
type Result struct {
	SessionKey string            `json:"sessionKey"`
	SessionID  string            `json:"sessionId,omitempty"`
	Messages   []json.RawMessage `json:"messages"`
	Truncated  bool              `json:"truncated"`
	Bytes      int               `json:"bytes"`
}

func run(o *Options) error {
	f := o.f
	s, err := f.State()
	if err != nil {
		return err
	}
	t, err := s.Resolve(o.Ref, policy.OpHistory)
	if err != nil {
		return err
	}
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil {
		return err
	}
	if tp.Fallback != "" {
		f.Log.Debug("transcript fallback", "reason", tp.Fallback, "path", tp.Path)
	}
	res := Result{SessionKey: t.DisplayKey, SessionID: t.Entry.SessionID, Messages: []json.RawMessage{}}
	if tp.Exists {
		r, err := transcript.ReadMessages(tp.Path, transcript.Options{Limit: o.Limit, IncludeTools: o.IncludeTools, Warn: f.Warn})
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return apperr.Statef("cannot read transcript %s: permission denied", tp.Path)
			}
			return apperr.Statef("cannot read transcript %s: %v", tp.Path, err)
		}
		res.Messages = r.Messages
	} else {
		f.Warn("session " + t.DisplayKey + " has no transcript yet (" + tp.Path + ")")
	}
	if o.Raw {
		b, _ := jsonx.Marshal(res.Messages)
		res.Bytes = len(b)
	} else {
		for i, m := range res.Messages {
			res.Messages[i] = sanitize.StripEnvelope(m)
		}
		res.Messages, res.Truncated, res.Bytes = sanitize.History(res.Messages, sanitize.DefaultCapBytes)
		if res.Messages == nil {
			res.Messages = []json.RawMessage{}
		}
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	return render.Messages(f.IO.Out, res.Messages)
}
