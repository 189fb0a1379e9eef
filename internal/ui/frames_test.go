package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// frameStep is a key to send, then what the output must show before the
// next step (or the frame is taken).
type frameStep struct {
	keys []string
	want string
}

// runFrame runs the app in a test program at w×h on the demo state,
// plays the steps and returns the final frame, plain.
func runFrame(t *testing.T, w, h int, steps ...frameStep) string {
	t.Helper()
	env, _ := testEnv(t, "state-2026.1.30")
	app := NewApp(env, Options{AllAgents: true, Scope: "all agents", Views: DefaultViews()})
	tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(w, h))
	t.Cleanup(app.Stop)
	for _, s := range steps {
		for _, k := range s.keys {
			tm.Send(press(k))
		}
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s.want)) },
			teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	// one more round trip: what was asked for has been drawn and settled
	tm.Send(tea.WindowSizeMsg{Width: w, Height: h})
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*App)
	frame := plain(fm.Frame())
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines at height %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Fatalf("line %d is %d cells wide at width %d: %q", i, n, w, l)
		}
	}
	return frame + "\n"
}

// Golden frames of each view at 80×24 and 160×48 on the demo state
// (UPDATE_GOLDEN=1 go test ./internal/ui -run TestFrames writes them).
func TestFrames(t *testing.T) {
	views := []struct {
		name  string
		steps []frameStep
	}{
		{"sessions", []frameStep{{want: "agent:ops:main"}}},
		{"sessions-filtered", []frameStep{{want: "agent:ops:main"}, {keys: []string{"/", "g", "r", "o", "u", "p", "enter"}, want: "filter: group"}}},
		{"session", []frameStep{{want: "agent:ops:main"}, {keys: []string{"j", "j", "enter"}, want: "following"}}},
		{"session-tools", []frameStep{{want: "agent:ops:main"}, {keys: []string{"j", "j", "enter"}, want: "following"}, {keys: []string{"t"}, want: "tools expanded"}}},
		{"help", []frameStep{{want: "agent:ops:main"}, {keys: []string{"?"}, want: "everywhere"}}},
	}
	for _, v := range views {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s-%dx%d", v.name, size[0], size[1]), func(t *testing.T) {
				golden.RequireEqual(t, runFrame(t, size[0], size[1], v.steps...))
			})
		}
	}
}
