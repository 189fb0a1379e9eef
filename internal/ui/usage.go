package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// usageView shows the usage OpenClaw recorded, by model, by day, or by day
// and model (tab goes round them), for every agent the requester may see
// (only --agent's when one was given).
type usageView struct {
	*pager
	by  int
	res *ops.UsageResult
}

// usageBy are the roll-ups the usage view goes round.
var usageBy = [][]string{{"model"}, {"day"}, {"day", "model"}}

var keyUsageBy = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "by model / day / day and model"))

// NewUsageView is the usage view.
func NewUsageView(env Env) View {
	v := &usageView{pager: newPager(env, "usage")}
	v.query()
	v.set = func(res any) { v.res, _ = res.(*ops.UsageResult) }
	v.lines = v.draw
	return v
}

// query makes the next load roll up by the chosen dimensions.
func (v *usageView) query() {
	by, env := usageBy[v.by], v.env
	v.fetch = func(ctx context.Context) (any, error) {
		o := env.Ops()
		return o.Usage(ctx, ops.UsageQuery{By: by, AllAgents: o.Config().Agent == ""})
	}
}

func (v *usageView) Init() tea.Cmd { return v.load() }

func (v *usageView) Keys() []key.Binding { return append([]key.Binding{keyUsageBy}, v.keys()...) }

func (v *usageView) Update(msg tea.Msg) (View, tea.Cmd) {
	if m, ok := msg.(tea.KeyPressMsg); ok && key.Matches(m, keyUsageBy) {
		v.by = (v.by + 1) % len(usageBy)
		v.query()
		v.loaded, v.res, v.loading = false, nil, false
		v.vp.GotoTop()
		return v, v.load()
	}
	cmd, _ := v.update(msg)
	return v, cmd
}

func (v *usageView) draw(width int) (head, body []string, foot string) {
	lk := lookOf(v.env.Styles)
	r := v.res
	if r == nil {
		return nil, nil, ""
	}
	dims := usageBy[v.by]
	top := make([]string, 0, len(dims)+7)
	for _, d := range dims {
		top = append(top, strings.ToUpper(d))
	}
	top = append(top, "MSGS", "INPUT", "OUTPUT", "CACHE R", "CACHE W", "TOTAL", "COST $")
	rows := [][]string{top}
	cells := func(keys []string, t ops.UsageTotals) []string {
		row := append([]string{}, keys...)
		return append(row, thousands(t.Messages), thousands(t.Input), thousands(t.Output),
			thousands(t.CacheRead), thousands(t.CacheWrite), thousands(t.Total), fmt.Sprintf("%.4f", t.CostUSD))
	}
	for _, row := range r.Rows {
		keys := row.Keys
		if len(keys) != len(dims) {
			keys = make([]string, len(dims))
			copy(keys, row.Keys)
		}
		rows = append(rows, cells(keys, row.Totals))
	}
	total := make([]string, len(dims))
	total[0] = "TOTAL"
	rows = append(rows, cells(total, r.Totals))
	lines := columnsRight(rows, len(dims))
	head = []string{lk.head.Render(lines[0])}
	body = lines[1 : len(lines)-1]
	if len(body) == 0 {
		body = []string{lk.dim.Render("no usage recorded")}
	}
	body = append(body, lk.label.Render(lines[len(lines)-1]))
	return head, body, fmt.Sprintf("by %s · %d row(s) from %d file(s) · tab for another roll-up",
		strings.Join(dims, " and "), r.Count, r.Files.Total)
}

// columnsRight lays rows out as columns: the first left cells to the left,
// the numbers after them to the right.
func columnsRight(rows [][]string, left int) []string {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", w[i]-len([]rune(c)))
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}
