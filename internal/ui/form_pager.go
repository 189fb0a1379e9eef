package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// pager is what the read-only views (runs, locks, doctor, usage) share: an
// operation loaded off the UI loop (again on r, and on the feed's changes
// when the view says so, one load at a time), a fixed head, a scrolling
// body (arrows and vim keys, PgUp/PgDn, Home/End, the mouse wheel,
// h/l sideways for wide rows) and a foot line.
type pager struct {
	env   Env
	title string
	vp    viewport.Model

	fetch func(ctx context.Context) (any, error)
	set   func(res any)
	// lines draws the loaded result for a width: the fixed head, the
	// scrolling body, the foot.
	lines func(width int) (head, body []string, foot string)

	loaded  bool
	loading bool
	dirty   bool // asked to load again while a load ran
	errText string
	gen     int
}

type pagerLoaded struct {
	p   *pager
	gen int
	res any
	err error
}

var (
	keyUp      = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up"))
	keyDown    = key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down"))
	keyPgUp    = key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up"))
	keyPgDown  = key.NewBinding(key.WithKeys("pgdown", "f", "space"), key.WithHelp("pgdn/f", "page down"))
	keyHome    = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top"))
	keyEnd     = key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom"))
	keySide    = key.NewBinding(key.WithKeys("left", "h", "right", "l"), key.WithHelp("←/h →/l", "scroll sideways"))
	keyRefresh = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
	keyLeave   = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "back"))
)

func newPager(env Env, title string) *pager {
	vp := viewport.New()
	vp.KeyMap.PageDown = keyPgDown
	vp.KeyMap.PageUp = keyPgUp
	vp.KeyMap.HalfPageDown = key.NewBinding(key.WithKeys("ctrl+d"))
	vp.KeyMap.HalfPageUp = key.NewBinding(key.WithKeys("ctrl+u"))
	vp.SetHorizontalStep(8)
	return &pager{env: env, title: title, vp: vp}
}

func (p *pager) Title() string { return p.title }

func (p *pager) Capturing() bool { return false }

func (p *pager) keys() []key.Binding {
	return []key.Binding{keyUp, keyDown, keyPgUp, keyPgDown, keyHome, keyEnd, keySide, keyRefresh, keyLeave}
}

// load starts a load unless one runs (then one more follows it).
func (p *pager) load() tea.Cmd {
	if p.loading {
		p.dirty = true
		return nil
	}
	p.loading, p.dirty = true, false
	p.gen++
	gen, fetch := p.gen, p.fetch
	return func() tea.Msg {
		res, err := guarded(context.Background(), fetch)
		return pagerLoaded{p: p, gen: gen, res: res, err: err}
	}
}

// update handles what every read-only view handles; ok false: not its.
func (p *pager) update(msg tea.Msg) (tea.Cmd, bool) {
	switch m := msg.(type) {
	case pagerLoaded:
		if m.p != p || m.gen != p.gen {
			return nil, true
		}
		p.loading = false
		var cmd tea.Cmd
		if m.err != nil {
			p.errText = m.err.Error()
			cmd = status(p.title+": "+m.err.Error(), true)
		} else {
			p.errText = ""
			p.loaded = true
			p.set(m.res)
		}
		if p.dirty {
			cmd = tea.Batch(cmd, p.load())
		}
		return cmd, true
	case tea.KeyPressMsg:
		switch {
		case key.Matches(m, keyLeave):
			return pop, true
		case key.Matches(m, keyRefresh):
			// r always loads: even if an answer went astray
			p.loading = false
			return p.load(), true
		case key.Matches(m, keyHome):
			p.vp.GotoTop()
			return nil, true
		case key.Matches(m, keyEnd):
			p.vp.GotoBottom()
			return nil, true
		}
		p.vp, _ = p.vp.Update(m)
		return nil, true
	case tea.MouseWheelMsg:
		p.vp, _ = p.vp.Update(m)
		return nil, true
	}
	return nil, false
}

func (p *pager) Render(width, height int) string {
	lk := lookOf(p.env.Styles)
	if width <= 0 || height <= 0 {
		return ""
	}
	if !p.loaded {
		msg := "loading…"
		if p.errText != "" {
			msg = lk.bad.Render("error: "+p.errText) + lk.dim.Render(" · r to try again")
		}
		return frame([]string{msg}, width, height)
	}
	head, body, foot := p.lines(width)
	if p.errText != "" {
		foot = lk.bad.Render("error: " + p.errText)
	}
	rest := height - len(head) - 1
	if rest < 1 {
		// too small for the head: the body alone
		head, rest = nil, height-1
	}
	if rest < 1 {
		return frame([]string{foot}, width, height)
	}
	p.vp.SetWidth(width)
	p.vp.SetHeight(rest)
	p.vp.SetContentLines(body)
	if n := len(body); n > rest {
		foot = fmt.Sprintf("%d–%d of %d · ", p.vp.YOffset()+1, min(n, p.vp.YOffset()+rest), n) + foot
	}
	out := append(append([]string{}, head...), strings.Split(p.vp.View(), "\n")...)
	out = append(out, lk.dim.Render(foot))
	return frame(out, width, height)
}

// ago is how long before now t was, in one unit ("3m", "5h", "2d").
func ago(now time.Time, ms int64) string {
	if ms <= 0 {
		return "-"
	}
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// columns lays rows out in columns as wide as their widest cell (the last
// one as it comes), two spaces apart.
func columns(rows [][]string) []string {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			if i < len(r)-1 {
				w[i] = max(w[i], ansi.StringWidth(c))
			}
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(r)-1 {
				b.WriteString(padRight(c, w[i]))
			} else {
				b.WriteString(c)
			}
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
