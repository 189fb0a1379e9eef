package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// SendWaitTimeout is how long the send dialog waits for a reply before it
// leaves the run id on the status line (the run goes on).
var SendWaitTimeout = 2 * time.Minute

// quote shows what was typed, on one line and short.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// NewSendView is the dialog that sends a message into the session key and
// shows the reply arriving: the run of `sessions send` (policies, engine
// and all), then a wait for its reply. After a reply the dialog stays for
// the next message; Esc while waiting leaves the run going.
func NewSendView(env Env, key string) View {
	f := &form{env: env, title: "send", about: []string{"to " + key}}
	f.fields = []*field{newField(env, "Message", "", "what to say", 0)}
	var msg, runID string
	f.ask = func() (string, error) {
		msg = strings.TrimSpace(f.value(0))
		if msg == "" {
			return "", fmt.Errorf("message required")
		}
		return fmt.Sprintf("Send %s to %s?", quote(msg), key), nil
	}
	f.doing = "sending…"
	f.act = func(ctx context.Context) (any, error) {
		return env.Ops().Send(ctx, ops.SendRequest{Ref: key, Message: msg})
	}
	waiting := -1 // the line of f.out that says what is awaited
	f.done = func(res any) tea.Cmd {
		r, _ := res.(*ops.RunResult)
		if r == nil {
			return nil
		}
		if runID == "" || r.RunID != runID || r.Reply == nil {
			// sent: now watch for the reply
			runID = r.RunID
			f.out = append(f.out, "you: "+msg)
			waiting = len(f.out)
			f.out = append(f.out, "… waiting for the reply (run "+runID+")")
			f.stage = running
			f.doing = "waiting for the reply · esc leaves it running"
			id := runID
			return tea.Batch(status("sent to "+key+" (run "+id+")", false), f.run(func(ctx context.Context) (any, error) {
				return env.Ops().Wait(ctx, ops.WaitRequest{RunID: id, Timeout: SendWaitTimeout})
			}))
		}
		// the reply
		who := r.SessionKey
		if who == "" {
			who = key
		}
		if waiting >= 0 && waiting < len(f.out) {
			f.out[waiting] = who + ": " + *r.Reply
		}
		waiting, runID = -1, ""
		f.fields[0].input.SetValue("")
		f.stage = editing
		f.focusField()
		return status("reply from "+who, false)
	}
	f.onChange = func(ev ChangedMsg) {
		if runID == "" || waiting < 0 || waiting >= len(f.out) {
			return
		}
		e := ev.Event
		switch {
		case e.Run != nil && e.Run.ID == runID:
			f.out[waiting] = "… run " + runID + ": " + e.Run.Status
		case e.Message != nil && e.Message.Role == "assistant" && e.Key == key:
			// the reply's start as the feed saw it land in the transcript;
			// the wait brings all of it
			f.out[waiting] = key + ": " + e.Message.Text
		}
	}
	f.onErr = func(err error) {
		if waiting >= 0 && waiting < len(f.out) {
			f.out[waiting] = "… no reply yet (run " + runID + ")"
		}
		waiting, runID = -1, ""
	}
	f.onEsc = func() tea.Cmd {
		if f.cancel != nil {
			f.cancel()
		}
		id := runID
		if id == "" {
			return nil
		}
		return tea.Batch(pop, status("left the reply of run "+id+" waiting; it goes on (sessions wait "+id+")", false))
	}
	return f
}

// NewSpawnView is the dialog that spawns a sub-agent from parentKey: a
// task, an optional label and an optional agent to spawn into.
func NewSpawnView(env Env, parentKey string) View {
	f := &form{env: env, title: "spawn", about: []string{"a sub-agent of " + parentKey}}
	f.fields = []*field{
		newField(env, "Task", "", "what the sub-agent should do", 0),
		newField(env, "Label", "", "optional", 0),
		newField(env, "Agent", "", "optional: the agent to spawn into", 0),
	}
	var task, label, agent string
	f.ask = func() (string, error) {
		task = strings.TrimSpace(f.value(0))
		if task == "" {
			return "", fmt.Errorf("task required")
		}
		label = strings.TrimSpace(f.value(1))
		if label != "" {
			if _, err := ops.ParseLabel(label); err != nil {
				return "", err
			}
		}
		agent = strings.TrimSpace(f.value(2))
		q := fmt.Sprintf("Spawn a sub-agent of %s for %s", parentKey, quote(task))
		if agent != "" {
			q += " into agent " + agent
		}
		return q + "?", nil
	}
	f.doing = "spawning…"
	f.act = func(ctx context.Context) (any, error) {
		c := env.Ops().Config()
		if parentKey != "" {
			c.As = parentKey // the parent asks, with its policies
		}
		if agent != "" {
			c.Agent = agent
		}
		return ops.New(c).Spawn(ctx, ops.SpawnRequest{Task: task, Label: label})
	}
	f.done = func(res any) tea.Cmd {
		r, _ := res.(*ops.SpawnResult)
		if r == nil {
			return pop
		}
		text := "spawned " + r.ChildSessionKey + " (run " + r.RunID + ")"
		if r.Warning != "" {
			text += "; " + r.Warning
		}
		return tea.Batch(pop, status(text, false))
	}
	return f
}

