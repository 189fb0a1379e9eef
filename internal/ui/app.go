// Package ui is the terminal UI of `sessions ui`: a live, k9s-style view of
// OpenClaw sessions over the operations layer. The app holds a stack of
// views (sessions at the bottom), draws a header and a status line around
// the top one, and feeds every view the changes ops.Watch reports.
package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/ops"
)

// WatchFunc is ops.Watch's shape: the app runs it for its whole life.
type WatchFunc func(ctx context.Context, q ops.WatchQuery, ready func(), emit func(ops.WatchEvent) error) error

// Options are what `sessions ui` was asked for.
type Options struct {
	Kinds     []string
	AllAgents bool
	// Scope describes where the sessions come from, for the header
	// ("agent main", "all agents", "context prod").
	Scope string
	// Watch is the change feed (nil: no live updates).
	Watch WatchFunc
	// Views builds the views the app opens with one key each (runs,
	// locks, doctor, usage); nil entries are left unbound.
	Views map[string]func(Env) View
}

// App is the Bubble Tea model of `sessions ui`.
type App struct {
	env   Env
	opts  Options
	stack []View
	ids   []int // ids[i] names stack[i] for the messages its commands send
	next  int

	width, height int
	status        string
	statusErr     bool
	help          bool
	helpOff       int

	ctx    context.Context
	cancel context.CancelFunc
	events chan ops.WatchEvent
	werr   chan error
	// Live: the feed has begun (ready was called); watching: it was
	// started.
	live, watching bool
}

// global keys, listed in the help.
var (
	keyQuit    = key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit (from the sessions view); leave a view"))
	keyCtrlC   = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit from anywhere"))
	keyHelp    = key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "this help (j/k scroll it, other keys close it)"))
	keyBack    = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave a view, close a filter"))
	navUp      = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up"))
	navDown    = key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down"))
	navPgUp    = key.NewBinding(key.WithKeys("pgup", "ctrl+b", "ctrl+u"), key.WithHelp("pgup/ctrl+b", "page up"))
	navPgDn    = key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "ctrl+d", "space"), key.WithHelp("pgdn/ctrl+f", "page down"))
	navHome    = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top"))
	navEnd     = key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom"))
	keyWheel   = key.NewBinding(key.WithKeys("wheel"), key.WithHelp("wheel", "scroll"))
	globalKeys = []key.Binding{keyHelp, keyQuit, keyBack, keyCtrlC, navUp, navDown, navPgUp, navPgDn, navHome, navEnd, keyWheel}
)

// viewKeys are the keys that open the other views, in help order.
var viewKeys = []struct{ key, name, help string }{
	{"R", "runs", "runs: ours and OpenClaw's sub-agent runs"},
	{"L", "locks", "locks held now"},
	{"D", "doctor", "doctor findings"},
	{"U", "usage", "usage by model and day"},
}

// NewApp builds the app on env with the sessions view at the bottom.
func NewApp(env Env, opts Options) *App {
	a := &App{env: env, opts: opts, width: 80, height: 24}
	a.stack = []View{NewSessionsView(env, SessionsOptions{Kinds: opts.Kinds, AllAgents: opts.AllAgents, Views: opts.Views})}
	a.ids = []int{0}
	a.next = 1
	return a
}

// eventsMsg carries the feed's events that arrived together.
type eventsMsg struct{ events []ops.WatchEvent }

// watchReadyMsg: the feed has begun.
type watchReadyMsg struct{}

// watchErrMsg: the feed stopped with an error.
type watchErrMsg struct{ err error }

// Init starts the bottom view; the feed starts once its listing is in
// (see maybeWatch).
func (a *App) Init() tea.Cmd {
	return a.wrap(a.ids[0], a.stack[0].Init())
}

// maybeWatch starts the feed after the first listing: each reads every
// store, and one at a time a 10,000-session store stays within the
// memory a terminal view may take. The listing is read once more when
// the feed is ready, so that nothing written in between is missed.
func (a *App) maybeWatch() tea.Cmd {
	if a.opts.Watch == nil || a.watching {
		return nil
	}
	sv, ok := a.stack[0].(*SessionsView)
	if !ok || (!sv.loaded && sv.err == nil) {
		return nil
	}
	a.watching = true
	return a.startWatch()
}

