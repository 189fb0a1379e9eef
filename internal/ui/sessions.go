package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/ui/textinput"
)

// SessionsOptions scope the sessions view like list's flags.
type SessionsOptions struct {
	Kinds     []string
	AllAgents bool
	Views     map[string]func(Env) View
}

// SessionsView is the start: every session of the scope, live.
type SessionsView struct {
	env  Env
	opts SessionsOptions

	list       sessionList
	cursor     int // position among the shown rows
	offset     int // first shown row drawn
	selected   string
	loaded     bool
	err        error
	multiAgent bool
	fleet      bool
	busy       map[string]bool // rowID → an OpenClaw run holds the transcript
	busyAsked  bool            // a busy refresh is scheduled or running
	busyAgain  bool            // changes came while it ran
	noBusy     bool            // locks cannot be read here (a gateway)

	moved bool // rows changed since the cursor last found its row

	filter    textinput.Model
	filtering bool
	page      int // rows on the last drawn page
}

var (
	keyOpen     = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the session"))
	keyFilter   = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by key, label, name (enter keeps, esc clears)"))
	keySort     = key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort: updated → key → tokens"))
	keyReload   = key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reload the listing"))
	sessionKeys = []key.Binding{keyOpen, keyFilter, keySearchAll, keySort, keyReload}
)

// NewSessionsView builds the sessions view; Init loads the listing.
func NewSessionsView(env Env, opts SessionsOptions) *SessionsView {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "key, label or name"
	ti.SetVirtualCursor(true)
	return &SessionsView{env: env, opts: opts, filter: ti, busy: map[string]bool{}, page: 10}
}

type sessionsLoadedMsg struct {
	res *ops.ListResult
	err error
}

type busyMsg struct {
	busy map[string]bool
	err  error
}

type busyTickMsg struct{}

// Init loads the listing; what is busy is read once it is drawn (the
// first frame waits for nothing else).
func (v *SessionsView) Init() tea.Cmd {
	v.busyAsked = true
	return v.load()
}

func (v *SessionsView) load() tea.Cmd {
	env, q := v.env, ops.ListQuery{Kinds: v.opts.Kinds, Limit: -1, AllAgents: v.opts.AllAgents}
	return func() tea.Msg {
		res, err := env.Ops().List(context.Background(), q)
		return sessionsLoadedMsg{res, err}
	}
}

// loadBusy reads the held transcript locks: a live, fresh one means an
// OpenClaw run is writing that session now.
func (v *SessionsView) loadBusy() tea.Cmd {
	env := v.env
	return func() tea.Msg {
		res, err := env.Ops().Locks(context.Background())
		if err != nil {
			return busyMsg{err: err}
		}
		busy := map[string]bool{}
		for _, l := range res.Locks {
			if l.Kind == ops.LockTranscript && l.Alive && !l.Stale && l.SessionKey != "" {
				busy[rowID("", l.AgentID, l.SessionKey)] = true
			}
		}
		return busyMsg{busy: busy}
	}
}

// Title names the view with its counts: shown of total.
func (v *SessionsView) Title() string {
	if !v.loaded {
		return "sessions"
	}
	shown := len(v.list.view())
	s := fmt.Sprintf("sessions %d", len(v.list.rows))
	if v.list.query != "" {
		s = fmt.Sprintf("sessions %d of %d", shown, len(v.list.rows))
	}
	return s + " · by " + v.list.sort.String()
}

// Keys are the view's own bindings.
func (v *SessionsView) Keys() []key.Binding {
	return append(append([]key.Binding{}, sessionKeys...), actionBindings()...)
}

// Capturing: the filter has the keys.
func (v *SessionsView) Capturing() bool { return v.filtering }

// Selected is the row under the cursor (nil: none).
func (v *SessionsView) Selected() *ops.Row {
	v.settle()
	shown := v.list.view()
	if v.cursor < 0 || v.cursor >= len(shown) {
		return nil
	}
	return &v.list.rows[shown[v.cursor]]
}

