package runscmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/runs"
)

// Node is one session of the spawn lineage tree: a requester, or a child
// with the run that spawned it.
type Node struct {
	SessionKey string  `json:"sessionKey"`
	RunID      string  `json:"runId,omitempty"`
	Label      string  `json:"label,omitempty"`
	Status     string  `json:"status,omitempty"`
	Outcome    string  `json:"outcome,omitempty"`
	CreatedAt  int64   `json:"createdAt,omitempty"`
	ArchivedAt int64   `json:"archivedAt,omitempty"`
	Source     string  `json:"source,omitempty"` // sessions | openclaw (children only)
	Children   []*Node `json:"children"`
}

// requesterKey is who spawned a run, as stored.
func requesterKey(r *runs.Record) string {
	if r.Requester == nil {
		return "(unknown)"
	}
	return r.Requester.Key
}

// buildTree groups spawn runs (newest first) under their requesters; a
// child that spawned (or was recorded as requester of) other runs carries
// them as its own children. Roots come in the order of their newest child.
func buildTree(recs []*runs.Record) []*Node {
	byChild := map[string]*Node{}
	var spawns []*runs.Record
	for _, r := range recs {
		if r.Kind != runs.KindSpawn {
			continue
		}
		spawns = append(spawns, r)
		n := &Node{SessionKey: r.Target.Key, RunID: r.RunID, Status: r.Status, CreatedAt: r.CreatedAt, Source: r.Source, Children: []*Node{}}
		if r.Spawn != nil {
			n.Label, n.Outcome, n.ArchivedAt = r.Spawn.Label, r.Spawn.Outcome, r.Spawn.ArchivedAt
		}
		byChild[r.Target.Key] = n
	}
	roots := []*Node{}
	rootOf := map[string]*Node{}
	for _, r := range spawns {
		n := byChild[r.Target.Key]
		pk := requesterKey(r)
		if p, ok := byChild[pk]; ok && p != n {
			p.Children = append(p.Children, n)
			continue
		}
		root := rootOf[pk]
		if root == nil {
			root = &Node{SessionKey: pk, Children: []*Node{}}
			rootOf[pk] = root
			roots = append(roots, root)
		}
		root.Children = append(root.Children, n)
	}
	return roots
}

// printTree writes the tree indented, two spaces a level: the requester's
// key, then each child's key, label, status, outcome, age (or creation
// time when piped), run id and source (sessions or openclaw) — separated
// by two spaces on a terminal, by tabs when piped.
func printTree(f *cmdutil.Factory, w io.Writer, roots []*Node, now time.Time) {
	tty := f.IO.IsStdoutTTY()
	sep := "\t"
	if tty {
		sep = "  "
	}
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
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
				when = cmdutil.Ago(now.Sub(time.UnixMilli(n.CreatedAt)))
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
