package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// sessionAction is a key of the sessions and session views that opens an
// action's dialog on the selected session.
type sessionAction struct {
	binding key.Binding
	open    func(env Env, r *ops.Row) View
}

// sessionActions are the actions on a session, in help order. Each dialog
// asks before it writes.
var sessionActions = []sessionAction{
	{key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "message: send one and watch the reply")),
		func(env Env, r *ops.Row) View { return NewSendView(env, r.Key) }},
	{key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "child: spawn a sub-agent with a task")),
		func(env Env, r *ops.Row) View { return NewSpawnView(env, r.Key) }},
	{key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit the label (empty clears it)")),
		func(env Env, r *ops.Row) View { return NewLabelView(env, r.Key, r.Label) }},
	{key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "policy: send policy allow/deny/inherit")),
		func(env Env, r *ops.Row) View { return NewPolicyView(env, r.Key, r.SendPolicy) }},
	{key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "archive the session")),
		func(env Env, r *ops.Row) View { return NewLifecycleView(env, "archive", r.Key) }},
	{key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete the session")),
		func(env Env, r *ops.Row) View { return NewLifecycleView(env, "delete", r.Key) }},
	{key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reset the session (a fresh transcript)")),
		func(env Env, r *ops.Row) View { return NewLifecycleView(env, "reset", r.Key) }},
}

func actionBindings() []key.Binding {
	bs := make([]key.Binding, 0, len(sessionActions))
	for _, a := range sessionActions {
		bs = append(bs, a.binding)
	}
	return bs
}

// runAction opens the dialog of the action bound to msg on r (nil: no
// action has that key). Over a fleet the action works on the row's own
// context.
func runAction(env Env, msg tea.KeyPressMsg, r *ops.Row) tea.Cmd {
	for _, a := range sessionActions {
		if key.Matches(msg, a.binding) {
			return push(a.open(envFor(env, r.Context), r))
		}
	}
	return nil
}

// envFor is env working on one context only ("": env as it is).
func envFor(env Env, context string) Env {
	if context == "" {
		return env
	}
	base := env.Ops
	env.Ops = func() *ops.Ops {
		cfg := base().Config()
		cfg.Gateway.Contexts = []string{context}
		return ops.New(cfg)
	}
	return env
}

// DefaultViews are the views one key of the sessions view opens.
func DefaultViews() map[string]func(Env) View {
	return map[string]func(Env) View{
		"runs":   NewRunsView,
		"locks":  NewLocksView,
		"doctor": NewDoctorView,
		"usage":  NewUsageView,
	}
}
