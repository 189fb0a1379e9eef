// Package index implements `sessions index`: the search index search
// answers from, in the user's cache dir — where it is, its size and how
// fresh it is; --update, --rebuild and --remove. The index itself is
// internal/searchindex.
package index

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/proc"
	"github.com/spf13/cobra"
)

// Options are the parsed flags.
type Options struct {
	f                       *cmdutil.Factory
	Update, Rebuild, Remove bool
	// Background: --update as a search starts it in the background
	// (hidden): at low priority, nothing when another process updates the
	// index, stopped when the state dir goes away, nothing printed. For a
	// requester (--as) it builds that requester's masked index only.
	Background bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Show the search index (where, size, freshness); --update, --rebuild or --remove it",
		Long: `Show the search index sessions search answers from, kept for this state dir in
the user's cache dir ($XDG_CACHE_HOME/sessions/index, never in the state dir):
where it is, its size on disk, the transcripts and messages it holds and the
transcript bytes they cover, when it was last brought up to date, and how
fresh it is now — how many transcripts are new, changed or gone since (a check
that writes nothing; the next search reads just those). The indexes of masked
text kept for agents' searches (one per requester and mask) are listed beside
it. No index yet is not an error: the first search builds it — itself when
that is quick, else in the background (a detached sessions index --update;
this command shows how far it has got; SESSIONS_INDEX_BACKGROUND=0: never).

  --update   bring it up to date now: build it when there is none, go on with
             a build that was interrupted
  --rebuild  throw it away and build it again
  --remove   remove it and its masked siblings (under the index's lock;
             nothing else in the cache dir); the next search builds it again

A build shows a progress bar on a terminal (stderr: bytes done, total, time
left; nothing on a pipe or with --json). Ctrl-C stops it keeping what it
finished: --update (or any search) goes on from there. Only the host operator
may (the index covers every agent's transcripts) — but for the build an
agent's search starts in the background, of that agent's masked index
only; not through a gateway.

JSON (--json): {"stateDir","cacheDir","transcripts","disabled","index":{"dir","sizeBytes",
"built","sources","messages","textBytes","updatedAt","changed","fresh",
"corrupt","updating"}|null,"masked":[{"dir","sizeBytes","built","sources","messages",
"textBytes","updatedAt","corrupt"}...],"updated":{"unchanged","appended",
"indexedWhole","removed","unreadable","segments"},"removed":[dir...]}
(updatedAt in ms; updating while a process updates it, such as a build a
search started in the background; disabled when SESSIONS_NO_INDEX is set: search scans and
leaves the index as it is; updated only after --update/--rebuild, removed
after --remove).
Piped: one index a line: raw|masked, dir, size bytes, transcripts, messages,
text bytes, updated (RFC 3339), changed (- for a masked one).`,
		Example: `  sessions index
  sessions index --rebuild
  sessions index --jq '.index.fresh'
  sessions index --remove`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, b := range []bool{o.Update, o.Rebuild, o.Remove} {
				if b {
					n++
				}
			}
			if n > 1 {
				return apperr.Usagef("--update, --rebuild and --remove are one action each: give one")
			}
			if o.Background && !o.Update {
				return apperr.Usagef("--background goes with --update")
			}
			if runF != nil {
				return runF(o)
			}
			if o.Update || o.Rebuild {
				f.GracefulSignals() // Ctrl-C keeps what the build finished
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.Update, "update", false, "bring the index up to date now (build it, or go on with an interrupted build)")
	cmd.Flags().BoolVar(&o.Rebuild, "rebuild", false, "throw the index away and build it again")
	cmd.Flags().BoolVar(&o.Remove, "remove", false, "remove this state dir's index and its masked siblings")
	cmd.Flags().BoolVar(&o.Background, "background", false, "with --update: run as the build a search starts in the background")
	_ = cmd.Flags().MarkHidden("background")
	f.ReadsHost(cmd, ops.ReadIndex)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	ctx = cmdutil.OrBackground(ctx)
	if o.Background {
		// No one waits for it: below every interactive process. A
		// system that has no priorities builds at the normal one.
		_ = proc.Background()
		_, err := f.Ops().Index(ctx, ops.IndexRequest{Update: true, Background: true})
		return err
	}
	q := ops.IndexRequest{Update: o.Update, Rebuild: o.Rebuild, Remove: o.Remove}
	var bar *cmdutil.Progress
	var done, total int64
	if (o.Update || o.Rebuild) && f.IO.IsStderrTTY() && !f.JSONMode() {
		bar = cmdutil.NewProgress(f.IO.ErrOut, "index")
		q.Progress = func(d, t int64) {
			done, total = d, t
			bar.Bytes(d, t, false)
		}
	}
	res, err := f.Ops().Index(ctx, q)
	if bar != nil {
		bar.Bytes(done, total, true)
	}
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	io := f.IO
	switch {
	case o.Remove && len(res.Removed) == 0:
		fmt.Fprintf(io.ErrOut, "No search index of %s to remove.\n", res.StateDir)
		return nil
	case o.Remove:
		fmt.Fprintf(io.ErrOut, "Removed the search index of %s (%d index dir(s)); the next search builds it again.\n", res.StateDir, len(res.Removed))
		return nil
	case res.Updated != nil:
		u := res.Updated
		fmt.Fprintf(io.ErrOut, "Indexed %d transcript(s) whole, %d appended to, %d unchanged, %d removed.\n", u.Whole, u.Appended, u.Unchanged, u.Removed)
		for _, w := range u.Unreadable {
			fmt.Fprintf(io.ErrOut, "warning: not indexed (search reads it itself): %s\n", w)
		}
	}
	if !io.IsStdoutTTY() {
		t := output.NewTable()
		row := func(kind string, x ops.IndexStatus) {
			changed := "-"
			if x.Changed != nil {
				changed = strconv.Itoa(*x.Changed)
			}
			t.Row(kind, x.Dir, strconv.FormatInt(x.SizeBytes, 10), strconv.Itoa(x.Sources), strconv.Itoa(x.Messages),
				strconv.FormatInt(x.TextBytes, 10), rfc3339(x.UpdatedAt), changed)
		}
		if res.Index != nil {
			row("raw", *res.Index)
		}
		for _, m := range res.Masked {
			row("masked", m)
		}
		if res.Index == nil && len(res.Masked) == 0 {
			fmt.Fprintf(io.ErrOut, "No search index of %s yet: the first search builds it (or sessions index --update).\n", res.StateDir)
			return nil
		}
		return t.Render(io.Out, false, 0)
	}
	return printTTY(f, res)
}

