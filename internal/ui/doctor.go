package ui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// doctorView shows what `sessions doctor` finds, read-only: each finding
// with its path, what it means and the command that repairs it.
type doctorView struct {
	*pager
	res *ops.DoctorResult
}

// NewDoctorView is the doctor view.
func NewDoctorView(env Env) View {
	v := &doctorView{pager: newPager(env, "doctor")}
	v.fetch = func(ctx context.Context) (any, error) { return env.Ops().Doctor(ctx, ops.DoctorRequest{}) }
	v.set = func(res any) { v.res, _ = res.(*ops.DoctorResult) }
	v.lines = v.draw
	return v
}

func (v *doctorView) Init() tea.Cmd { return v.load() }

func (v *doctorView) Keys() []key.Binding { return v.keys() }

func (v *doctorView) Update(msg tea.Msg) (View, tea.Cmd) {
	cmd, _ := v.update(msg)
	return v, cmd
}

func (v *doctorView) draw(width int) (head, body []string, foot string) {
	lk := lookOf(v.env.Styles)
	r := v.res
	if r == nil {
		return nil, nil, ""
	}
	c := r.Counts
	head = []string{lk.title.Render(fmt.Sprintf("%d error(s) · %d warning(s) · %d info · %d fixable with sessions doctor --fix", c.Errors, c.Warnings, c.Infos, c.Fixable))}
	if len(r.Findings) == 0 {
		body = append(body, lk.good.Render("No problems found."))
	}
	for i, f := range r.Findings {
		if i > 0 {
			body = append(body, "")
		}
		sev := f.Severity
		switch sev {
		case ops.DoctorSevError:
			sev = lk.bad.Render(sev)
		case ops.DoctorSevWarning:
			sev = lk.warn.Render(sev)
		}
		where := f.Path
		if f.SessionKey != "" {
			where = f.SessionKey + "  " + lk.dim.Render(f.Path)
		}
		body = append(body, sev+"  "+lk.label.Render(f.Check)+"  "+where)
		for _, l := range wrap(f.Message, max(10, width-4)) {
			body = append(body, "    "+l)
		}
		if f.Fix != "" {
			body = append(body, "    "+lk.dim.Render("fix: ")+f.Fix)
		}
	}
	return head, body, "checked " + r.Size
}
