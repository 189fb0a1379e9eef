package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/state"
)

// sessionAction is a key of the sessions and session views that opens an
// action's dialog on the selected session.
type sessionAction struct {
	binding key.Binding
	open    func(env Env, r *state.Row) View
}

// sessionActions are the actions on a session, in help order.
var sessionActions = []sessionAction{}

func actionBindings() []key.Binding {
	bs := make([]key.Binding, 0, len(sessionActions))
	for _, a := range sessionActions {
		bs = append(bs, a.binding)
	}
	return bs
}

// runAction opens the dialog of the action bound to msg on r (nil: no
// action has that key).
func runAction(env Env, msg tea.KeyPressMsg, r *state.Row) tea.Cmd {
	for _, a := range sessionActions {
		if key.Matches(msg, a.binding) {
			return push(a.open(env, r))
		}
	}
	return nil
}

// DefaultViews are the views one key of the sessions view opens.
func DefaultViews() map[string]func(Env) View {
	return map[string]func(Env) View{}
}
