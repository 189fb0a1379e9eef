package ui

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"

	"github.com/openclaw/sessions/internal/runs"
	_ "modernc.org/sqlite"
)

const (
	childKey = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2" // JSON era only
	groupKey = "agent:main:telegram:group:-100123"                        // both eras
	hookKey  = "agent:main:hook:github:push-42"                           // both eras
)

// The label dialog sets a label, then clears it (an empty field), each
// after a "y"; the store has it each time and the dialog pops itself.
func TestLabelSetAndClear(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false)
			a := open(t, NewLabelView(fx.env, groupKey, ""))
			if !a.v.Capturing() {
				t.Fatal("the label field does not take the keys")
			}
			a.keys("release notes", "enter")
			if a.v.Capturing() || !strings.Contains(a.frame(80, 24), `Set the label of `+groupKey+` to "release notes"?`) {
				t.Fatalf("no question:\n%s", a.frame(80, 24))
			}
			if r := fx.row(t, groupKey); r.Label != "" {
				t.Fatalf("written before the confirmation: %q", r.Label)
			}
			a.keys("y")
			if a.popped != 1 || a.lastStatus().Err || !strings.Contains(a.lastStatus().Text, "set to") {
				t.Fatalf("popped %d, status %+v", a.popped, a.status)
			}
			if r := fx.row(t, groupKey); r.Label != "release notes" {
				t.Fatalf("label %q", r.Label)
			}

			a = open(t, NewLabelView(fx.env, groupKey, "release notes"))
			a.keys("ctrl+u", "enter", "y")
			if a.popped != 1 || a.lastStatus().Err {
				t.Fatalf("popped %d, status %+v", a.popped, a.status)
			}
			if r := fx.row(t, groupKey); r.Label != "" {
				t.Fatalf("label not cleared: %q", r.Label)
			}
		})
	}
}

// Esc at the question goes back to the field and writes nothing; Esc in
// the field leaves.
func TestLabelCancel(t *testing.T) {
	fx := newFixture(t, eras[0], false)
	a := open(t, NewLabelView(fx.env, groupKey, ""))
	a.keys("x", "enter", "esc")
	if a.popped != 0 || !a.v.Capturing() {
		t.Fatalf("Esc at the question: popped %d, capturing %v", a.popped, a.v.Capturing())
	}
	a.keys("esc")
	if a.popped != 1 {
		t.Fatal("Esc in the field did not leave")
	}
	if r := fx.row(t, groupKey); r.Label != "" {
		t.Fatalf("written: %q", r.Label)
	}
}

// A refused write is an error on the status line; the dialog stays and
// answers the next keys.
func TestActionErrorsKeepTheDialog(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false)
			// a label taken by another session
			if era == eras[0] {
				a := open(t, NewLabelView(fx.env, groupKey, ""))
				a.keys("build-stats", "enter", "y")
				if a.popped != 0 || !a.lastStatus().Err {
					t.Fatalf("duplicate label: popped %d, status %+v", a.popped, a.status)
				}
				if f := a.frame(80, 24); !strings.Contains(f, "error: ") {
					t.Fatalf("the error is not shown:\n%s", f)
				}
				a.keys("ctrl+u", "fresh", "enter", "y")
				if a.popped != 1 || a.lastStatus().Err {
					t.Fatalf("after the error: popped %d, status %+v", a.popped, a.status)
				}
			}
			// no such session
			a := open(t, NewPolicyView(fx.env, "agent:main:nope", ""))
			a.keys("d", "enter", "y")
			if a.popped != 0 || !a.lastStatus().Err {
				t.Fatalf("unknown session: popped %d, status %+v", a.popped, a.status)
			}
			a.frame(80, 24)
			// the main session cannot be archived
			a = open(t, NewLifecycleView(fx.env, "archive", "agent:main:main"))
			a.keys("y")
			if a.popped != 0 || !a.lastStatus().Err {
				t.Fatalf("archive main: popped %d, status %+v", a.popped, a.status)
			}
			if fx.row(t, "main") == nil {
				t.Fatal("the main session is gone")
			}
			a.keys("esc")
			if a.popped != 1 {
				t.Fatal("Esc did not leave after the error")
			}
			// empty input asks nothing
			a = open(t, NewSendView(fx.env, groupKey))
			a.keys("enter")
			if !a.lastStatus().Err || !a.v.Capturing() {
				t.Fatalf("empty message: %+v", a.status)
			}
			// an unknown action
			a = open(t, NewLifecycleView(fx.env, "explode", groupKey))
			a.keys("y", "enter")
			if !a.lastStatus().Err || !strings.Contains(a.frame(80, 24), "unknown action") {
				t.Fatalf("unknown action: %+v", a.status)
			}
		})
	}
}