// Update handles keys, the listing, busy and the feed's changes.
func (v *SessionsView) Update(msg tea.Msg) (View, tea.Cmd) {
	switch msg := msg.(type) {
	case sessionsLoadedMsg:
		if msg.err != nil {
			v.err = msg.err
			return v, status(msg.err.Error(), true)
		}
		v.err = nil
		first := !v.loaded
		v.loaded = true
		v.multiAgent, v.fleet = msg.res.MultiAgent || v.opts.AllAgents, msg.res.Fleet
		v.list.set(msg.res.Sessions)
		v.reselect()
		var busy tea.Cmd
		if first || !v.busyAsked {
			v.busyAsked = true
			busy = v.loadBusy()
		}
		if msg.res.Errors != nil && len(*msg.res.Errors) > 0 {
			var hosts []string
			for _, e := range *msg.res.Errors {
				hosts = append(hosts, e.Context)
			}
			return v, tea.Batch(busy, status("some contexts failed: "+strings.Join(hosts, ", "), true))
		}
		return v, busy
	case busyMsg:
		v.busyAsked = false
		if msg.err != nil {
			v.noBusy = true
			return v, nil
		}
		v.busy = msg.busy
		if v.busyAgain {
			v.busyAgain = false
			return v, v.scheduleBusy()
		}
		return v, nil
	case busyTickMsg:
		return v, v.loadBusy()
	case ChangedMsg:
		changed := v.list.apply(msg.Event)
		if changed {
			if v.fleet || msg.Event.Context != "" {
				v.fleet = true
			}
			// the cursor finds its row again when it is next drawn or
			// moved: a burst of changes sorts the rows once
			v.moved = true
		}
		if changed || msg.Event.Kind == "message" || msg.Event.Kind == "run" {
			return v, v.scheduleBusy()
		}
		return v, nil
	case tea.KeyPressMsg:
		if v.filtering {
			return v, v.filterKey(msg)
		}
		return v, v.key(msg)
	}
	if v.filtering {
		var cmd tea.Cmd
		v.filter, cmd = v.filter.Update(msg)
		return v, cmd
	}
	return v, nil
}

// scheduleBusy re-reads the locks a little after a change (one read for a
// burst of changes).
func (v *SessionsView) scheduleBusy() tea.Cmd {
	if v.noBusy {
		return nil
	}
	if v.busyAsked {
		v.busyAgain = true
		return nil
	}
	v.busyAsked = true
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return busyTickMsg{} })
}

func (v *SessionsView) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		v.filtering = false
		v.filter.Blur()
		return nil
	case "esc":
		v.filtering = false
		v.filter.Blur()
		v.filter.SetValue("")
		v.list.setQuery("")
		v.reselect()
		return nil
	case "up", "down", "pgup", "pgdown":
		return v.key(msg)
	}
	var cmd tea.Cmd
	v.filter, cmd = v.filter.Update(msg)
	v.list.setQuery(v.filter.Value())
	v.cursor, v.offset = 0, 0
	v.remember()
	return cmd
}

func (v *SessionsView) key(msg tea.KeyPressMsg) tea.Cmd {
	v.settle()
	n := len(v.list.view())
	switch {
	case key.Matches(msg, navUp):
		v.move(-1)
	case key.Matches(msg, navDown):
		v.move(1)
	case key.Matches(msg, navPgUp):
		v.move(-max(1, v.page-1))
	case key.Matches(msg, navPgDn):
		v.move(max(1, v.page-1))
	case key.Matches(msg, navHome):
		v.move(-n)
	case key.Matches(msg, navEnd):
		v.move(n)
	case key.Matches(msg, keyFilter):
		v.filtering = true
		return v.filter.Focus()
	case key.Matches(msg, keyBack):
		if v.list.query != "" {
			v.filter.SetValue("")
			v.list.setQuery("")
			v.reselect()
		}
	case key.Matches(msg, keySort):
		v.list.setSort((v.list.sort + 1) % 3)
		v.reselect()
	case key.Matches(msg, keyReload):
		v.busyAsked = true
		return tea.Batch(v.load(), status("reading the listing again…", false))
	case key.Matches(msg, keyOpen):
		if r := v.Selected(); r != nil {
			return push(NewSessionView(v.env, *r))
		}
	case key.Matches(msg, keySearchAll):
		return push(NewSearchView(v.env, SearchOptions{Kinds: v.opts.Kinds, AllAgents: v.opts.AllAgents, Row: v.row}))
	default:
		if r := v.Selected(); r != nil {
			return runAction(v.env, msg, r)
		}
	}
	return nil
}

func (v *SessionsView) move(d int) {
	n := len(v.list.view())
	v.cursor = max(0, min(n-1, v.cursor+d))
	v.remember()
}

