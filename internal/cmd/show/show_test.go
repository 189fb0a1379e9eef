package show_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmd/show"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/tidwall/gjson"
)

func run(t *testing.T, width int, args ...string) string {
	t.Helper()
	state, err := filepath.Abs("../../../testdata/state-2026.1.30")
	if err != nil {
		t.Fatal(err)
	}
	return runIn(t, state, width, args...)
}

func runIn(t *testing.T, state string, width int, args ...string) string {
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

// show lists the .reset/.deleted copies attributed to the session among its
// earlier transcripts, newest first, zstd-compressed or not, with their
// messages counted; a copy attributed to no session is not listed.
func TestShowListsArchivedCopies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	sessDir := filepath.Join(dir, "agents", "main", "sessions")
	const cur, named, stray = "c040fd20-0a1c-4ce0-924c-6e695a32eecb", "0badc0de-0000-4000-8000-0000000000b2", "0badc0de-0000-4000-8000-0000000000ff"
	lines := func(sid string, n int) []byte {
		b := []byte(`{"type":"session","version":3,"id":"` + sid + `","timestamp":"2026-11-20T01:00:00.000Z","cwd":"/w"}` + "\n")
		for i := range n {
			b = fmt.Appendf(b, `{"type":"message","id":"m%d","parentId":null,"timestamp":"2026-11-20T01:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1795222801000}}`+"\n", i)
		}
		return b
	}
	enc, _ := zstd.NewWriter(nil)
	for name, b := range map[string][]byte{
		cur + ".jsonl.reset.2026-11-20T01-30-00.000Z":       lines(cur, 3),
		named + ".jsonl.reset.2026-11-20T02-30-00.000Z.zst": enc.EncodeAll(lines(named, 2), nil),
		stray + ".jsonl.deleted.2026-11-20T00-30-00.000Z":   lines(stray, 1),
	} {
		if err := os.WriteFile(filepath.Join(sessDir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	curPath := filepath.Join(sessDir, cur+".jsonl")
	b, _ := os.ReadFile(curPath)
	b = bytes.Replace(b, []byte(`"cwd":"/home/claw/.openclaw/workspace"}`), []byte(`"cwd":"/home/claw/.openclaw/workspace","parentSession":"`+filepath.Join(sessDir, named+".jsonl")+`"}`), 1)
	if err := os.WriteFile(curPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out := runIn(t, dir, 200, "show", "main", "--json")
	got := gjson.Get(out, `earlierTranscripts.#.[sessionId,source,messages,path]`).String()
	want := `[["` + named + `","archived",2,"` + filepath.Join(sessDir, named+".jsonl.reset.2026-11-20T02-30-00.000Z.zst") + `"],["` + cur + `","archived",3,"` + filepath.Join(sessDir, cur+".jsonl.reset.2026-11-20T01-30-00.000Z") + `"]]`
	if got != want {
		t.Errorf("earlierTranscripts %s\nwant %s", got, want)
	}
}
