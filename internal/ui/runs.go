package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// runsView shows the runs: by default the tree of sub-agent runs (ours and
// OpenClaw's own registry) under the sessions that spawned them; t shows
// every run (our sends too) as a list. It loads again when the feed says a
// run changed or a sub-agent session came or went.
type runsView struct {
	*pager
	flat bool
	res  *ops.RunsResult
}

var keyRunsFlat = key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tree / every run"))

// NewRunsView is the runs view.
func NewRunsView(env Env) View {
	v := &runsView{pager: newPager(env, "runs")}
	v.query()
	v.set = func(res any) { v.res, _ = res.(*ops.RunsResult) }
	v.lines = v.draw
	return v
}

// query makes the load ask for the tree or for every run (a load takes
// the fetch of when it starts).
func (v *runsView) query() {
	q := ops.RunsQuery{Source: ops.RunsSourceAll, Tree: !v.flat, Limit: -1}
	env := v.env
	v.fetch = func(ctx context.Context) (any, error) { return env.Ops().Runs(ctx, q) }
}

func (v *runsView) Init() tea.Cmd { return v.load() }

func (v *runsView) Keys() []key.Binding { return append([]key.Binding{keyRunsFlat}, v.keys()...) }

func (v *runsView) Update(msg tea.Msg) (View, tea.Cmd) {
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(m, keyRunsFlat) {
			v.flat = !v.flat
			v.query()
			// the shape changes with the next load: nothing stale meanwhile
			v.loaded, v.res = false, nil
			v.vp.GotoTop()
			v.loading = false
			return v, v.load()
		}
	case ChangedMsg:
		ev := m.Event
		if ev.Kind == ops.EventRun || ((ev.Kind == ops.EventAdded || ev.Kind == ops.EventRemoved) && strings.Contains(ev.Key, ":subagent:")) {
			return v, v.load()
		}
		return v, nil
	}
	cmd, _ := v.update(msg)
	return v, cmd
}

func (v *runsView) draw(width int) (head, body []string, foot string) {
	lk := lookOf(v.env.Styles)
	now := v.env.Now()
	r := v.res
	if r == nil {
		return nil, nil, ""
	}
	if v.flat {
		rows := [][]string{{"STATUS", "KIND", "AGE", "RUN", "SOURCE", "TARGET", "WHAT"}}
		for _, x := range r.Runs {
			what := x.Message
			if x.Spawn != nil {
				what = x.Spawn.Task
				if x.Spawn.Label != "" {
					what = "[" + x.Spawn.Label + "] " + what
				}
			}
			target := x.Target.DisplayKey
			if target == "" {
				target = x.Target.Key
			}
			rows = append(rows, []string{statusCell(lk, x.Status), x.Kind, ago(now, x.CreatedAt), x.RunID, x.Source, target, oneLine(what, 60)})
		}
		lines := columns(rows)
		head = []string{lk.head.Render(lines[0])}
		body = lines[1:]
		if len(body) == 0 {
			body = []string{lk.dim.Render("no runs")}
		}
		return head, body, fmt.Sprintf("%d run(s) · every run, newest first · t for the tree", r.TotalCount)
	}
	rows := [][]string{{"STATUS", "AGE", "SOURCE", "LABEL", "SESSION"}}
	for _, n := range r.Tree {
		rows = treeRows(lk, now, n, "", "", true, rows)
	}
	lines := columns(rows)
	head = []string{lk.head.Render(lines[0])}
	body = lines[1:]
	if len(r.Tree) == 0 {
		body = []string{lk.dim.Render("no sub-agent runs")}
	}
	return head, body, fmt.Sprintf("%d sub-agent run(s) under the sessions that spawned them · t for every run", r.TotalCount)
}

// treeRows adds the rows of n and its children, each child under its
// parent with the tree's branches before its key (last: keys are long).
func treeRows(lk look, now time.Time, n *ops.RunNode, lead, branch string, root bool, rows [][]string) [][]string {
	st := n.Status
	if n.Outcome != "" && n.Outcome != n.Status {
		st += "/" + n.Outcome
	}
	if n.ArchivedAt > 0 {
		st += " (archived)"
	}
	age := ""
	if n.CreatedAt > 0 {
		age = ago(now, n.CreatedAt)
	}
	src := n.Source
	if src != "" {
		src = lk.dim.Render(src)
	}
	rows = append(rows, []string{statusCell(lk, st), age, src, n.Label, lead + branch + n.SessionKey})
	next := lead
	if !root {
		if branch == "└─ " {
			next += "   "
		} else {
			next += "│  "
		}
	}
	for i, c := range n.Children {
		b := "├─ "
		if i == len(n.Children)-1 {
			b = "└─ "
		}
		rows = treeRows(lk, now, c, next, b, false, rows)
	}
	return rows
}

func statusCell(lk look, s string) string {
	switch {
	case strings.HasPrefix(s, "ok"):
		return lk.good.Render(s)
	case strings.HasPrefix(s, "running"), strings.HasPrefix(s, "accepted"):
		return lk.busy.Render(s)
	case strings.HasPrefix(s, "timeout"):
		return lk.warn.Render(s)
	case strings.HasPrefix(s, "error"), strings.HasPrefix(s, "failed"):
		return lk.bad.Render(s)
	}
	return s
}

// oneLine shows text on one line, at most n cells.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if lipgloss.Width(s) > n {
		r := []rune(s)
		for len(r) > 0 && lipgloss.Width(string(r)) > n-1 {
			r = r[:len(r)-1]
		}
		s = string(r) + "…"
	}
	return s
}
