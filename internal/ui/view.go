package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// Env is what every view gets: how to reach the operations layer (a fresh
// *ops.Ops per operation: an Ops caches state for one invocation), the
// styles, and the clock.
type Env struct {
	Ops    func() *ops.Ops
	Styles *Styles
	Now    func() time.Time
}

// View is one screen of the app (sessions, session, runs, locks, doctor,
// usage). The app routes messages to the top view, draws its Render(w, h)
// below the header and above the status line, and pops it on PopMsg.
type View interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (View, tea.Cmd)
	Render(width, height int) string
	Title() string       // for the header, e.g. "runs"
	Keys() []key.Binding // its own bindings, for `?` help
	Capturing() bool     // true while a text input has focus (app keys like q are not taken then)
}

// Messages views send to the app:
type PopMsg struct{}             // leave this view (Esc / q)
type PushMsg struct{ View View } // open a view on top
type StatusMsg struct {          // the status line
	Text string
	Err  bool
}
type ChangedMsg struct{ Event ops.WatchEvent } // the app forwards every feed event to every open view
