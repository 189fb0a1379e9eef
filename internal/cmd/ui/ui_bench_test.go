package ui_test

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil/storegen"
	tui "github.com/openclaw/sessions/internal/ui"
)

// The speed of `sessions ui`, side by side with the command it must keep up
// with:
//
//	go test -run '^$' -bench . -benchtime 10x ./internal/cmd/ui
//
// BenchmarkFirstFrame10k against BenchmarkListJSONAll10k (the first frame
// within 1.5× of `list --json --limit all` on the same 10,000-session
// store; uiHeapMB is the heap the app holds then), BenchmarkOpen200MB against
// BenchmarkHistoryPage200MB (a 200 MB transcript's newest page in the
// session view and in `history`).

func runCLI(b *testing.B, args ...string) *bytes.Buffer {
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: b.TempDir()},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	if code := cli.Run(f, args); code != 0 {
		b.Fatalf("sessions %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

func benchEnv(b *testing.B, state string) tui.Env {
	home := b.TempDir()
	getenv := func(string) string { return "" }
	cfg := ops.Config{StateDir: state, Env: config.Env{Home: home, Getenv: getenv}, Getenv: getenv}
	return tui.Env{Ops: func() *ops.Ops { return ops.New(cfg) }, Styles: tui.NewStyles(true), Now: time.Now}
}

// run plays cmd as the program does (a batch's commands at once) and gives
// every message to the app; it returns when all have been given.
func run(app *tui.App, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	var msgs []tea.Msg
	var mu sync.Mutex
	var wg sync.WaitGroup
	var play func(c tea.Cmd)
	play = func(c tea.Cmd) {
		defer wg.Done()
		m := c()
		if batch, ok := m.(tea.BatchMsg); ok {
			for _, c := range batch {
				if c != nil {
					wg.Add(1)
					go play(c)
				}
			}
			return
		}
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
	}
	wg.Add(1)
	play(cmd)
	wg.Wait()
	for _, m := range msgs {
		if m != nil {
			app.Update(m)
		}
	}
}

// firstFrame starts the app on state and returns its first frame with the
// sessions in it, at 160×48.
func firstFrame(b *testing.B, env tui.Env) (*tui.App, string) {
	app := tui.NewApp(env, tui.Options{AllAgents: true, Scope: "all agents"})
	app.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	run(app, app.Init())
	return app, app.Frame()
}

func BenchmarkListJSONAll10k(b *testing.B) {
	state := storegen.State(b, 10_000)
	if out := runCLI(b, "--state-dir", state, "list", "--all-agents", "--json", "--limit", "all"); !bytes.Contains(out.Bytes(), []byte(`"totalCount": 10000`)) {
		b.Fatalf("unexpected output: %.80s", out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		runCLI(b, "--state-dir", state, "list", "--all-agents", "--json", "--limit", "all")
	}
}

func BenchmarkFirstFrame10k(b *testing.B) {
	state := storegen.State(b, 10_000)
	env := benchEnv(b, state)
	if _, frame := firstFrame(b, env); !strings.Contains(ansi.Strip(frame), "sessions 10000") {
		b.Fatalf("first frame:\n%s", ansi.Strip(frame))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		firstFrame(b, env)
	}
	b.StopTimer()
	// uiHeapMB: the heap the app holds once its first frame is drawn.
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	app, _ := firstFrame(b, env)
	after := heap()
	b.ReportMetric(float64(int64(after)-int64(before))/1e6, "uiHeapMB")
	runtime.KeepAlive(app)
}
