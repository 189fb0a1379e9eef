// Package history implements `sessions history`.
package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/render"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/spf13/cobra"
)

// MaxLimit is the most messages a page holds (chat.history's maximum).
const MaxLimit = ops.HistoryMaxLimit

// defaultLimit is --limit's default.
const defaultLimit = 200

// Output formats of --format.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Formats are the values of --format.
var Formats = []string{FormatText, FormatMarkdown, FormatJSON}

// DefaultPoll is how often --follow re-checks the transcript and the store
// when no file event arrives (the fallback for file systems without
// inotify, and for missed events).
const DefaultPoll = time.Second

// Options are the parsed flags of `sessions history`.
type Options struct {
	f            *cmdutil.Factory
	Ref          string
	Label        string // --label: the session with this label instead of Ref
	Limit        int
	IncludeTools bool
	Raw          bool
	Format       string // text, markdown or json ("" = text, or json in JSON mode)
	Follow       bool
	Before       string        // --before CURSOR: the page before that cursor
	Around       string        // --around MSG: the page around that message
	IdleTimeout  time.Duration // --follow stops after this long without a new message (0 = never)

	// Poll replaces DefaultPoll (tests).
	Poll time.Duration
	// Context ends --follow when done (tests); nil = until SIGINT/SIGTERM.
	Context context.Context

	cmdContext context.Context // cmd.Context(): ends on SIGINT/SIGTERM (cli.Main)
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "history {KEY | SESSION_ID | PREFIX | --label L [--agent A]} [flags]",
		Short: "Print (or follow) the messages of a session's transcript",
		Long: `Print the messages of a session's transcript in transcript order (every
message line, as OpenClaw's sessions_history returns them), the last --limit of
them (default 200, at most 1000). The session is named by its key, its
sessionId, a unique sessionId prefix (8+ hex digits) or --label L [--agent A].
A whole sessionId no session has any more names its orphan transcript (one a
/new reset or a crash left behind, that no entry points to): it is read like
any other ("orphan": true, sessionKey the key it belonged to when known, else
empty; a line on stderr says so), but cannot be followed.

By default tool results are left out (--include-tools keeps them) and the
messages are prepared for an agent's context: inbound envelopes stripped from
user messages, text and thinking over 4000 characters cut, image data replaced
by its size, signatures/usage/cost/details removed, and the oldest messages
dropped until the whole is at most 80 KiB. --raw prints the messages exactly
as stored, uncapped.

Older messages come in pages: when there are messages older than the first
one printed (beyond --limit, or dropped by the 80 KiB cap, which stderr then
says), the JSON result carries "hasMore": true and "nextCursor", and
--before CURSOR prints the page before it (same flags otherwise). On a
terminal, text and markdown output print that command on stderr. A cursor
names a place in one transcript, so it stays valid — and its page the same —
while OpenClaw appends; a malformed cursor, or one for another session or a
rewritten transcript, is exit 2. To read a whole transcript oldest first,
loop on --before and prepend each page (see the README's Scripting section).

--around MSG prints the page of --limit messages around one message instead:
MSG is its id (the "id" of a sessions search hit), its sequence number in the
transcript (N or seq:N, tool results counted, as export --from counts), a time
(the first message from then on) or a cursor. The message is in the middle of
the page ((limit-1)/2 older ones before it) where the transcript has enough
on both sides, else the page moves towards the end that has more; when the
80 KiB cap would drop it, the newest messages are left out instead. Text output
ends its header line with "<== --around", Markdown marks its heading, JSON
gives its index in "messages" as "aroundIndex". "nextCursor" pages older as
always; "hasNewer" says newer messages exist and --before "prevCursor" prints
the next newer page (absent when those reach the newest message: then the
page without --before shows them). An id no message has is exit 4; over a
gateway the message must be within chat.history's last 1000 messages.

--format picks the output: text (the default: a header line per message and
its content indented), markdown (a readable export: a heading, one section per
message with role, model and time, tool calls and tool results as fenced
blocks, images noted, thinking folded in <details>) or json (the same as
--json).

--follow keeps printing messages as OpenClaw or a sessions runner appends them,
like tail -f: it watches the transcript's directory (with a 1 s polling
fallback), reads only what was appended (a line still being written is read
once it is complete), and follows the session key across a reset (/new gives
the key a new sessionId and transcript; a line on stderr says so). It ends on
Ctrl-C or SIGTERM with exit 0, or after --idle-timeout without a new message.
With --json each message is printed as one JSON object per line (JSON Lines;
--jq applies to each message).

JSON (--json): {"sessionKey","sessionId","orphan","messages","truncated",
"dropped","bytes","hasMore","nextCursor"} ("orphan" only for an orphan;
"aroundIndex", "hasNewer", "prevCursor" only with --around).
Masked (--as, $OPENCLAW_SESSION_KEY, --redact): credentials in the texts are
masked as OpenClaw 2026.9.6's sessions_history masks them, and the page
carries its marks too: "redacted"/"contentRedacted", "contentTruncated" (a
text was cut or a message's details/usage/cost left out), "droppedMessages";
"truncated" is then any of them.`,
		Example: `  sessions history main
  sessions history agent:main:telegram:group:-100123 --limit 20 --json
  sessions history main --format markdown > main.md
  sessions history main --limit 5 --jq .nextCursor    # then: sessions history main --limit 5 --before CURSOR
  sessions history main --around 83a4bd51 --limit 3   # the page around a search hit's message (its "id")
  sessions history main --follow
  sessions history main --follow --json | jq -r 'select(.role=="assistant") | .content[0].text'
  sessions history 26a610b5-ea74-4c48-bd74-9be14f7f2944 --raw --include-tools --json`,
		Args:              cmdutil.RefArgs(&o.Label, "label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if err := cmdutil.IntRange("limit", o.Limit, 1, MaxLimit); err != nil {
				return err
			}
			if err := o.checkFormat(f.JSONMode()); err != nil {
				return err
			}
			if o.Format == FormatJSON {
				f.Flags.JSON = true // errors become JSON documents too
			}
			if o.IdleTimeout < 0 {
				return apperr.Usagef("--idle-timeout must not be negative")
			}
			if o.IdleTimeout > 0 && !o.Follow {
				return apperr.Usagef("--idle-timeout needs --follow")
			}
			if cmd.Flags().Changed("around") {
				if err := ops.CheckAround(o.Around); err != nil {
					return err
				}
				switch {
				case cmd.Flags().Changed("before"):
					return apperr.Usagef("--around cannot be used with --before (each names the page to read)")
				case o.Follow:
					return apperr.Usagef("--around cannot be used with --follow (a page around a message does not grow)")
				}
			}
			if cmd.Flags().Changed("before") {
				if o.Follow {
					return apperr.Usagef("--before cannot be used with --follow (a page of older messages does not grow)")
				}
				if err := ops.CheckCursor(o.Before); err != nil {
					return err
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
	fl.IntVar(&o.Limit, "limit", defaultLimit, "the last `N` messages (1-1000)")
	fl.BoolVar(&o.IncludeTools, "include-tools", false, "keep tool result messages")
	fl.BoolVar(&o.Raw, "raw", false, "messages exactly as stored: no sanitising, no size cap")
	fl.StringVar(&o.Format, "format", "", "output `FORMAT`: text, markdown or json (default text, json with --json)")
	fl.StringVar(&o.Before, "before", "", "the page of messages before `CURSOR` (a nextCursor of an earlier page)")
	fl.StringVar(&o.Around, "around", "", "the page of messages around `MSG`: a message's id (a search hit's), its sequence number, a time or a cursor")
	fl.BoolVarP(&o.Follow, "follow", "f", false, "keep printing new messages as they are appended (Ctrl-C to stop)")
	cmdutil.AddRefLabelFlag(cmd, f, &o.Label, "label")
	fl.DurationVar(&o.IdleTimeout, "idle-timeout", 0, "with --follow, stop after this `DURATION` without a new message (0 = never)")
	_ = cmd.RegisterFlagCompletionFunc("before", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("around", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("format", cmdutil.FixedCompletions(
		FormatText+"\thuman-readable text",
		FormatMarkdown+"\ta Markdown export",
		FormatJSON+"\tthe same as --json"))
	return cmd
}

// checkFormat validates --format against --json/--jq.
func (o *Options) checkFormat(jsonMode bool) error {
	o.Format = strings.ToLower(strings.TrimSpace(o.Format))
	switch o.Format {
	case "", FormatText, FormatMarkdown, FormatJSON:
	case "md":
		o.Format = FormatMarkdown
	default:
		return apperr.Usagef("invalid --format %q (text, markdown or json)", o.Format)
	}
	if jsonMode && o.Format != "" && o.Format != FormatJSON {
		return apperr.Usagef("--format %s cannot be used with --json or --jq", o.Format)
	}
	return nil
}

// Result is the JSON document of `sessions history`.
type Result = ops.HistoryResult

// run reads the session's transcript where the invocation works (the
// local state dir, or one gateway): the same page, sanitising, cap,
// cursors, output and --follow whatever it is.
func run(o *Options) error {
	f := o.f
	op := f.Ops()
	ctx := o.Context
	if ctx == nil {
		ctx = cmdutil.OrBackground(o.cmdContext)
		if o.Follow { // --follow ends on Ctrl-C or SIGTERM with exit 0
			f.GracefulSignals()
		}
	}
	sess, res, err := op.OpenHistory(ctx, o.Ref, o.Label, ops.HistoryQuery{Limit: o.Limit, IncludeTools: o.IncludeTools, Raw: o.Raw, Before: o.Before, Follow: o.Follow, Around: o.Around})
	if err != nil {
		return err
	}
	defer sess.Close()
	if res.Note != "" {
		f.Warn(res.Note)
	}
	p, done, err := o.showPage(facts{key: sess.Key, sessionID: sess.SessionID, agent: sess.Agent, label: sess.Label}, res)
	if done || err != nil {
		return err
	}
	if f.IO.IsStderrTTY() && !f.JSONMode() {
		fmt.Fprintf(f.IO.ErrOut, "Following %s (Ctrl-C to stop)\n", sess.Key)
	}
	poll := o.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	return op.Follow(ctx, sess, ops.FollowQuery{
		IncludeTools: o.IncludeTools, Raw: o.Raw, Poll: poll, Idle: o.IdleTimeout,
		Notice: func(line string) { fmt.Fprintln(f.IO.ErrOut, line) },
	}, p.print)
}

// showPage prints one page: the cap line, then the JSON document or the
// messages, then (without --follow) the empty and next-page hints on a
// terminal. done: nothing follows (no --follow, or the JSON document).
func (o *Options) showPage(fx facts, res *Result) (p *printer, done bool, err error) {
	f := o.f
	if res.CapDropped() {
		fmt.Fprintf(f.IO.ErrOut, "history: %d of %d messages fit the %d KiB cap; use --raw for all\n",
			len(res.Messages), res.Read, sanitize.DefaultCapBytes/1024)
	}
	p = newPrinter(o, fx, res)
	if !o.Follow && p.format == FormatJSON {
		return p, true, f.PrintJSON(res)
	}
	if err := p.start(); err != nil {
		return p, true, err
	}
	if err := p.print(res.Messages); err != nil {
		return p, true, err
	}
	if o.Follow {
		return p, false, nil
	}
	if len(res.Messages) == 0 && p.format == FormatText && f.IO.IsStdoutTTY() {
		fmt.Fprintln(f.IO.ErrOut, "No messages.")
	}
	if res.NextCursor != "" && (f.IO.IsStdoutTTY() || f.IO.IsStderrTTY()) {
		fmt.Fprintln(f.IO.ErrOut, "older messages: "+o.nextCommand(o.Ref, res.NextCursor))
	}
	if res.HasNewer && (f.IO.IsStdoutTTY() || f.IO.IsStderrTTY()) {
		if res.PrevCursor != "" {
			fmt.Fprintln(f.IO.ErrOut, "newer messages: "+o.nextCommand(o.Ref, res.PrevCursor))
		} else {
			fmt.Fprintln(f.IO.ErrOut, "newer messages: "+o.nextCommand(o.Ref, ""))
		}
	}
	return p, true, nil
}

// nextCommand is the command line that prints the page before cursor: the
// session as the caller named it (global flags such as --agent are the
// caller's own), and the flags that shape a page.
func (o *Options) nextCommand(key, cursor string) string {
	args := []string{"sessions", "history", shellQuote(key)}
	if o.Limit != defaultLimit {
		args = append(args, "--limit", strconv.Itoa(o.Limit))
	}
	if o.IncludeTools {
		args = append(args, "--include-tools")
	}
	if o.Raw {
		args = append(args, "--raw")
	}
	if o.Format != "" && o.Format != FormatText {
		args = append(args, "--format", o.Format)
	}
	if cursor == "" { // the newest page
		return strings.Join(args, " ")
	}
	return strings.Join(append(args, "--before", cursor), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-+@/=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printer writes messages in the chosen format, incrementally (--follow
// prints in batches).
type printer struct {
	o       *Options
	mark    int // the index in the page's messages of the one --around asked for (-1: none)
	f       *cmdutil.Factory
	format  string
	title   string
	facts   [][2]string
	printed int // messages printed so far
}

// facts are what the Markdown heading says about the session.
type facts struct{ key, sessionID, agent, label string }

func newPrinter(o *Options, t facts, res *Result) *printer {
	p := &printer{o: o, f: o.f, format: o.Format, mark: -1}
	if res.AroundIndex != nil {
		p.mark = *res.AroundIndex
	}
	if p.format == "" {
		p.format = FormatText
		if o.f.JSONMode() {
			p.format = FormatJSON
		}
	}
	if p.format == FormatMarkdown {
		p.title = "Session `" + t.key + "`"
		p.facts = append(p.facts, [2]string{"Session key", "`" + t.key + "`"})
		if t.sessionID != "" {
			p.facts = append(p.facts, [2]string{"Session id", "`" + t.sessionID + "`"})
		}
		p.facts = append(p.facts, [2]string{"Agent", "`" + t.agent + "`"})
		if l := t.label; l != "" {
			p.facts = append(p.facts, [2]string{"Label", l})
		}
		what := strconv.Itoa(len(res.Messages))
		var notes []string
		switch {
		case o.Around != "":
			notes = append(notes, "the page around "+o.Around)
		case o.Before != "":
			notes = append(notes, "a page of older messages")
		case len(res.Messages) == o.Limit:
			notes = append(notes, "the last "+strconv.Itoa(o.Limit))
		}
		if !o.IncludeTools {
			notes = append(notes, "tool results left out")
		}
		if o.Raw {
			notes = append(notes, "as stored")
		} else {
			notes = append(notes, "sanitised")
		}
		if res.CapDropped() {
			notes = append(notes, "oldest dropped to fit 80 KiB")
		}
		p.facts = append(p.facts, [2]string{"Messages", what + " (" + strings.Join(notes, ", ") + ")"})
	}
	return p
}

// start prints what comes before the first message (the Markdown heading).
func (p *printer) start() error {
	if p.format == FormatMarkdown {
		return render.MarkdownHeader(p.f.IO.Out, p.title, p.facts)
	}
	return nil
}

// print prints a batch of (already sanitised) messages.
func (p *printer) print(msgs []json.RawMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	var err error
	switch p.format {
	case FormatJSON:
		for _, m := range msgs {
			if err = p.f.PrintJSONLine(m); err != nil {
				break
			}
		}
	case FormatMarkdown:
		err = render.MarkdownMessagesMarked(p.f.IO.Out, msgs, p.printed+1, p.mark+1)
	default:
		cs := p.f.IO.ColorScheme()
		st := render.Style{}
		if cs.Enabled() {
			st = render.Style{Role: cs.Role, Dim: cs.Gray}
		}
		if p.mark >= 0 {
			at := p.mark - p.printed
			st.Mark = func(i int) bool { return i == at }
		}
		err = render.MessagesStyled(p.f.IO.Out, msgs, st, p.printed > 0)
	}
	p.printed += len(msgs)
	return err
}
