package ui

import (
	"context"
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/runstate"
)

func TestMain(m *testing.M) {
	// usage by day is rolled up in the local zone: the same days anywhere
	time.Local = time.UTC
	// the golden frames (charmbracelet/x/exp/golden) are rewritten under
	// its -update flag: UPDATE_GOLDEN=1, the repository's one switch, sets it
	if testutil.UpdateGolden() {
		if err := flag.Set("update", "true"); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	testutil.RemoveBinary()
	os.Exit(code)
}

// viewsNow is the clock of the golden frames: a little after the demo
// state's last activity.
var viewsNow = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

// eras are the fixture states every action test runs on.
var eras = []string{"state-2026.1.30", "state-2026.9.6"}

// fixture is a copy of a fixture state with its isolated environment and
// the Env the views get.
type fixture struct {
	tmp, dir string
	env      Env
	vars     map[string]string
}

// newFixture copies testdata/name; fixed: the operations see viewsNow
// (the goldens), else the real clock (writes and runs).
func newFixture(t *testing.T, name string, fixed bool) *fixture {
	t.Helper()
	rs := runstate.New(t, name, map[string]string{
		// no live gateway of this host's: the writes go to the files
		"OPENCLAW_GATEWAY_PORT": "1",
	})
	tmp, dir, vars := rs.Tmp, rs.Dir, rs.Vars
	getenv := func(k string) string { return vars[k] }
	now := time.Now
	if fixed {
		now = func() time.Time { return viewsNow }
	}
	fx := &fixture{tmp: tmp, dir: dir, vars: vars}
	fx.env = Env{
		Ops: func() *ops.Ops {
			return ops.New(ops.Config{StateDir: dir, Env: config.Env{Getenv: getenv, Home: tmp}, Getenv: getenv, Now: now})
		},
		Styles: NewStyles(false),
		Now:    func() time.Time { return viewsNow },
	}
	return fx
}

// withRunner lets sends and spawns start their detached runner: the
// sessions binary, built once.
func (fx *fixture) withRunner(t *testing.T) *fixture {
	runstate.WithRunner(t)
	return fx
}

// row is the session key's row as `list --all-agents` has it now; nil
// when there is none.
func (fx *fixture) row(t *testing.T, key string) *state.Row {
	t.Helper()
	res, err := fx.env.Ops().List(context.Background(), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Sessions {
		if res.Sessions[i].Key == key {
			return &res.Sessions[i]
		}
	}
	return nil
}

// press makes the key messages of what a person types: named keys
// ("enter", "esc", "tab", "down", "pgdown", "home", "end", "ctrl+u") or
// text, one key per rune.
func keyMsgs(keys ...string) []tea.Msg {
	named := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"up":        {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "pgup": {Code: tea.KeyPgUp}, "pgdown": {Code: tea.KeyPgDown},
		"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd}, "ctrl+u": {Code: 'u', Mod: tea.ModCtrl},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
	}
	var out []tea.Msg
	for _, k := range keys {
		if m, ok := named[k]; ok {
			out = append(out, m)
			continue
		}
		for _, r := range k {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	return out
}

// app stands for the app around one view: it hands the view its
// messages, runs the commands the view returns as the runtime would
// (their answers to the view go back to it) and keeps what the view tells
// the app.
type app struct {
	t      *testing.T
	v      View
	status []StatusMsg
	popped int
}

func open(t *testing.T, v View) *app {
	a := &app{t: t, v: v}
	a.run(v.Init())
	return a
}

func (a *app) send(msgs ...tea.Msg) *app {
	a.t.Helper()
	for _, m := range msgs {
		v, cmd := a.v.Update(m)
		if v != a.v {
			a.t.Fatalf("Update returned another view for %v", m)
		}
		a.run(cmd)
	}
	return a
}

func (a *app) keys(keys ...string) *app {
	a.t.Helper()
	return a.send(keyMsgs(keys...)...)
}

func (a *app) run(cmd tea.Cmd) {
	a.t.Helper()
	if cmd == nil {
		return
	}
	switch m := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range m {
			a.run(c)
		}
	case StatusMsg:
		a.status = append(a.status, m)
	case PopMsg:
		a.popped++
	case PushMsg:
		a.t.Fatalf("unexpected push of %s", m.View.Title())
	case nil:
	default:
		a.send(m)
	}
}

// lastStatus is the last status line the view set.
func (a *app) lastStatus() StatusMsg {
	a.t.Helper()
	if len(a.status) == 0 {
		a.t.Fatal("no status")
	}
	return a.status[len(a.status)-1]
}

// frame renders the view and checks that it fills exactly w×h cells.
func (a *app) frame(w, h int) string {
	a.t.Helper()
	return checkFrame(a.t, a.v, w, h)
}

func checkFrame(t *testing.T, v View, w, h int) string {
	t.Helper()
	out := v.Render(w, h)
	lines := strings.Split(out, "\n")
	if w <= 0 || h <= 0 {
		if out != "" {
			t.Fatalf("%s at %dx%d: %q", v.Title(), w, h, out)
		}
		return out
	}
	if len(lines) != h {
		t.Fatalf("%s at %dx%d: %d lines", v.Title(), w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("%s at %dx%d: line %d is %d cells: %q", v.Title(), w, h, i, n, l)
		}
	}
	return out
}

// Every view fills exactly the space it is given, whatever the size (a
// resize leaves nothing of the last frame), and says how to leave it.
func TestViewsFillAnySize(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	views := allViews(fx.env)
	for _, v := range views {
		a := open(t, v)
		for _, sz := range [][2]int{{80, 24}, {160, 48}, {20, 3}, {1, 1}, {5, 2}, {0, 0}, {200, 1}} {
			a.frame(sz[0], sz[1])
		}
		var esc bool
		for _, k := range v.Keys() {
			if k.Help().Key == "" || k.Help().Desc == "" {
				t.Errorf("%s: a key without help: %v", v.Title(), k.Keys())
			}
			for _, s := range k.Keys() {
				esc = esc || s == "esc"
			}
		}
		if !esc {
			t.Errorf("%s: Esc is not among its keys", v.Title())
		}
	}
}

func allViews(env Env) []View {
	return []View{
		NewRunsView(env), NewLocksView(env), NewDoctorView(env), NewUsageView(env),
		NewSendView(env, "agent:main:main"), NewSpawnView(env, "agent:main:main"),
		NewLabelView(env, "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2", "build-stats"),
		NewPolicyView(env, "agent:main:telegram:group:-100123", ""),
		NewLifecycleView(env, "archive", "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"),
		NewLifecycleView(env, "delete", "agent:main:hook:github:push-42"),
		NewLifecycleView(env, "reset", "agent:main:telegram:group:-100123"),
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether s sets a foreground or background colour.
func hasColour(s string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				return true
			}
		}
	}
	return false
}

// Without colour (NO_COLOR, --no-color) no view sets a colour; with it
// they do.
func TestViewsHonourNoColour(t *testing.T) {
	fx := newFixture(t, "state-2026.1.30", true)
	for _, color := range []bool{false, true} {
		env := fx.env
		env.Styles = NewStyles(color)
		coloured := 0
		for _, v := range allViews(env) {
			a := open(t, v)
			f := a.frame(160, 48)
			if hasColour(f) {
				coloured++
				if !color {
					t.Errorf("%s sets a colour without colour:\n%q", v.Title(), f)
				}
			}
		}
		if color && coloured == 0 {
			t.Error("no view sets a colour with colour on")
		}
	}
}