// startWatch runs the feed in the background; events reach Update through
// waitEvents, ready through watchReadyMsg.
func (a *App) startWatch() tea.Cmd {
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.events = make(chan ops.WatchEvent, 1024)
	a.werr = make(chan error, 1)
	ready := make(chan struct{})
	ctx, events, werr := a.ctx, a.events, a.werr
	go func() {
		q := ops.WatchQuery{Kinds: a.opts.Kinds, AllAgents: a.opts.AllAgents, Messages: true, Runs: true}
		var once bool
		defer func() {
			if p := recover(); p != nil && ctx.Err() == nil {
				werr <- fmt.Errorf("internal error: %v", p)
			}
		}()
		err := a.opts.Watch(ctx, q, func() {
			if !once {
				once = true
				close(ready)
			}
		}, func(ev ops.WatchEvent) error {
			select {
			case events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if ctx.Err() == nil {
			werr <- err
		}
	}()
	return tea.Batch(func() tea.Msg {
		select {
		case <-ready:
			return watchReadyMsg{}
		case <-ctx.Done():
			return nil
		}
	}, a.waitEvents())
}

// waitEvents waits for the next events (all that are queued, at most 512)
// or the feed's end.
func (a *App) waitEvents() tea.Cmd {
	ctx, events, werr := a.ctx, a.events, a.werr
	return func() tea.Msg {
		select {
		case ev := <-events:
			batch := []ops.WatchEvent{ev}
		drain:
			for len(batch) < 512 {
				select {
				case ev := <-events:
					batch = append(batch, ev)
				default:
					break drain
				}
			}
			return eventsMsg{batch}
		case err := <-werr:
			return watchErrMsg{err}
		case <-ctx.Done():
			return nil
		}
	}
}

// Stop ends the feed and what the open views follow (the program has
// ended, or is ending).
func (a *App) Stop() {
	if a.cancel != nil {
		a.cancel()
	}
	for _, v := range a.stack {
		if c, ok := v.(interface{ Close() }); ok {
			c.Close()
		}
	}
}

func (a *App) top() View { return a.stack[len(a.stack)-1] }

// Update routes a message: global keys first, then the top view.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		return a, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, keyCtrlC) {
			a.Stop()
			return a, tea.Quit
		}
		if a.help {
			switch {
			case key.Matches(msg, navDown):
				a.helpOff++
			case key.Matches(msg, navUp):
				a.helpOff = max(0, a.helpOff-1)
			default:
				a.help, a.helpOff = false, 0
			}
			return a, nil
		}
		if !a.top().Capturing() {
			switch {
			case key.Matches(msg, keyHelp):
				a.help = true
				return a, nil
			case key.Matches(msg, keyQuit) && len(a.stack) == 1:
				a.Stop()
				return a, tea.Quit
			}
			if len(a.stack) == 1 {
				for _, vk := range viewKeys {
					if msg.String() == vk.key {
						if mk := a.opts.Views[vk.name]; mk != nil {
							return a.push(mk(a.env))
						}
					}
				}
			}
		}
		if a.status != "" && !a.statusErr {
			a.status = "" // a key press clears a notice (errors stay until the next message)
		}
	case tea.MouseWheelMsg:
		if a.help {
			return a, nil
		}
		m := msg.Mouse()
		var k tea.KeyPressMsg
		switch m.Button {
		case tea.MouseWheelUp:
			k = tea.KeyPressMsg{Code: tea.KeyUp}
		case tea.MouseWheelDown:
			k = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			return a, nil
		}
		// Three lines a notch, as terminals scroll.
		var cmds []tea.Cmd
		for range 3 {
			cmds = append(cmds, a.updateTop(k))
		}
		return a, tea.Batch(cmds...)
	case PopMsg:
		if len(a.stack) > 1 {
			if c, ok := a.top().(interface{ Close() }); ok {
				c.Close()
			}
			a.stack = a.stack[:len(a.stack)-1]
			a.ids = a.ids[:len(a.ids)-1]
		}
		return a, nil
	case PushMsg:
		return a.push(msg.View)
	case routedMsg:
		return a, tea.Batch(a.deliver(msg), a.maybeWatch())
	case StatusMsg:
		a.status, a.statusErr = msg.Text, msg.Err
		return a, nil
	case watchReadyMsg:
		a.live = true
		if sv, ok := a.stack[0].(*SessionsView); ok && sv.loaded {
			return a, a.wrap(a.ids[0], sv.load())
		}
		return a, nil
	case watchErrMsg:
		a.live = false
		if msg.err != nil {
			a.status, a.statusErr = "live updates stopped: "+msg.err.Error(), true
		}
		return a, nil
	case eventsMsg:
		var cmds []tea.Cmd
		for _, ev := range msg.events {
			for i, v := range a.stack {
				nv, cmd := v.Update(ChangedMsg{Event: ev})
				a.stack[i] = nv
				cmds = append(cmds, a.wrap(a.ids[i], cmd))
			}
		}
		cmds = append(cmds, a.waitEvents())
		return a, tea.Batch(cmds...)
	}
	return a, a.updateTop(msg)
}

