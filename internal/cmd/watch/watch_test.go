package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

func TestLine(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 3, 4, 0, time.Local)
	for _, c := range []struct {
		ev   ops.WatchEvent
		want string
	}{
		{ops.WatchEvent{Kind: "updated", Key: "main", Fields: []string{"updatedAt", "totalTokens"}}, "12:03:04 updated  main  updatedAt,totalTokens"},
		{ops.WatchEvent{Kind: "message", Key: "main", Message: &ops.WatchMessage{Role: "assistant", Text: "Hello…"}}, "12:03:04 message  main  assistant: Hello…"},
		{ops.WatchEvent{Kind: "added", Key: "agent:main:subagent:x", Session: &state.Row{Kind: "other", Label: "task"}}, "12:03:04 added    agent:main:subagent:x  other  task"},
		{ops.WatchEvent{Kind: "removed", Key: "main"}, "12:03:04 removed  main"},
		{ops.WatchEvent{Kind: "run", Key: "main", Run: &ops.WatchRun{ID: "r1", Status: "done", Kind: "send"}}, "12:03:04 run      main  send r1  done"},
		{ops.WatchEvent{Kind: "removed", Context: "vps", Key: "agent:main:main"}, "12:03:04 removed  vps/agent:main:main"},
	} {
		c.ev.Time = at
		if got := Line(c.ev); got != c.want {
			t.Errorf("Line(%+v) = %q, want %q", c.ev, got, c.want)
		}
	}
}

func factory(t *testing.T, state string) (*cmdutil.Factory, *iostreams.IOStreams) {
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()},
		Flags:  &cmdutil.GlobalFlags{StateDir: state},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}, ios
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args  []string
		agent string
		want  string
	}{
		{[]string{"--all-agents"}, "main", "--agent and --all-agents cannot be used together"},
		{[]string{"--kinds", "main,bogus"}, "", `invalid --kinds value "bogus"`},
		{[]string{"extra"}, "", "extra"},
	} {
		f, _ := factory(t, "")
		f.Flags.Agent = c.agent
		var got *Options
		cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(&strings.Builder{})
		cmd.SetErr(&strings.Builder{})
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), c.want) || got != nil {
			t.Errorf("%q: %v", c.args, err)
		}
	}
	f, _ := factory(t, "")
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--kinds", "Main, group", "--no-messages", "--runs", "--all-agents"})
	if err := cmd.Execute(); err != nil || strings.Join(got.Kinds, ",") != "main,group" || !got.NoMessages || !got.Runs || !got.AllAgents {
		t.Fatalf("%+v %v", got, err)
	}
}

// In-process: a change prints one NDJSON line; the reader closing its end
// of the pipe ends the watch with no error, before any further event.
func TestRunPipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a closed pipe is seen at the next write there (no poll on stdout)")
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	f, ios := factory(t, dir)
	f.Flags.JSON = true
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ios.Out = w
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- run(&Options{f: f, Context: context.Background(), Ready: func() { close(ready) }})
	}()
	<-ready
	store := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"totalTokens": 6787`, `"totalTokens": 7001`, 1))
	if err := os.WriteFile(store+".tmp", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(store+".tmp", store); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev ops.WatchEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Kind != "updated" || ev.Key != "main" || strings.Join(ev.Fields, ",") != "totalTokens" {
		t.Fatalf("%s: %+v %v", line, ev, err)
	}
	r.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch went on after its reader closed the pipe")
	}
}