func printTTY(f *cmdutil.Factory, res *ops.IndexResult) error {
	w := f.IO.Out
	cs := f.IO.ColorScheme()
	x := res.Index
	if x == nil {
		fmt.Fprintf(w, "No search index of %s yet (%d transcripts): the first search builds it, or sessions index --update.\n", res.StateDir, res.Transcripts)
	} else {
		fmt.Fprintf(w, "Search index of %s (%d transcripts)\n", res.StateDir, res.Transcripts)
		fmt.Fprintf(w, "  dir      %s\n", x.Dir)
		fmt.Fprintf(w, "  size     %s on disk\n", cmdutil.Size(x.SizeBytes))
		fmt.Fprintf(w, "  holds    %d transcripts, %d messages, %s of transcripts\n", x.Sources, x.Messages, cmdutil.Size(x.TextBytes))
		if x.UpdatedAt > 0 {
			at := time.UnixMilli(x.UpdatedAt)
			fmt.Fprintf(w, "  updated  %s (%s ago)\n", at.Local().Format("2006-01-02 15:04:05"), ago(f.Ops().Now().Sub(at)))
		}
		if x.Updating {
			fmt.Fprintf(w, "  building %s: a process is updating it now (a build a search started in the background, or sessions index --update)\n", cs.Yellow("yes"))
		}
		switch {
		case x.Corrupt != "":
			fmt.Fprintf(w, "  state    %s: %s (the next search rebuilds it)\n", cs.Red("corrupt"), x.Corrupt)
		case x.Fresh != nil && *x.Fresh:
			fmt.Fprintf(w, "  fresh    %s\n", cs.Green("yes"))
		case x.Changed != nil:
			fmt.Fprintf(w, "  fresh    %s: %d transcript(s) new, changed or gone since (the next search reads them)\n", cs.Yellow("no"), *x.Changed)
		}
	}
	if res.Disabled {
		fmt.Fprintf(w, "  %s: SESSIONS_NO_INDEX is set, so search scans and leaves it as it is\n", cs.Yellow("off"))
	}
	if len(res.Masked) > 0 {
		fmt.Fprintf(w, "Masked indexes (agents' searches): %d\n", len(res.Masked))
		for _, m := range res.Masked {
			line := fmt.Sprintf("  %s  %s, %d transcripts, %d messages", m.Dir, cmdutil.Size(m.SizeBytes), m.Sources, m.Messages)
			if m.Corrupt != "" {
				line += ", " + cs.Red("corrupt")
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

func rfc3339(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// ago is a short duration: 12s, 4m, 3h, 2d.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