func (a *App) push(v View) (tea.Model, tea.Cmd) {
	if v == nil {
		return a, nil
	}
	a.stack = append(a.stack, v)
	a.ids = append(a.ids, a.next)
	a.next++
	return a, a.wrap(a.ids[len(a.ids)-1], v.Init())
}

func (a *App) updateTop(msg tea.Msg) tea.Cmd {
	return a.updateAt(len(a.stack)-1, msg)
}

// updateAt gives msg to the view at stack position i.
// A panic in the view is an error on the status line: nothing a view
// does ends the UI.
func (a *App) updateAt(i int, msg tea.Msg) (cmd tea.Cmd) {
	defer func() {
		if p := recover(); p != nil {
			a.status, a.statusErr, cmd = fmt.Sprintf("internal error: %v", p), true, nil
		}
	}()
	nv, cmd := a.stack[i].Update(msg)
	if nv != nil {
		a.stack[i] = nv
	}
	return a.wrap(a.ids[i], cmd)
}

// routedMsg is a message a view's command sent: it goes back to that view,
// wherever it is in the stack (a dialog on top does not swallow what the
// view below it follows), and nowhere once the view is closed.
type routedMsg struct {
	id  int
	msg tea.Msg
}

// wrap tags what cmd sends with the view id. The app's own messages (push,
// pop, status) and Bubble Tea's (quit, batches, …) are not tagged: the
// app and the program handle those.
func (a *App) wrap(id int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (out tea.Msg) {
		defer func() {
			if p := recover(); p != nil {
				out = StatusMsg{Text: fmt.Sprintf("internal error: %v", p), Err: true}
			}
		}()
		msg := cmd()
		switch m := msg.(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(m))
			for i, c := range m {
				out[i] = a.wrap(id, c)
			}
			return out
		case PopMsg, PushMsg, StatusMsg:
			return msg
		}
		if t := reflect.TypeOf(msg); t.PkgPath() == teaPkg || (t.Kind() == reflect.Pointer && t.Elem().PkgPath() == teaPkg) {
			return msg
		}
		return routedMsg{id: id, msg: msg}
	}
}

var teaPkg = reflect.TypeOf(tea.QuitMsg{}).PkgPath()

// deliver gives a routed message to its view, if it is still open.
func (a *App) deliver(m routedMsg) tea.Cmd {
	for i, id := range a.ids {
		if id == m.id {
			return a.updateAt(i, m.msg)
		}
	}
	return nil
}