// The policy dialog picks with letters or arrows: deny is written, then
// inherit removes the override.
func TestPolicySetAndClear(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false)
			a := open(t, NewPolicyView(fx.env, hookKey, ""))
			a.keys("d", "enter", "y")
			if a.popped != 1 || a.lastStatus().Err {
				t.Fatalf("popped %d, status %+v", a.popped, a.status)
			}
			if r := fx.row(t, hookKey); r.SendPolicy != "deny" {
				t.Fatalf("send policy %q", r.SendPolicy)
			}
			a = open(t, NewPolicyView(fx.env, hookKey, "deny"))
			a.keys("down", "enter", "y")
			if a.popped != 1 || a.lastStatus().Err {
				t.Fatalf("popped %d, status %+v", a.popped, a.status)
			}
			if r := fx.row(t, hookKey); r.SendPolicy != "" {
				t.Fatalf("send policy not cleared: %q", r.SendPolicy)
			}
		})
	}
}

// Delete and reset, confirmed with y: the session is gone, or has a new
// sessionId; n writes nothing.
func TestLifecycle(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false)
			a := open(t, NewLifecycleView(fx.env, "delete", hookKey))
			a.keys("n")
			if a.popped != 1 || fx.row(t, hookKey) == nil {
				t.Fatalf("n: popped %d, row %v", a.popped, fx.row(t, hookKey))
			}
			a = open(t, NewLifecycleView(fx.env, "delete", hookKey))
			a.keys("y")
			if a.popped != 1 || a.lastStatus().Err {
				t.Fatalf("delete: popped %d, status %+v", a.popped, a.status)
			}
			if r := fx.row(t, hookKey); r != nil {
				t.Fatalf("still there: %+v", r)
			}

			before := fx.row(t, groupKey).SessionID
			a = open(t, NewLifecycleView(fx.env, "reset", groupKey))
			a.keys("y")
			if era == "state-2026.9.6" {
				// there a reset goes through OpenClaw's gateway, and none runs
				if a.popped != 0 || !a.lastStatus().Err || !strings.Contains(a.lastStatus().Text, "gateway") {
					t.Fatalf("reset without a gateway: popped %d, status %+v", a.popped, a.status)
				}
				if after := fx.row(t, groupKey); after.SessionID != before {
					t.Fatal("reset anyway")
				}
				return
			}
			if a.popped != 1 || a.lastStatus().Err {
				t.Fatalf("reset: popped %d, status %+v", a.popped, a.status)
			}
			if after := fx.row(t, groupKey); after == nil || after.SessionID == before {
				t.Fatalf("not reset: %v → %+v", before, after)
			}
		})
	}
}

