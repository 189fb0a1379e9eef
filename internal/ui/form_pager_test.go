package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/openclaw/sessions/internal/ops"
)

func runEvent(id, status string) ops.WatchEvent {
	return ops.WatchEvent{Kind: "run", Run: &ops.WatchRun{ID: id, Status: status}}
}

// Golden frames of every view on the demo state, at 80×24 and 160×48,
// plain (NO_COLOR); UPDATE_GOLDEN=1 go test -run TestGolden rewrites them.
func TestGolden(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	views := map[string]func() View{
		"runs":      func() View { return NewRunsView(fx.env) },
		"runs-flat": func() View { v := NewRunsView(fx.env); return v },
		"locks":     func() View { return NewLocksView(fx.env) },
		"doctor":    func() View { return NewDoctorView(fx.env) },
		"usage":     func() View { return NewUsageView(fx.env) },
		"usage-day": func() View { return NewUsageView(fx.env) },
		"send":      func() View { return NewSendView(fx.env, groupKey) },
		"spawn":     func() View { return NewSpawnView(fx.env, "agent:main:main") },
		"label":     func() View { return NewLabelView(fx.env, childKey, "build-stats") },
		"policy":    func() View { return NewPolicyView(fx.env, groupKey, "deny") },
		"delete":    func() View { return NewLifecycleView(fx.env, "delete", hookKey) },
	}
	then := map[string][]string{
		"runs-flat": {"t"},
		"usage-day": {"tab"},
		"send":      {"hello", "enter"},
		"spawn":     {"count the files", "tab"},
	}
	for name, mk := range views {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				a := open(t, mk())
				a.keys(then[name]...)
				golden.RequireEqual(t, a.frame(sz[0], sz[1]))
			})
		}
	}
}

// The read-only views scroll with arrows, vim keys, PgUp/PgDn and
// Home/End, and leave with Esc or q.
func TestPagerKeys(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	a := open(t, NewUsageView(fx.env))
	// 5 rows: the head, 3 of the 4 body lines, the foot
	top := a.frame(80, 5)
	if !strings.Contains(top, "delivery-mirror") || strings.Contains(top, "159,157") {
		t.Fatalf("top:\n%s", top)
	}
	for _, k := range [][]string{{"down"}, {"j"}, {"end"}, {"G"}, {"pgdown"}, {"f"}} {
		a.keys("home")
		a.keys(k...)
		if f := a.frame(80, 5); !strings.Contains(f, "159,157") || strings.Contains(f, "delivery-mirror") {
			t.Fatalf("%v:\n%s", k, f)
		}
		for _, back := range [][]string{{"up"}, {"k"}, {"home"}, {"g"}, {"pgup"}, {"b"}} {
			a.keys("end")
			a.keys(back...)
			if f := a.frame(80, 5); !strings.Contains(f, "delivery-mirror") {
				t.Fatalf("%v then %v:\n%s", k, back, f)
			}
		}
	}
	if a.popped != 0 {
		t.Fatal("popped while scrolling")
	}
	for _, k := range []string{"esc", "q"} {
		for _, v := range []View{NewRunsView(fx.env), NewLocksView(fx.env), NewDoctorView(fx.env), NewUsageView(fx.env)} {
			a := open(t, v)
			if a.keys(k); a.popped != 1 {
				t.Errorf("%s: %s did not leave", v.Title(), k)
			}
		}
	}
}

// The usage view goes round by model, by day, by day and model; the
// numbers are the demo's.
func TestUsageRollups(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	a := open(t, NewUsageView(fx.env))
	f := a.frame(160, 48)
	for _, want := range []string{"mock-1", "128,692", "TOTAL", "159,157", "by model"} {
		if !strings.Contains(f, want) {
			t.Fatalf("by model: no %q:\n%s", want, f)
		}
	}
	a.keys("tab")
	if f := a.frame(160, 48); !strings.Contains(f, "2026-11-21") || strings.Contains(f, "mock-1") {
		t.Fatalf("by day:\n%s", f)
	}
	a.keys("tab")
	if f := a.frame(160, 48); !strings.Contains(f, "2026-11-21  mock-1") {
		t.Fatalf("by day and model:\n%s", f)
	}
}

// The runs view draws the demo's sub-agent tree, lists every run on t,
// and loads again only for the feed's run and sub-agent changes.
func TestRunsView(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	a := open(t, NewRunsView(fx.env))
	f := a.frame(160, 48)
	for _, want := range []string{"agent:main:main", "build-stats  └─ agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2", "openclaw"} {
		if !strings.Contains(f, want) {
			t.Fatalf("tree: no %q:\n%s", want, f)
		}
	}
	a.keys("t")
	if f := a.frame(160, 48); !strings.Contains(f, "0f8fd880-ca19-4a4a-9cf1-aa73ee1bf18c") || !strings.Contains(f, "STATUS") {
		t.Fatalf("flat:\n%s", f)
	}
	v := a.v
	if _, cmd := v.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "updated", Key: groupKey}}); cmd != nil {
		t.Error("an update of a session loads the runs again")
	}
	for _, ev := range []ops.WatchEvent{runEvent("x", "running"), {Kind: "added", Key: "agent:main:subagent:new"}} {
		if _, cmd := v.Update(ChangedMsg{Event: ev}); cmd == nil {
			t.Errorf("%s: no load", ev.Kind)
		} else {
			a.run(cmd)
		}
	}
}