// View draws the frame: header, the top view, the status line.
func (a *App) View() tea.View {
	v := tea.NewView(a.Frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "sessions ui"
	return v
}

// Frame is the screen as text (styled): what View shows.
func (a *App) Frame() string {
	w, h := max(a.width, 20), max(a.height, 5)
	body := a.render(w, h-2)
	if a.help {
		body = a.renderHelp(w, h-2)
	}
	return a.header(w) + "\n" + fit(body, w, h-2) + "\n" + a.statusLine(w)
}

// render draws the top view; a panic in it is drawn as an error.
func (a *App) render(w, h int) (body string) {
	defer func() {
		if p := recover(); p != nil {
			body = a.env.Styles.StatusErr.Render(fmt.Sprintf(" internal error drawing %s: %v (esc goes back)", a.top().Title(), p))
		}
	}()
	return a.top().Render(w, h)
}

func (a *App) header(w int) string {
	st := a.env.Styles
	var crumbs []string
	for _, v := range a.stack {
		crumbs = append(crumbs, v.Title())
	}
	left := " " + strings.Join(crumbs, " › ")
	right := a.opts.Scope
	if a.opts.Watch != nil {
		if a.live {
			right += " · live"
		} else {
			right += " · starting"
		}
	}
	right += " · ? help "
	pad := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if pad < 1 {
		left = ansi.Truncate(left, max(0, w-ansi.StringWidth(right)-1), "…")
		pad = w - ansi.StringWidth(left) - ansi.StringWidth(right)
		if pad < 1 {
			return st.Header.Render(ansi.Truncate(left, w, "…") + strings.Repeat(" ", max(0, w-ansi.StringWidth(ansi.Truncate(left, w, "…")))))
		}
	}
	return st.Header.Render(left + strings.Repeat(" ", pad) + right)
}

func (a *App) statusLine(w int) string {
	st := a.env.Styles
	if a.status == "" {
		return st.Dim.Render(ansi.Truncate(" "+hint(a.top()), w, "…"))
	}
	s := ansi.Truncate(" "+flat(a.status), w, "…")
	if a.statusErr {
		return st.StatusErr.Render(s)
	}
	return st.Status.Render(s)
}

// hint is the status line's default: the view's first keys.
func hint(v View) string {
	var parts []string
	for _, b := range v.Keys() {
		h := b.Help()
		if h.Key == "" {
			continue
		}
		parts = append(parts, h.Key+" "+firstWord(h.Desc))
		if len(parts) == 6 {
			break
		}
	}
	if t, ok := v.(interface{ TypesEveryKey() bool }); !ok || !t.TypesEveryKey() {
		parts = append(parts, "? help")
	}
	return strings.Join(parts, " · ")
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " :,("); i > 0 {
		return s[:i]
	}
	return s
}

// renderHelp lists every binding: the top view's, the views one key
// opens, and the global ones.
func (a *App) renderHelp(w, h int) string {
	st := a.env.Styles
	var lines []string
	section := func(title string, bs []key.Binding) {
		if len(bs) == 0 {
			return
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.Title.Render(title))
		for _, b := range bs {
			hp := b.Help()
			if hp.Key == "" {
				continue
			}
			lines = append(lines, "  "+st.Key.Render(padRight(hp.Key, 14))+" "+hp.Desc)
		}
	}
	section(a.top().Title(), a.top().Keys())
	if len(a.stack) == 1 {
		var vb []key.Binding
		for _, vk := range viewKeys {
			if a.opts.Views[vk.name] != nil {
				vb = append(vb, key.NewBinding(key.WithKeys(vk.key), key.WithHelp(vk.key, vk.help)))
			}
		}
		section("views", vb)
	}
	section("everywhere", globalKeys)
	lines = append(lines, "", st.Dim.Render("↑/↓ j/k scroll this help · any other key closes it"))
	if len(lines) <= h {
		a.helpOff = 0
		return strings.Join(lines, "\n")
	}
	off := min(a.helpOff, len(lines)-(h-1))
	a.helpOff = off
	more := st.Dim.Render("↓ more: j/k scroll")
	if off+h-1 >= len(lines) {
		more = st.Dim.Render("↑ j/k scroll")
	}
	return strings.Join(lines[off:off+h-1], "\n") + "\n" + more
}

// fit cuts or pads s to exactly h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// flat folds whitespace runs (newlines too) to single spaces.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
