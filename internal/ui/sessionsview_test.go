package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
)

func f64(v float64) *float64 { return &v }

func TestSessionListEvents(t *testing.T) {
	var l sessionList
	l.set([]state.Row{
		{Key: "a", AgentID: "main", UpdatedAt: f64(1), TotalTokens: f64(30)},
		{Key: "b", AgentID: "main", UpdatedAt: f64(3), TotalTokens: f64(10), Label: "Deploys"},
		{Key: "c", AgentID: "ops", UpdatedAt: f64(2), DisplayName: "Nightly CI"},
	})
	keys := func() []string {
		var out []string
		for _, i := range l.view() {
			out = append(out, l.rows[i].Key)
		}
		return out
	}
	if got := keys(); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Fatalf("by updated: %v", got)
	}
	l.setSort(sortKey)
	if got := keys(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("by key: %v", got)
	}
	l.setSort(sortTokens)
	if got := keys(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("by tokens (unknown last): %v", got)
	}
	l.setSort(sortUpdated)
	// updated: a becomes the newest
	if !l.apply(ops.WatchEvent{Kind: "updated", AgentID: "main", Key: "a", Session: &state.Row{Key: "a", AgentID: "main", UpdatedAt: f64(9)}}) {
		t.Fatal("updated not applied")
	}
	if got := keys(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("after update: %v", got)
	}
	// added, and the same key of another agent is another row
	l.apply(ops.WatchEvent{Kind: "added", AgentID: "ops", Key: "a", Session: &state.Row{Key: "a", AgentID: "ops", UpdatedAt: f64(5)}})
	if got := keys(); !slices.Equal(got, []string{"a", "a", "b", "c"}) || len(l.rows) != 4 {
		t.Fatalf("after add: %v", got)
	}
	// removed
	if !l.apply(ops.WatchEvent{Kind: "removed", AgentID: "main", Key: "b"}) {
		t.Fatal("removed not applied")
	}
	if l.apply(ops.WatchEvent{Kind: "removed", AgentID: "main", Key: "b"}) {
		t.Fatal("removing what is gone changed the rows")
	}
	if got := keys(); !slices.Equal(got, []string{"a", "a", "c"}) {
		t.Fatalf("after remove: %v", got)
	}
	for id, i := range l.at {
		r := l.rows[i]
		if rowID(r.Context, r.AgentID, r.Key) != id {
			t.Fatalf("index of %q points at %q", id, r.Key)
		}
	}
	// messages and runs do not change rows
	if l.apply(ops.WatchEvent{Kind: "message", AgentID: "main", Key: "a"}) {
		t.Fatal("a message event changed the rows")
	}
}

func TestSessionListFilter(t *testing.T) {
	var l sessionList
	l.set([]state.Row{
		{Key: "agent:main:telegram:group:-100", AgentID: "main"},
		{Key: "agent:main:cron:x", AgentID: "main", Label: "Deploys"},
		{Key: "agent:ops:main", AgentID: "ops", DisplayName: "Nightly Ünïcode"},
	})
	for q, want := range map[string]int{"TELEGRAM": 1, "deploy": 1, "nightly": 1, "ünï": 1, "agent:": 3, "zzz": 0, "": 3} {
		l.setQuery(q)
		if got := len(l.view()); got != want {
			t.Errorf("filter %q: %d rows, want %d", q, got, want)
		}
	}
}

func TestSessionsViewKeys(t *testing.T) {
	env, _ := testEnv(t, "state-2026.1.30")
	v := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	all := keysShown(v)
	if len(all) != 11 || !strings.Contains(v.Title(), "sessions 11") {
		t.Fatalf("rows %d, title %q", len(all), v.Title())
	}
	// j/k and arrows, End/Home, PgDn
	var view View = v
	for _, k := range []string{"j", "down", "j"} {
		view, _ = view.Update(press(k))
	}
	if v.cursor != 3 {
		t.Fatalf("cursor %d after three downs", v.cursor)
	}
	view, _ = view.Update(press("k"))
	view, _ = view.Update(press("end"))
	if v.cursor != 10 {
		t.Fatalf("end: cursor %d", v.cursor)
	}
	view, _ = view.Update(press("home"))
	if v.cursor != 0 {
		t.Fatalf("home: cursor %d", v.cursor)
	}
	v.Render(80, 6) // a page of 5 rows
	view, _ = view.Update(press("pgdown"))
	if v.cursor != 4 {
		t.Fatalf("pgdown: cursor %d", v.cursor)
	}
	// sort by key
	view, _ = view.Update(press("s"))
	if !strings.Contains(v.Title(), "by key") || !slices.IsSorted(keysShown(v)) {
		t.Fatalf("sort by key: %q %v", v.Title(), keysShown(v))
	}
	view, _ = view.Update(press("s"))
	if !strings.Contains(v.Title(), "by tokens") {
		t.Fatalf("title %q", v.Title())
	}
	view, _ = view.Update(press("s"))

	// / filters as one types; enter keeps it; esc clears it
	view, _ = view.Update(press("/"))
	if !v.Capturing() {
		t.Fatal("the filter does not capture keys")
	}
	view = typeText(view, "TELEGRAM")
	if got := keysShown(v); len(got) != 1 || got[0] != "agent:main:telegram:group:-100123" {
		t.Fatalf("filtered: %v", got)
	}
	if !strings.Contains(v.Title(), "sessions 1 of 11") {
		t.Fatalf("title %q", v.Title())
	}
	view, _ = view.Update(press("enter"))
	if v.Capturing() || len(keysShown(v)) != 1 {
		t.Fatal("enter did not keep the filter")
	}
	if !strings.Contains(plain(v.Render(80, 10)), "filter: telegram") {
		t.Fatal("the kept filter is not shown")
	}
	view, _ = view.Update(press("/"))
	view, _ = view.Update(press("esc"))
	if len(keysShown(v)) != 11 || v.Capturing() {
		t.Fatal("esc did not clear the filter")
	}
	// the filter matches labels and display names too
	view, _ = view.Update(press("/"))
	view = typeText(view, "build-stats")
	if got := keysShown(v); len(got) != 1 || !strings.Contains(got[0], "subagent") {
		t.Fatalf("label filter: %v", got)
	}
	view, _ = view.Update(press("esc"))

	// enter opens the selected session
	v.cursor = 0
	sel := v.Selected()
	_, cmd := view.Update(press("enter"))
	msgs := msgsOf(t, cmd)
	if len(msgs) != 1 {
		t.Fatalf("enter: %v", msgs)
	}
	p, ok := msgs[0].(PushMsg)
	if !ok {
		t.Fatalf("enter: %#v", msgs[0])
	}
	if sv, ok := p.View.(*SessionView); !ok || sv.row.Key != sel.Key {
		t.Fatalf("opened %#v", p.View)
	}
}

