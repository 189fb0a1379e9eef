package runs

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
)

// printTree prints the spawn lineage: the JSON document, or the tree.
func printTree(f *cmdutil.Factory, res *ops.RunsResult) error {
	if f.JSONMode() {
		return f.PrintJSON(res.TreeDocument())
	}
	if len(res.Tree) == 0 {
		if f.IO.IsStdoutTTY() {
			fmt.Fprintln(f.IO.ErrOut, "No sub-agent runs found.")
		}
		return nil
	}
	writeTree(f, f.IO.Out, res.Tree, f.Now())
	return nil
}

// writeTree writes the tree indented, two spaces a level: the requester's
// key, then each child's key, label, status, outcome, age (or creation
// time when piped), run id and source (sessions or openclaw) — separated
// by two spaces on a terminal, by tabs when piped.
func writeTree(f *cmdutil.Factory, w io.Writer, roots []*ops.RunNode, now time.Time) {
	tty := f.IO.IsStdoutTTY()
	sep := "\t"
	if tty {
		sep = "  "
	}
	var walk func(n *ops.RunNode, depth int)
	walk = func(n *ops.RunNode, depth int) {
		ind := strings.Repeat("  ", depth)
		if n.RunID == "" {
			fmt.Fprintf(w, "%s%s\n", ind, n.SessionKey)
		} else {
			label := n.Label
			if tty && label != "" {
				label = "[" + label + "]"
			}
			when := time.UnixMilli(n.CreatedAt).UTC().Format(time.RFC3339)
			if tty {
				when = cells.Ago(now.Sub(time.UnixMilli(n.CreatedAt)))
			}
			outcome := n.Outcome
			if n.ArchivedAt > 0 {
				outcome = strings.TrimSpace(outcome + " archived")
			}
			cells := []string{ind + n.SessionKey, label, n.Status, outcome, when, n.RunID, n.Source}
			if tty {
				var kept []string
				for _, c := range cells {
					if c != "" {
						kept = append(kept, c)
					}
				}
				cells = kept
			}
			fmt.Fprintln(w, strings.Join(cells, sep))
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
}