// A view whose operation fails says so on the status line and in its
// frame, and keeps answering keys (r tries again).
func TestPagerErrors(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	env := fx.env
	env.Ops = func() *ops.Ops { return ops.New(ops.Config{StateDir: fx.tmp + "/missing"}) }
	for _, v := range []View{NewRunsView(env), NewLocksView(env), NewDoctorView(env), NewUsageView(env)} {
		a := open(t, v)
		if st := a.lastStatus(); !st.Err {
			t.Fatalf("%s: status %+v", v.Title(), st)
		}
		if f := a.frame(80, 24); !strings.Contains(f, "error: ") {
			t.Fatalf("%s:\n%s", v.Title(), f)
		}
		a.keys("r", "down", "end")
		if len(a.status) != 2 || a.popped != 0 {
			t.Fatalf("%s: after r: %+v", v.Title(), a.status)
		}
	}
}

// A stale store lock left by a dead OpenClaw: the locks view shows it,
// the doctor view reports it with the command that fixes it.
func TestLocksAndDoctorFindings(t *testing.T) {
	for _, era := range eras[:1] {
		fx := newFixture(t, era, true)
		dead := exec.Command("true")
		if err := dead.Run(); err != nil {
			t.Fatal(err)
		}
		lockPath := filepath.Join(fx.dir, "agents", "main", "sessions", "sessions.json.lock")
		payload := fmt.Sprintf(`{"pid":%d,"startedAt":%d}`, dead.Process.Pid, viewsNow.Add(-90*time.Second).UnixMilli())
		if err := os.WriteFile(lockPath, []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(lockPath, old, old); err != nil {
			t.Fatal(err)
		}
		a := open(t, NewLocksView(fx.env))
		f := a.frame(160, 48)
		for _, want := range []string{"KIND", "store", "90s", fmt.Sprintf("pid %d", dead.Process.Pid), "stale", "…/main/sessions/sessions.json.lock", "1 lock(s)"} {
			if !strings.Contains(f, want) {
				t.Fatalf("locks: no %q:\n%s", want, f)
			}
		}
		a = open(t, NewDoctorView(fx.env))
		f = ansi.Strip(a.frame(160, 48))
		for _, want := range []string{"lock.", lockPath, "fix: sessions doctor --fix"} {
			if !strings.Contains(f, want) {
				t.Fatalf("doctor: no %q:\n%s", want, f)
			}
		}
		if st := a.status; len(st) != 0 {
			t.Fatalf("findings are not errors of the view: %+v", st)
		}
	}
}

// Changes that come while a load runs make one more load after it, not
// one each; r loads at once even when an answer never came back (the app
// gives a view's answers to the top view only).
func TestPagerCoalescesLoads(t *testing.T) {
	fx := newFixture(t, eras[0], true)
	v := NewRunsView(fx.env)
	first := v.Init() // an answer that never comes back
	if first == nil {
		t.Fatal("no load at the start")
	}
	for range 3 {
		if _, cmd := v.Update(ChangedMsg{Event: runEvent("x", "running")}); cmd != nil {
			t.Fatal("a second load while one runs")
		}
	}
	a := &app{t: t, v: v}
	// the first answer comes after all: the load asked for meanwhile follows
	a.run(first)
	if f := a.frame(160, 48); !strings.Contains(f, "build-stats") {
		t.Fatalf("after the first load:\n%s", f)
	}
	v2 := NewRunsView(fx.env)
	_ = v2.Init()
	a = &app{t: t, v: v2}
	a.keys("r")
	if f := a.frame(160, 48); !strings.Contains(f, "build-stats") {
		t.Fatalf("r did not load:\n%s", f)
	}
}

// The read-only views on the 2026.9.6 fixture: each loads (no error) and
// fills its frame; usage has that state's model.
func TestViewsSQLite(t *testing.T) {
	fx := newFixture(t, eras[1], true)
	for _, v := range []View{NewRunsView(fx.env), NewLocksView(fx.env), NewDoctorView(fx.env), NewUsageView(fx.env)} {
		a := open(t, v)
		for _, st := range a.status {
			if st.Err {
				t.Fatalf("%s: %+v", v.Title(), st)
			}
		}
		f := a.frame(80, 24)
		if strings.Contains(f, "loading") || strings.Contains(f, "error: ") {
			t.Fatalf("%s:\n%s", v.Title(), f)
		}
		if v.Title() == "usage" && !strings.Contains(f, "mock-1") {
			t.Fatalf("usage:\n%s", f)
		}
	}
}

// An operation that panics is an error on the status line; the view goes
// on.
func TestPanicIsAnError(t *testing.T) {
	fx := newFixture(t, eras[0], true)
	env := fx.env
	env.Ops = func() *ops.Ops { panic("boom") }
	a := open(t, NewLocksView(env))
	if st := a.lastStatus(); !st.Err || !strings.Contains(st.Text, "internal error: boom") {
		t.Fatalf("status %+v", a.status)
	}
	d := open(t, NewLifecycleView(env, "delete", hookKey))
	d.keys("y")
	if st := d.lastStatus(); !st.Err || d.popped != 0 {
		t.Fatalf("status %+v", d.status)
	}
	d.frame(80, 24)
}