func TestSessionsViewLive(t *testing.T) {
	env, _ := testEnv(t, "state-2026.1.30")
	v := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	var view View = v
	view, _ = view.Update(press("j"))
	sel := v.Selected().Key
	// a new session appears at the top (newest); the cursor stays on its row
	view, _ = view.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "added", AgentID: "main", Key: "agent:main:new",
		Session: &state.Row{Key: "agent:main:new", AgentID: "main", Kind: "other", UpdatedAt: f64(float64(fixedNow.UnixMilli()))}}})
	if got := keysShown(v); len(got) != 12 || got[0] != "agent:main:new" {
		t.Fatalf("added: %v", got)
	}
	if v.Selected().Key != sel {
		t.Fatalf("cursor moved to %s", v.Selected().Key)
	}
	frame := plain(v.Render(120, 20))
	if !strings.Contains(frame, "agent:main:new") || !strings.Contains(frame, "just now") {
		t.Fatalf("frame lacks the new row:\n%s", frame)
	}
	// a label change shows
	view, _ = view.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "updated", AgentID: "main", Key: "agent:main:new", Fields: []string{"label"},
		Session: &state.Row{Key: "agent:main:new", AgentID: "main", Kind: "other", Label: "fresh", UpdatedAt: f64(float64(fixedNow.UnixMilli()))}}})
	if frame := plain(v.Render(160, 20)); !strings.Contains(frame, "fresh") {
		t.Fatalf("frame lacks the label:\n%s", frame)
	}
	// removed ones go
	view, _ = view.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "removed", AgentID: "main", Key: "agent:main:new"}})
	if got := keysShown(v); len(got) != 11 || slices.Contains(got, "agent:main:new") {
		t.Fatalf("removed: %v", got)
	}
	// the selected row going moves the cursor to a neighbour, not off the table
	view, _ = view.Update(press("end"))
	last := v.Selected()
	view.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "removed", AgentID: last.AgentID, Key: last.Key}})
	if v.Selected() == nil || v.cursor != 9 {
		t.Fatalf("cursor %d after its row went", v.cursor)
	}
}

// The SQLite era lists through the same view.
func TestSessionsViewSQLite(t *testing.T) {
	env, _ := testEnv(t, "state-2026.9.6")
	v := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	if len(v.list.rows) == 0 {
		t.Fatal("no rows from the SQLite store")
	}
	frame := plain(v.Render(160, 30))
	if !strings.Contains(frame, "KEY") || !strings.Contains(frame, "TOKENS") || !strings.Contains(frame, "BUSY") {
		t.Fatalf("frame:\n%s", frame)
	}
}

// Every action key on a session opens its dialog on the selected session.
func TestSessionsViewActions(t *testing.T) {
	env, _ := testEnv(t, "state-2026.1.30")
	v := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	sel := v.Selected().Key
	for k, title := range map[string]string{"m": "send", "c": "spawn", "e": "label", "p": "policy", "a": "archive", "d": "delete", "r": "reset"} {
		_, cmd := v.Update(press(k))
		msgs := msgsOf(t, cmd)
		if len(msgs) != 1 {
			t.Fatalf("%s: %v", k, msgs)
		}
		p, ok := msgs[0].(PushMsg)
		if !ok || p.View == nil {
			t.Fatalf("%s: %#v", k, msgs[0])
		}
		if !strings.Contains(strings.ToLower(p.View.Title()+plain(p.View.Render(120, 20))), title) {
			t.Errorf("%s opened %q", k, p.View.Title())
		}
		if !strings.Contains(plain(p.View.Render(120, 20)), sel) {
			t.Errorf("%s: the dialog does not name %s:\n%s", k, sel, plain(p.View.Render(120, 20)))
		}
	}
}