// Archive: a JSON-era sub-agent leaves the list as 1.30 archives it; on
// 2026.9.6 the session gets archivedAt.
func TestArchive(t *testing.T) {
	fx := newFixture(t, eras[0], false)
	a := open(t, NewLifecycleView(fx.env, "archive", childKey))
	a.keys("y")
	if a.popped != 1 || a.lastStatus().Err {
		t.Fatalf("archive: popped %d, status %+v", a.popped, a.status)
	}
	if r := fx.row(t, childKey); r != nil {
		t.Fatalf("still listed: %+v", r)
	}

	fx = newFixture(t, eras[1], false)
	a = open(t, NewLifecycleView(fx.env, "archive", hookKey))
	a.keys("y")
	if a.popped != 1 || a.lastStatus().Err {
		t.Fatalf("archive: popped %d, status %+v", a.popped, a.status)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(fx.dir, "agents", "main", "agent", "openclaw-agent.sqlite")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var at sql.NullInt64
	if err := db.QueryRow(`SELECT archived_at FROM session_nodes WHERE session_key = ?`, hookKey).Scan(&at); err != nil || !at.Valid || at.Int64 == 0 {
		t.Fatalf("archived_at %v %v", at, err)
	}
}

// The send dialog runs `sessions send` (the fake engine answers "pong:
// MESSAGE") and shows the reply arriving, then takes the next message.
func TestSendShowsTheReply(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false).withRunner(t)
			runsV := open(t, NewRunsView(fx.env))
			runsV.keys("t")
			a := open(t, NewSendView(fx.env, groupKey))
			a.keys("hello there", "enter")
			if f := a.frame(80, 24); !strings.Contains(f, `Send "hello there" to `+groupKey+`?`) {
				t.Fatalf("no question:\n%s", f)
			}
			a.keys("y")
			if a.popped != 0 || len(a.status) < 2 || a.status[0].Err || !strings.HasPrefix(a.status[0].Text, "sent to ") {
				t.Fatalf("status %+v", a.status)
			}
			if got := a.lastStatus(); got.Err || got.Text != "reply from "+groupKey {
				t.Fatalf("status %+v", a.status)
			}
			f := a.frame(80, 24)
			if !strings.Contains(f, "you: hello there") || !strings.Contains(f, groupKey+": pong: hello there") {
				t.Fatalf("the reply is not shown:\n%s", f)
			}
			// the run is in the runs view once the feed says so
			recs, err := runs.Open(fx.dir).List()
			if err != nil || len(recs) != 1 {
				t.Fatalf("runs: %d %v", len(recs), err)
			}
			id := recs[0].RunID
			runsV.send(ChangedMsg{Event: runEvent(id, "ok")})
			if f := runsV.frame(160, 48); !strings.Contains(f, id) {
				t.Fatalf("the runs view does not show %s:\n%s", id, f)
			}
			// ready for the next message
			if !a.v.Capturing() {
				t.Fatal("the message field does not take keys after the reply")
			}
			a.keys("again", "enter", "y")
			if f := a.frame(160, 48); !strings.Contains(f, "pong: again") {
				t.Fatalf("second reply not shown:\n%s", f)
			}
		})
	}
}

// A reply that does not come in time leaves the run id on the status line
// (the run goes on: the next wait gets it).
func TestSendTimeoutNamesTheRun(t *testing.T) {
	fx := newFixture(t, eras[0], false).withRunner(t)
	gate := filepath.Join(fx.tmp, "gate")
	t.Setenv("ENGINE_TEST_GATE", gate)
	old := SendWaitTimeout
	SendWaitTimeout = time.Second
	defer func() { SendWaitTimeout = old }()
	a := open(t, NewSendView(fx.env, groupKey))
	a.keys("slow", "enter", "y")
	recs, err := runs.Open(fx.dir).List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("runs: %d %v", len(recs), err)
	}
	id := recs[0].RunID
	st := a.lastStatus()
	if !st.Err || !strings.Contains(st.Text, id) || a.popped != 0 {
		t.Fatalf("status %+v, popped %d", a.status, a.popped)
	}
	if f := a.frame(80, 24); !strings.Contains(f, "no reply yet (run "+id+")") {
		t.Fatalf("frame:\n%s", f)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The spawn dialog makes a sub-agent of the session with the task and the
// label given; the child is listed.
func TestSpawn(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			fx := newFixture(t, era, false).withRunner(t)
			a := open(t, NewSpawnView(fx.env, "agent:main:main"))
			a.keys("enter")
			if !a.lastStatus().Err {
				t.Fatal("no task, no error")
			}
			a.keys("count the files", "tab", "file-count", "enter")
			if f := a.frame(80, 24); !strings.Contains(f, `for "count the files"?`) {
				t.Fatalf("no question:\n%s", f)
			}
			a.keys("y")
			st := a.lastStatus()
			if a.popped != 1 || st.Err || !strings.HasPrefix(st.Text, "spawned agent:main:subagent:") {
				t.Fatalf("popped %d, status %+v", a.popped, a.status)
			}
			child := strings.Fields(strings.TrimPrefix(st.Text, "spawned "))[0]
			r := fx.row(t, child)
			if r == nil || r.Label != "file-count" {
				t.Fatalf("child %s: %+v", child, r)
			}
		})
	}
}