// row is the listed row of a session of this host (nil: not listed).
func (v *SessionsView) row(agentID, key string) *ops.Row {
	for i := range v.list.rows {
		if r := &v.list.rows[i]; r.Context == "" && r.AgentID == agentID && r.Key == key {
			c := *r
			return &c
		}
	}
	return nil
}

// remember keeps the selected row's identity, so the cursor stays on it
// when rows come, go or move.
func (v *SessionsView) remember() {
	if r := v.Selected(); r != nil {
		v.selected = rowID(r.Context, r.AgentID, r.Key)
	}
}

// reselect puts the cursor back on the remembered row (or keeps its
// position when that row went).
func (v *SessionsView) reselect() {
	if v.selected != "" {
		if p := v.list.find(v.selected); p >= 0 {
			v.cursor = p
			return
		}
	}
	n := len(v.list.view())
	v.cursor = max(0, min(v.cursor, n-1))
	v.remember()
}

// column is one column of the table.
type column struct {
	name  string
	cell  func(r *ops.Row) string
	style func(s string) string // nil: plain
	flex  bool                  // may shrink (to minFlex)
	drop  int                   // 0: never dropped; lower drops first
	right bool
	w     int
}

const minFlex = 8

func (v *SessionsView) columns(short bool) []*column {
	now := v.env.Now()
	st := v.env.Styles
	var cols []*column
	if v.fleet {
		cols = append(cols, &column{name: "CONTEXT", cell: func(r *ops.Row) string { return r.Context }, drop: 9})
	}
	cols = append(cols, &column{name: "KEY", cell: func(r *ops.Row) string { return r.Key }})
	cols = append(cols, &column{name: "KIND", cell: func(r *ops.Row) string { return r.Kind }, drop: 5})
	cols = append(cols, &column{name: "CHANNEL", cell: func(r *ops.Row) string { return r.Channel }, drop: 3, flex: true})
	if v.multiAgent {
		cols = append(cols, &column{name: "AGENT", cell: func(r *ops.Row) string { return r.AgentID }, drop: 1})
	}
	cols = append(cols,
		&column{name: "UPDATED", cell: func(r *ops.Row) string { return cells.AgoMs(r.UpdatedAt, now) }, drop: 7},
		&column{name: "MODEL", cell: func(r *ops.Row) string { return r.Model }, drop: 2, flex: true},
		&column{name: "TOKENS", cell: func(r *ops.Row) string {
			if short {
				return shortTokens(r.TotalTokens, r.ContextTokens)
			}
			return cells.Tokens(r.TotalTokens, r.ContextTokens)
		}, drop: 6, right: true},
		&column{name: "LABEL", cell: func(r *ops.Row) string {
			if r.Label != "" {
				return r.Label
			}
			return r.DisplayName
		}, drop: 4, flex: true},
	)
	if !v.noBusy {
		// before the label; over a gateway there are no locks to tell it
		busy := []*column{
			&column{name: "BUSY", cell: func(r *ops.Row) string {
				if v.busy[rowID("", r.AgentID, r.Key)] && r.Context == "" {
					return "busy"
				}
				return ""
			}, style: func(s string) string { return st.Busy.Render(s) }, drop: 8},
		}
		cols = append(cols[:len(cols)-1], append(busy, cols[len(cols)-1])...)
	}
	return cols
}

// settle puts the cursor back on its row after changes.
func (v *SessionsView) settle() {
	if v.moved {
		v.moved = false
		v.reselect()
	}
}

