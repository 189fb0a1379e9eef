package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
)

// loadedApp is an app whose sessions view has its listing.
func loadedApp(t *testing.T, opts Options) (*App, Env) {
	t.Helper()
	env, _ := testEnv(t, "state-2026.1.30")
	opts.AllAgents = true
	a := NewApp(env, opts)
	sv := a.stack[0].(*SessionsView)
	a.Update(sv.load()())
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	t.Cleanup(a.Stop)
	return a, env
}

func isQuit(t *testing.T, cmd tea.Cmd) bool {
	t.Helper()
	for _, m := range msgsOf(t, cmd) {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func TestAppKeys(t *testing.T) {
	a, env := loadedApp(t, Options{Views: DefaultViews()})
	sv := a.stack[0].(*SessionsView)

	// ? shows every binding: the view's, the views', the global ones
	a.Update(press("?"))
	help := plain(a.Frame())
	for range 30 {
		a.Update(press("j"))
		help += plain(a.Frame())
	}
	for _, want := range []string{"open the session", "filter", "sort", "send one and watch the reply", "spawn", "label", "send policy",
		"archive", "delete", "reset", "runs", "locks", "doctor", "usage", "quit", "ctrl+c", "page up", "wheel"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	a.Update(press("x")) // any key closes it
	if strings.Contains(plain(a.Frame()), "everywhere") {
		t.Fatal("help still open")
	}

	// the mouse wheel scrolls
	a.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if sv.cursor != 3 {
		t.Fatalf("wheel down: cursor %d", sv.cursor)
	}
	a.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if sv.cursor != 0 {
		t.Fatalf("wheel up: cursor %d", sv.cursor)
	}

	// one key opens each other view; q leaves it, not the app
	for _, k := range []string{"R", "L", "D", "U"} {
		_, cmd := a.Update(press(k))
		msgsOf(t, cmd)
		if len(a.stack) != 2 {
			t.Fatalf("%s opened no view", k)
		}
		for _, m := range msgsOf(t, func() tea.Msg { _, c := a.Update(press("q")); return c() }) {
			a.Update(m)
		}
		if len(a.stack) != 1 {
			t.Fatalf("q did not leave the %s view (%d open)", k, len(a.stack))
		}
	}

	// enter opens the session; q leaves it; q quits from the sessions view
	_, cmd := a.Update(press("enter"))
	for _, m := range msgsOf(t, cmd) {
		a.Update(m)
	}
	if _, ok := a.top().(*SessionView); !ok {
		t.Fatalf("top is %T", a.top())
	}
	_, cmd = a.Update(press("q"))
	if isQuit(t, cmd) {
		t.Fatal("q in the session view quit the app")
	}
	for _, m := range msgsOf(t, cmd) {
		a.Update(m)
	}
	if len(a.stack) != 1 {
		t.Fatal("q did not leave the session view")
	}
	// while the filter has the keys, q is a letter
	a.Update(press("/"))
	_, cmd = a.Update(press("q"))
	if isQuit(t, cmd) || sv.filter.Value() != "q" {
		t.Fatalf("q in the filter: value %q", sv.filter.Value())
	}
	a.Update(press("esc"))
	// ctrl+c quits from anywhere, the filter too
	a.Update(press("/"))
	if _, cmd = a.Update(press("ctrl+c")); !isQuit(t, cmd) {
		t.Fatal("ctrl+c did not quit")
	}
	a.Update(press("esc"))
	if _, cmd = a.Update(press("q")); !isQuit(t, cmd) {
		t.Fatal("q did not quit the sessions view")
	}
	_ = env
}

// Resizes redraw at the new size: every line fits, the height is exact.
func TestAppResize(t *testing.T) {
	a, _ := loadedApp(t, Options{})
	for _, sz := range [][2]int{{80, 24}, {40, 10}, {200, 60}, {80, 24}} {
		a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		lines := strings.Split(plain(a.Frame()), "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > sz[0] {
				t.Fatalf("%dx%d: a line of %d: %q", sz[0], sz[1], n, l)
			}
		}
	}
}

// The feed: events reach the views; its failure goes to the status line.
func TestAppFeed(t *testing.T) {
	started := make(chan struct{})
	feed := make(chan ops.WatchEvent)
	watch := func(ctx context.Context, q ops.WatchQuery, ready func(), emit func(ops.WatchEvent) error) error {
		if !q.Messages || !q.AllAgents {
			return errors.New("the UI asks for messages over every agent")
		}
		ready()
		close(started)
		for {
			select {
			case ev := <-feed:
				if err := emit(ev); err != nil {
					return err
				}
			case <-ctx.Done():
				return nil
			}
		}
	}
	a, _ := loadedApp(t, Options{Watch: watch, Scope: "all agents"})
	cmds := a.startWatch()
	// run the feed's commands as the program would
	msgs := make(chan tea.Msg, 8)
	run := func(c tea.Cmd) {
		go func() {
			if m := c(); m != nil {
				msgs <- m
			}
		}()
	}
	for _, c := range cmds().(tea.BatchMsg) {
		run(c)
	}
	<-started
	m := <-msgs
	if _, ok := m.(watchReadyMsg); !ok {
		t.Fatalf("first message %#v", m)
	}
	a.Update(m)
	if !strings.Contains(plain(a.Frame()), "all agents · live") {
		t.Fatalf("header: %s", strings.SplitN(plain(a.Frame()), "\n", 2)[0])
	}
	feed <- ops.WatchEvent{Kind: "added", AgentID: "main", Key: "agent:main:fresh",
		Session: &state.Row{Key: "agent:main:fresh", AgentID: "main", Kind: "other", UpdatedAt: f64(float64(fixedNow.UnixMilli()))}}
	m = <-msgs
	_, next := a.Update(m)
	if !strings.Contains(plain(a.Frame()), "agent:main:fresh") {
		t.Fatalf("the added session is not shown:\n%s", plain(a.Frame()))
	}
	_ = next
	a.Stop()
}

// recView records what it is given; its Init sends it a message.
type recView struct {
	name string
	got  []tea.Msg
}

type recPing struct{ from string }

func (r *recView) Init() tea.Cmd { return func() tea.Msg { return recPing{r.name} } }
func (r *recView) Update(msg tea.Msg) (View, tea.Cmd) {
	if msg == "boom" {
		panic("boom")
	}
	if msg == "boom later" {
		return r, func() tea.Msg { panic("later") }
	}
	r.got = append(r.got, msg)
	return r, nil
}
func (r *recView) Render(w, h int) string { return r.name }
func (r *recView) Title() string          { return r.name }
func (r *recView) Keys() []key.Binding    { return nil }
func (r *recView) Capturing() bool        { return false }

// What a view's command sends goes back to that view, even under another
// view, and nowhere once it is closed.
func TestAppRoutesToTheSender(t *testing.T) {
	a, _ := loadedApp(t, Options{})
	below, above := &recView{name: "below"}, &recView{name: "above"}
	_, initBelow := a.Update(PushMsg{View: below})
	_, initAbove := a.Update(PushMsg{View: above})
	for _, m := range msgsOf(t, initBelow) {
		a.Update(m)
	}
	if len(below.got) != 1 || below.got[0] != (recPing{"below"}) || len(above.got) != 0 {
		t.Fatalf("below got %v, above got %v", below.got, above.got)
	}
	// the view on top is closed: its late message goes nowhere
	a.Update(PopMsg{})
	for _, m := range msgsOf(t, initAbove) {
		a.Update(m)
	}
	if len(above.got) != 0 || len(below.got) != 1 {
		t.Fatalf("a closed view's message was delivered: below %v, above %v", below.got, above.got)
	}
	// the app's own messages are not routed: a status reaches the status line
	a.Update(func() tea.Msg { return a.wrap(a.ids[len(a.ids)-1], status("hello", false))() }())
	if !strings.Contains(plain(a.Frame()), "hello") {
		t.Fatal("a view's status did not reach the status line")
	}
}

// A panic in a view or in its command is an error on the status line.
func TestAppSurvivesPanics(t *testing.T) {
	a, _ := loadedApp(t, Options{})
	r := &recView{name: "fragile"}
	a.Update(PushMsg{View: r})
	a.Update(routedMsg{id: a.ids[1], msg: "boom"})
	if !strings.Contains(plain(a.Frame()), "internal error: boom") || len(a.stack) != 2 {
		t.Fatalf("after a panic in Update:\n%s", plain(a.Frame()))
	}
	_, cmd := a.Update(routedMsg{id: a.ids[1], msg: "boom later"})
	for _, m := range msgsOf(t, cmd) {
		a.Update(m)
	}
	if !strings.Contains(plain(a.Frame()), "internal error: later") {
		t.Fatalf("after a panic in a command:\n%s", plain(a.Frame()))
	}
}
