package show_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmd/show"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/tidwall/gjson"
)

func run(t *testing.T, width int, args ...string) string {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(width)
	env := map[string]string{}
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    func() time.Time { return time.UnixMilli(1795236254224 + 90*60*1000) },
		Getenv: func(k string) string { return env[k] },
	}
	state, err := filepath.Abs("../../../testdata/state-2026.1.30")
	if err != nil {
		t.Fatal(err)
	}
	if code := cli.Run(f, append([]string{"--state-dir", state}, args...)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut.Len() > 0 {
		t.Errorf("stderr: %s", errOut)
	}
	return out.String()
}

// The terminal view: key/value sections; keys and paths whole (people copy
// them), entry values cut to the width.
func TestShowTTY(t *testing.T) {
	out := run(t, 80, "show", "main")
	for _, want := range []string{
		"main  (agent:main:main)\n",
		"  kind            main\n",
		"  updated         2026-11-21T04:44:13Z (1h ago)\n",
		"  model           mock/mock-1\n",
		"  tokens          input 6787 · output 13 · total 6787 · context 128000\n",
		"\nTranscript\n",
		"/agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl\n",
		"  size            8.8 KiB\n",
		"  messages        17\n",
		"  lock            free (no OpenClaw run on it)\n",
		"\nLineage\n  spawned by      -\n  children        agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2\n",
		"\nRuns (1)\n  0f8fd880-ca19-4a4a-9cf1-aa73ee1bf18c  subagent ok → agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2 [build-stats]",
		"\nEntry\n",
		"  deliveryContext {\"channel\":\"signal\",\"to\":\"+15551230001\",\"accountId\":\"default\"}\n",
		"  channel         whatsapp\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	inEntry := false
	for _, l := range strings.Split(out, "\n") {
		if l == "Entry" {
			inEntry = true
		}
		if inEntry && len([]rune(l)) > 80 {
			t.Errorf("entry line wider than the terminal: %q", l)
		}
	}
}

func TestFlatten(t *testing.T) {
	doc := `{"key":"main","updatedAt":1795236253191,"n":3,"ok":false,"none":null,"empty":"","a":[{"x":"1\t2\n3"},"y"],"o":{"archiveAtMs":1795239840796,"createdAt":"not a number"}}`
	var got []string
	show.Flatten(gjson.Parse(doc), "", func(p, v string) { got = append(got, p+"="+v) })
	want := "key=main|updatedAt=2026-11-21T04:44:13Z|n=3|ok=false|a.0.x=1 2 3|a.1=y|o.archiveAtMs=2026-11-21T05:44:00Z|o.createdAt=not a number"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("Flatten:\n got %s\nwant %s", g, want)
	}
}
