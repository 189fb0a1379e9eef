package ui

import (
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil"
)

// fixedNow is the tests' clock: five days after the demo state was made.
var fixedNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// testEnv is an Env on a copy of testdata/<fixture> (HOME and the user
// dirs in temporary directories), plain styles, the fixed clock. It
// returns the copy's path.
func testEnv(t *testing.T, fixture string) (Env, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	now := func() time.Time { return fixedNow }
	cfg := ops.Config{StateDir: dir, Env: config.Env{Home: home, Getenv: getenv}, Getenv: getenv, Now: now, LockTimeout: time.Second}
	return Env{Ops: func() *ops.Ops { return ops.New(cfg) }, Styles: NewStyles(false), Now: now}, dir
}

// loadedSessions is a sessions view with its listing read.
func loadedSessions(t *testing.T, env Env, opts SessionsOptions) *SessionsView {
	t.Helper()
	v := NewSessionsView(env, opts)
	msg := v.load()()
	if m, ok := msg.(sessionsLoadedMsg); !ok || m.err != nil {
		t.Fatalf("load: %#v", msg)
	}
	nv, _ := v.Update(msg)
	return nv.(*SessionsView)
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic("press " + s)
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// typeText sends each rune of s as a key press to v.
func typeText(v View, s string) View {
	for _, r := range s {
		v, _ = v.Update(press(string(r)))
	}
	return v
}

// plain is a frame without escapes.
func plain(s string) string { return ansi.Strip(s) }

// keysShown are the keys of the shown rows, in order.
func keysShown(v *SessionsView) []string {
	var out []string
	for _, i := range v.list.view() {
		out = append(out, v.list.rows[i].Key)
	}
	return out
}

// msgsOf runs cmd and returns its messages, expanding a batch (a command
// still waiting after a generous while — a follow, the feed — gives none:
// the tests feed those messages themselves).
func msgsOf(t *testing.T, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case m := <-ch:
		if b, ok := m.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, msgsOf(t, c)...)
			}
			return out
		}
		return []tea.Msg{m}
	case <-time.After(10 * time.Second):
		return nil // a wait (a follow, the feed): not this test's business
	}
}