// The runs view is live: a send made in the dialog reaches it through the
// change feed (ops.Watch with runs), ending as ok.
func TestRunsViewFollowsTheFeed(t *testing.T) {
	fx := newFixture(t, eras[0], false).withRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan ops.WatchEvent, 1024)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- fx.env.Ops().Watch(ctx, ops.WatchQuery{AllAgents: true, Runs: true}, func() { close(ready) }, func(ev ops.WatchEvent) error {
			events <- ev
			return nil
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v", err)
		}
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("watch ended: %v", err)
	}
	rv := open(t, NewRunsView(fx.env))
	rv.keys("t")
	if f := rv.frame(160, 48); strings.Contains(f, "send") {
		t.Fatalf("a send before any:\n%s", f)
	}
	a := open(t, NewSendView(fx.env, groupKey))
	a.keys("live", "enter", "y")
	if a.lastStatus().Err {
		t.Fatalf("send: %+v", a.status)
	}
	recs, err := runs.Open(fx.dir).List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("runs: %d %v", len(recs), err)
	}
	id := recs[0].RunID
	// the run's row once the feed has said it ended ok (a guard, not a
	// measure: the feed is expected within a second or so)
	guard := time.After(2 * time.Minute)
	for {
		f := rv.frame(160, 48)
		if i := strings.Index(f, id); i >= 0 && strings.HasPrefix(strings.TrimSpace(f[strings.LastIndex(f[:i], "\n")+1:i]), "ok      send") {
			return
		}
		select {
		case ev := <-events:
			rv.send(ChangedMsg{Event: ev})
		case <-guard:
			t.Fatalf("the run never showed as ok:\n%s", f)
		}
	}
}

// While the dialog waits, the feed's events show the run's progress and
// the reply landing in the transcript; the wait's answer completes it.
func TestSendShowsTheFeedWhileWaiting(t *testing.T) {
	fx := newFixture(t, eras[0], false).withRunner(t)
	v := NewSendView(fx.env, groupKey)
	v.Init()
	for _, m := range keyMsgs("hi", "enter", "y") {
		var cmd tea.Cmd
		if v, cmd = v.Update(m); cmd != nil {
			// the send itself: run it and hand its answer back; the
			// wait it starts runs too, but its answer is held back until
			// the feed's events have been shown
			a := &app{t: t, v: v}
			done := cmd()
			_, waitCmds := v.Update(done)
			var wait tea.Cmd
			for _, c := range waitCmds().(tea.BatchMsg) {
				if c == nil {
					continue
				}
				switch m := c().(type) {
				case StatusMsg:
					a.status = append(a.status, m)
				case formDone:
					wait = func() tea.Msg { return m }
				}
			}
			if len(a.status) != 1 || !strings.HasPrefix(a.status[0].Text, "sent to ") {
				t.Fatalf("status %+v", a.status)
			}
			id := strings.TrimSuffix(strings.Split(a.status[0].Text, "(run ")[1], ")")
			a.send(ChangedMsg{Event: runEvent(id, "running")})
			if f := a.frame(80, 24); !strings.Contains(f, "… run "+id+": running") {
				t.Fatalf("run status not shown:\n%s", f)
			}
			a.send(ChangedMsg{Event: ops.WatchEvent{Kind: ops.EventMessage, Key: groupKey, Message: &ops.WatchMessage{Role: "assistant", Text: "pong: h…"}}})
			if f := a.frame(80, 24); !strings.Contains(f, groupKey+": pong: h…") {
				t.Fatalf("arriving reply not shown:\n%s", f)
			}
			a.run(wait)
			if f := a.frame(80, 24); !strings.Contains(f, groupKey+": pong: hi") || a.lastStatus().Text != "reply from "+groupKey {
				t.Fatalf("reply not shown: %+v\n%s", a.status, f)
			}
			return
		}
	}
	t.Fatal("y started nothing")
}
