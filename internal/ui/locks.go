package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// locksView shows the locks held under the state dir right now (OpenClaw's
// store and transcript locks, our runners' locks), oldest first; it loads
// again on every change the feed reports (a turn takes and drops locks).
type locksView struct {
	*pager
	res *ops.LocksResult
}

// NewLocksView is the locks view.
func NewLocksView(env Env) View {
	v := &locksView{pager: newPager(env, "locks")}
	v.fetch = func(ctx context.Context) (any, error) { return env.Ops().Locks(ctx) }
	v.set = func(res any) { v.res, _ = res.(*ops.LocksResult) }
	v.lines = v.draw
	return v
}

func (v *locksView) Init() tea.Cmd { return v.load() }

func (v *locksView) Keys() []key.Binding { return v.keys() }

func (v *locksView) Update(msg tea.Msg) (View, tea.Cmd) {
	if _, ok := msg.(ChangedMsg); ok {
		return v, v.load()
	}
	cmd, _ := v.update(msg)
	return v, cmd
}

func (v *locksView) draw(width int) (head, body []string, foot string) {
	lk := lookOf(v.env.Styles)
	if v.res == nil {
		return nil, nil, ""
	}
	rows := [][]string{{"KIND", "AGE", "HOLDER", "STATE", "SESSION / RUN", "PATH"}}
	for _, l := range v.res.Locks {
		holder := "-"
		if l.PID > 0 {
			holder = fmt.Sprintf("pid %d", l.PID)
		}
		state := lk.good.Render("held")
		switch {
		case l.Stale:
			state = lk.warn.Render("stale")
		case !l.Alive:
			state = lk.bad.Render("dead")
		}
		who := l.SessionKey
		if who == "" {
			who = l.RunID
		}
		if who == "" {
			who = l.AgentID
		}
		rows = append(rows, []string{l.Kind, fmt.Sprintf("%ds", l.AgeSeconds), holder, state, who, shortPath(l.Path)})
	}
	lines := columns(rows)
	head = []string{lk.head.Render(lines[0])}
	body = lines[1:]
	if len(body) == 0 {
		head = nil
		body = []string{lk.dim.Render("no locks held")}
	}
	kinds := []string{ops.LockStore, ops.LockTranscript, ops.LockRunner}
	return head, body, fmt.Sprintf("%d lock(s) · kinds: %s", v.res.Count, strings.Join(kinds, ", "))
}

// shortPath is the end of a lock's path: its agent, directory and name
// (the state dir around them is the same for every lock).
func shortPath(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	if len(parts) <= 4 {
		return p
	}
	return "…/" + strings.Join(parts[len(parts)-3:], "/")
}