// Render draws the table (the rows around the cursor) and the filter line.
func (v *SessionsView) Render(width, height int) string {
	v.settle()
	st := v.env.Styles
	if !v.loaded {
		if v.err != nil {
			return st.StatusErr.Render(" cannot list the sessions: " + flat(v.err.Error()))
		}
		return st.Dim.Render(" reading the sessions…")
	}
	shown := v.list.view()
	footer := ""
	if v.filtering {
		footer = v.filter.View()
	} else if v.list.query != "" {
		footer = st.Dim.Render("filter: " + v.list.query + "  (/ to change, esc to clear)")
	}
	rowsH := height - 1
	if footer != "" {
		rowsH--
	}
	rowsH = max(1, rowsH)
	v.page = rowsH
	if len(shown) == 0 {
		msg := " No sessions."
		if v.list.query != "" {
			msg = " No session matches the filter."
		}
		out := st.Dim.Render(msg)
		if footer != "" {
			out = fit(out, width, height-1) + "\n" + footer
		}
		return out
	}
	// The window keeps the cursor in view.
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+rowsH {
		v.offset = v.cursor - rowsH + 1
	}
	v.offset = max(0, min(v.offset, len(shown)-rowsH))
	end := min(len(shown), v.offset+rowsH)

	// Tokens take their short form, then the gaps narrow, before any
	// column has to go.
	var cols []*column
	var cells [][]string
	var keep []bool
	gap := 2
	for _, try := range []struct {
		short bool
		gap   int
	}{{false, 2}, {true, 2}, {true, 1}} {
		short := try.short
		gap = try.gap
		cols = v.columns(short)
		cells = make([][]string, end-v.offset)
		for i := range cols {
			cols[i].w = ansi.StringWidth(cols[i].name)
		}
		for i := v.offset; i < end; i++ {
			r := &v.list.rows[shown[i]]
			row := make([]string, len(cols))
			for j, c := range cols {
				row[j] = flat(c.cell(r))
				cols[j].w = max(cols[j].w, ansi.StringWidth(row[j]))
			}
			cells[i-v.offset] = row
		}
		keep = layout(cols, width, gap)
		if !slices.Contains(keep, false) {
			break
		}
	}

	var b strings.Builder
	var head []string
	for j, c := range cols {
		if keep[j] {
			head = append(head, cellText(c.name, c.w, c.right))
		}
	}
	b.WriteString(st.TableHead.Render(ansi.Truncate(" "+strings.Join(head, strings.Repeat(" ", gap)), width, "")))
	for i, row := range cells {
		var parts []string
		for j, c := range cols {
			if !keep[j] {
				continue
			}
			s := cellText(row[j], c.w, c.right)
			if c.style != nil && row[j] != "" && v.offset+i != v.cursor {
				s = c.style(s)
			}
			parts = append(parts, s)
		}
		line := " " + strings.Join(parts, strings.Repeat(" ", gap))
		b.WriteByte('\n')
		if v.offset+i == v.cursor {
			b.WriteString(st.Selected.Render(padRight(ansi.Truncate(line, width, "…"), width)))
		} else {
			b.WriteString(ansi.Truncate(line, width, "…"))
		}
	}
	out := b.String()
	if footer != "" {
		out = fit(out, width, height-1) + "\n" + footer
	}
	return out
}

// layout fits the columns in width: columns drop (lowest drop rank
// first) until the rest fit with the flexible ones at their least, then
// the flexible ones shrink, the widest first, as far as needed. The key is
// never cut unless alone it is too wide. It reports which columns are kept.
func layout(cols []*column, width, gap int) []bool {
	keep := make([]bool, len(cols))
	for i := range keep {
		keep[i] = true
	}
	total := func(least bool) int {
		t, n := 1, 0
		for i, c := range cols {
			if !keep[i] {
				continue
			}
			w := c.w
			if least && c.flex {
				w = min(w, minFlex)
			}
			t += w
			n++
		}
		return t + gap*max(0, n-1)
	}
	for total(true) > width {
		best := -1
		for i, c := range cols {
			if keep[i] && c.drop > 0 && (best < 0 || c.drop < cols[best].drop) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		keep[best] = false
	}
	for over := total(false) - width; over > 0; over-- {
		widest := -1
		for i, c := range cols {
			if keep[i] && c.flex && c.w > minFlex && (widest < 0 || c.w > cols[widest].w) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		cols[widest].w--
	}
	return keep
}

// cellText cuts or pads s to w cells.
func cellText(s string, w int, right bool) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if right {
		if n := ansi.StringWidth(s); n < w {
			return strings.Repeat(" ", w-n) + s
		}
		return s
	}
	return padRight(s, w)
}

// shortTokens: "6.1k 4%", the tokens on a narrow screen.
func shortTokens(total, ctx *float64) string {
	full := cells.Tokens(total, ctx)
	if i := strings.IndexByte(full, '/'); i >= 0 {
		pct := full[strings.LastIndexByte(full, '(')+1 : len(full)-1]
		return full[:i] + " " + pct
	}
	return full
}

// push is a command that opens a view.
func push(v View) tea.Cmd {
	return func() tea.Msg { return PushMsg{View: v} }
}