// NewLabelView is the dialog that sets the label of key, or clears it when
// left empty.
func NewLabelView(env Env, key, current string) View {
	f := &form{env: env, title: "label", about: []string{"of " + key}}
	if current != "" {
		f.about = append(f.about, "now "+quote(current)+" · empty clears it")
	}
	f.fields = []*field{newField(env, "Label", current, "a label (empty: none)", 0)}
	var label string
	f.ask = func() (string, error) {
		label = strings.TrimSpace(f.value(0))
		if label == "" {
			if current == "" {
				return "", fmt.Errorf("%s has no label to clear", key)
			}
			return fmt.Sprintf("Clear the label of %s?", key), nil
		}
		if _, err := ops.ParseLabel(label); err != nil {
			return "", err
		}
		return fmt.Sprintf("Set the label of %s to %s?", key, quote(label)), nil
	}
	f.doing = "writing…"
	f.act = func(ctx context.Context) (any, error) {
		q := ops.PatchRequest{Ref: key, SetLabel: label != "", Label: label, ClearLabel: label == ""}
		return env.Ops().Patch(ctx, q)
	}
	f.done = func(res any) tea.Cmd {
		text := "label of " + key + " set to " + quote(label)
		if label == "" {
			text = "label of " + key + " cleared"
		}
		return tea.Batch(pop, status(withWarnings(text, res), false))
	}
	return f
}

// NewPolicyView is the dialog that sets the send policy of key (allow,
// deny) or clears it (inherit).
func NewPolicyView(env Env, key, current string) View {
	f := &form{env: env, title: "send policy", about: []string{"of " + key}}
	c := &choice{label: "Send policy", values: []string{"allow", "deny", "inherit"},
		help: []string{"sends into it are allowed", "sends into it are refused", "no override: the agent's rules decide"}}
	switch current {
	case "allow":
		c.current = 0
	case "deny":
		c.current = 1
	default:
		c.current = 2
	}
	if current == "" {
		current = "inherit"
	}
	f.about = append(f.about, "now "+current)
	f.choice = c
	f.ask = func() (string, error) {
		if v := c.values[c.current]; v != "inherit" {
			return fmt.Sprintf("Set the send policy of %s to %s?", key, v), nil
		}
		return fmt.Sprintf("Clear the send policy of %s (inherit)?", key), nil
	}
	f.doing = "writing…"
	f.act = func(ctx context.Context) (any, error) {
		return env.Ops().Patch(ctx, ops.PatchRequest{Ref: key, SendPolicy: c.values[c.current]})
	}
	f.done = func(res any) tea.Cmd {
		text := "send policy of " + key + " set to " + c.values[c.current]
		return tea.Batch(pop, status(withWarnings(text, res), false))
	}
	return f
}

func withWarnings(text string, res any) string {
	if r, ok := res.(*ops.PatchResult); ok && len(r.Warnings) > 0 {
		text += " (" + strings.Join(r.Warnings, "; ") + ")"
	}
	return text
}

// NewLifecycleView asks to confirm op ("archive", "delete" or "reset") on
// key, then does it.
func NewLifecycleView(env Env, op, key string) View {
	f := &form{env: env, title: op, about: []string{key}, stage: confirming}
	var what string
	switch op {
	case "archive":
		what, f.doing = "Archive "+key+"?", "archiving…"
		f.act = func(ctx context.Context) (any, error) {
			return env.Ops().Archive(ctx, ops.ArchiveRequest{Key: key})
		}
	case "delete":
		what, f.doing = "Delete "+key+"? Its transcript is moved aside.", "deleting…"
		f.act = func(ctx context.Context) (any, error) {
			return env.Ops().Delete(ctx, ops.DeleteRequest{Keys: []string{key}})
		}
	case "reset":
		what, f.doing = "Reset "+key+"? It starts afresh; the old transcript is kept.", "resetting…"
		f.act = func(ctx context.Context) (any, error) {
			return env.Ops().Reset(ctx, ops.ResetRequest{Key: key})
		}
	default:
		what = ""
		f.stage = editing
		f.errText = fmt.Sprintf("unknown action %q (archive, delete or reset)", op)
	}
	f.question = what
	f.ask = func() (string, error) {
		if what == "" {
			return "", fmt.Errorf("%s", f.errText)
		}
		return what, nil
	}
	f.done = func(res any) tea.Cmd {
		r, _ := res.(*ops.LifecycleResult)
		if r == nil {
			return pop
		}
		if r.Count == 0 {
			why := op + " of " + key + " did nothing"
			for _, s := range r.Skipped {
				why += ": " + s.Reason
			}
			f.stage, f.question, f.errText = confirming, what, why
			return status(why, true)
		}
		past := map[string]string{"archive": "archived", "delete": "deleted", "reset": "reset"}[op]
		return tea.Batch(pop, status(past+" "+key, false))
	}
	return f
}
