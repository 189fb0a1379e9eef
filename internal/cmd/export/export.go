// Package export implements `sessions export`.
package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	xp "github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/ops"
)

// Options are the parsed flags of `sessions export`.
type Options struct {
	f          *cmdutil.Factory
	Ref        string
	Label      string
	Format     string
	Output     string
	Force      bool
	Lineage    bool
	From, To   string
	Last       int
	NoTools    bool
	NoThinking bool

	format     xp.Format
	cmdContext context.Context
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "export {KEY | SESSION_ID | PREFIX | --label L [--agent A]} [flags]",
		Short: "Write a whole conversation, or a range of it, as HTML, Markdown, JSON or JSONL",
		Long: `Write a session's whole conversation, oldest first, to stdout or to -o FILE:
every message of its transcript read as a stream (not history's 80 KiB page),
tool calls and results, thinking and compaction summaries where they stand.

--format picks the output (default markdown, or what -o's name calls for:
.html, .md, .json, .jsonl):
  html      one self-contained page: no script, nothing loaded from elsewhere
            (a Content-Security-Policy forbids it), readable with JavaScript
            off; thinking and tool calls collapsed, long tool outputs cut with
            their size shown, images inline as stored, per-turn model, tokens
            and cost, a header with the session's facts and totals, a table of
            contents by day, light and dark, printable. Every string is escaped.
  markdown  a heading with the session's facts, one section per message (as
            history --format markdown writes them), the totals.
  json      one document: {"session": facts, range, entry as stored,
            "messages": every message as stored, "transcripts", "totals"}.
  jsonl     OpenClaw's own lines, as stored, for archiving: the transcript
            file's lines byte for byte (2026.8+: its events' lines).

-o FILE is written atomically (a temporary file renamed into place, mode
0600) and never over an existing file without --force.

--lineage (off by default: the export is the session's current transcript,
what history reads) puts the session's earlier transcripts first, oldest
first — those a /new or /reset left (orphans attributed to the key), its
.reset/.deleted copies (zstd or not) attributed to it, and the archives a
2026.9 store keeps under it, as show lists them — each after a marked
boundary.

A range: --from and --to (inclusive) take a message's sequence number in the
export (N, or seq:N: the messages numbered from 1, tool results included), a
history cursor (nextCursor), a time (RFC 3339, a date, or 7d/12h/30m back from
now; time:… forces it), or a line's id (id:… forces it); --last N keeps the
last N messages of it. The range is stated in the output's header. Ends
out of order (--from 5 --to 3) are exit 2; an id or cursor the session does
not hold is exit 4.

--redact (always on with --as, for a requester) masks secrets, tokens and
keys with the masker agents get, tool arguments and results included, and the
page says so. --no-tools and --no-thinking leave those out.

Over a gateway (--gateway, --context) the export is what chat.history gives:
at most its last 1000 messages, a limit the page states when it cuts the
conversation.`,
		Example: `  sessions export main -o main.html
  sessions export main --format markdown > main.md
  sessions export main --format jsonl -o main.jsonl       # OpenClaw's own lines
  sessions export main --from 2026-11-20 --to 2026-11-21 -o day.html
  sessions export main --last 50 --no-tools --redact -o share.html`,
		Args:              cmdutil.RefArgs(&o.Label, "label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if err := o.check(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			o.cmdContext = cmd.Context()
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Format, "format", "", "output `FORMAT`: markdown, json, jsonl or html (default markdown, or -o's extension)")
	fl.StringVarP(&o.Output, "output", "o", "", "write to `FILE` (atomically) instead of stdout")
	fl.BoolVar(&o.Force, "force", false, "with -o, replace an existing file")
	fl.BoolVar(&o.Lineage, "lineage", false, "also the session's earlier transcripts (a /new or /reset left them), first")
	fl.StringVar(&o.From, "from", "", "start at `PLACE`: a sequence number, cursor, time (RFC 3339, 7d) or line id")
	fl.StringVar(&o.To, "to", "", "end at `PLACE` (inclusive): a sequence number, cursor, time or line id")
	fl.IntVar(&o.Last, "last", 0, "only the last `N` messages (of the range)")
	fl.BoolVar(&o.NoTools, "no-tools", false, "leave out tool calls and tool results")
	fl.BoolVar(&o.NoThinking, "no-thinking", false, "leave out thinking")
	cmdutil.AddRefLabelFlag(cmd, f, &o.Label, "label")
	_ = cmd.RegisterFlagCompletionFunc("format", cmdutil.FixedCompletions(
		"markdown\tMarkdown", "json\tone JSON document", "jsonl\tOpenClaw's own lines, as stored", "html\tone self-contained page"))
	_ = cmd.RegisterFlagCompletionFunc("from", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("to", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("last", cobra.NoFileCompletions)
	return cmd
}

// check validates the flags before anything is read.
func (o *Options) check(cmd *cobra.Command) error {
	switch {
	case o.Format != "":
		ft, err := xp.ParseFormat(o.Format)
		if err != nil {
			return err
		}
		o.format = ft
	case o.Output != "" && xp.FormatOfFile(o.Output) != "":
		o.format = xp.FormatOfFile(o.Output)
	default:
		o.format = xp.Markdown
	}
	if cmd.Flags().Changed("last") && o.Last < 1 {
		return apperr.Usagef("invalid --last %d: 1 or more", o.Last)
	}
	if o.Force && o.Output == "" {
		return apperr.Usagef("--force needs -o FILE")
	}
	if o.f.JSONMode() && o.Output == "" {
		return apperr.Usagef("--json prints what export wrote, with -o FILE; for the conversation as JSON use --format json")
	}
	if o.Output != "" && o.Output != "-" {
		if fi, err := os.Stat(o.Output); err == nil && fi.IsDir() {
			return apperr.Usagef("-o %s is a directory: name the file to write", o.Output)
		}
		if _, err := os.Lstat(o.Output); err == nil && !o.Force {
			return apperr.Usagef("%s exists: give --force to replace it", o.Output)
		}
	}
	return nil
}

// Format is the format the flags chose.
func (o *Options) FormatChosen() xp.Format { return o.format }

func run(o *Options) error {
	f := o.f
	ctx := cmdutil.OrBackground(o.cmdContext)
	q := ops.ExportQuery{Format: o.format, Lineage: o.Lineage, From: o.From, To: o.To, Last: o.Last,
		NoTools: o.NoTools, NoThinking: o.NoThinking}
	toStdout := o.Output == "" || o.Output == "-"
	if f.IO.IsStderrTTY() && !(toStdout && f.IO.IsStdoutTTY()) { // never into the text on a terminal
		q.Progress = progress(f.IO.ErrOut)
	}
	if toStdout {
		_, err := f.Ops().Export(ctx, o.Ref, o.Label, q, f.IO.Out)
		return err
	}
	// Ctrl-C (or SIGTERM) ends the export, which then removes its
	// temporary file: nothing is left behind, as on any other error.
	f.GracefulSignals()
	res, err := writeAtomic(o.Output, o.Force, func(w io.Writer) (*ops.ExportResult, error) {
		return f.Ops().Export(ctx, o.Ref, o.Label, q, w)
	})
	if err != nil {
		if ctx.Err() != nil {
			return apperr.Errorf("export interrupted: %s not written", o.Output)
		}
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(struct {
			*ops.ExportResult
			File string `json:"file"`
		}{res, o.Output})
	}
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Wrote %d messages of %s to %s (%s)\n", res.Messages, res.SessionKey, o.Output, res.Format)
	}
	return nil
}

// progress is a terminal's progress line on stderr: the messages written
// so far, from the first thousand on (a short export says nothing), ended
// with a newline when the export is.
func progress(w io.Writer) func(int, bool) {
	p := cmdutil.NewProgress(w, "export")
	return func(n int, done bool) { p.Count(n, "messages", done) }
}

// writeAtomic writes path through a temporary file beside it, renamed into
// place only when write succeeded; without force an existing file is never
// replaced (it is linked into place, which fails if one appeared). On an
// error nothing is left behind.
func writeAtomic(path string, force bool, write func(io.Writer) (*ops.ExportResult, error)) (*ops.ExportResult, error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, apperr.Usagef("cannot write %s: %v", path, errors.Unwrap(err))
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	res, err := write(tmp)
	if err != nil {
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		return nil, apperr.Errorf("write %s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, apperr.Errorf("write %s: %v", path, err)
	}
	if force {
		err = os.Rename(name, path)
	} else if err = os.Link(name, path); err == nil {
		os.Remove(name)
	} else if errors.Is(err, os.ErrExist) {
		err = apperr.Usagef("%s exists: give --force to replace it", path)
	}
	if err != nil {
		return nil, err
	}
	ok = true
	return res, nil
}
