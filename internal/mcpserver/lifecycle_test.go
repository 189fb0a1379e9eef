package mcpserver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hashes are the SHA-256 of every file under the state dir, by path.
func (s *state) hashes() map[string]string {
	s.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[strings.TrimPrefix(p, s.dir)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// sameHashes fails the test when a file under the state dir was added,
// removed or changed since before was taken.
func (s *state) sameHashes(before map[string]string, when string) {
	s.t.Helper()
	after := s.hashes()
	for p, h := range before {
		if after[p] != h {
			s.t.Errorf("%s: %s changed or removed", when, p)
		}
	}
	for p := range after {
		if _, had := before[p]; !had {
			s.t.Errorf("%s: %s added", when, p)
		}
	}
}

// cliAnswer is what the CLI answers args with --json: its exit code and
// its document (on failure the error document), with the state dir's
// path written as dir (the CLI may run on another copy than the server).
func (s *state) cliAnswer(dir string, args ...string) (int, map[string]any) {
	s.t.Helper()
	code, out := s.cli(append(args, "--json")...)
	out = strings.ReplaceAll(out, s.dir, dir)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		s.t.Fatalf("sessions %s --json: exit %d: %v\n%s", strings.Join(args, " "), code, err, out)
	}
	return code, m
}

// newIDs maps the new sessionIds a reset gave on the server's copy to
// those it gave on the CLI's (new ids are random).
type newIDs map[string]string

// learn records the new sessionIds of a lifecycle document pair.
func (n newIDs) learn(got, want any) {
	g, _ := got.(map[string]any)
	w, _ := want.(map[string]any)
	gs, _ := g["sessions"].([]any)
	ws, _ := w["sessions"].([]any)
	for i := range min(len(gs), len(ws)) {
		gi, _ := gs[i].(map[string]any)["newSessionId"].(string)
		wi, _ := ws[i].(map[string]any)["newSessionId"].(string)
		if gi != "" && wi != "" {
			n[gi] = wi
		}
	}
}

// same compares two documents with the server's new ids read as the
// CLI's.
func (n newIDs) same(got, want any) bool {
	x, _ := json.Marshal(got)
	y, _ := json.Marshal(want)
	gs := string(x)
	for g, w := range n {
		gs = strings.ReplaceAll(gs, g, w)
	}
	return gs == string(y)
}

// sameAnswer checks that a tool's result is the CLI's answer: the same
// document on success (new sessionIds aside: ids records them); on
// failure a tool error naming the CLI's exit code whose error document is
// the CLI's.
func sameAnswer(t *testing.T, what string, ids newIDs, res *mcp.CallToolResult, code int, want map[string]any) {
	t.Helper()
	if code == 0 {
		ids.learn(res.StructuredContent, want)
		if res.IsError {
			t.Errorf("%s: tool error %s, the CLI succeeded with %v", what, text(res), want)
		} else if !ids.same(res.StructuredContent, want) {
			t.Errorf("%s:\n got %v\nwant %v", what, res.StructuredContent, want)
		}
		return
	}
	if !res.IsError {
		t.Errorf("%s: succeeded with %v, the CLI failed (exit %d): %v", what, res.StructuredContent, code, want)
		return
	}
	if !strings.Contains(text(res), fmt.Sprintf("(exit %d): ", code)) {
		t.Errorf("%s: %s, the CLI exits %d", what, text(res), code)
	}
	var got map[string]any
	if len(res.Content) < 2 || json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &got) != nil || !sameJSON(got, want) {
		t.Errorf("%s: error document %v, the CLI's %v", what, res.Content, want)
	}
}

// The lifecycle tools on both eras and both transports: a dry run is the
// CLI's dry run and changes no file; a real delete, reset and archive are
// what the CLI does on another copy of the same state; the main session is
// refused as the CLI refuses it, and nothing is written then.
func TestLifecycleTools(t *testing.T) {
	const (
		hook       = "agent:main:hook:github:push-42"
		group      = "agent:main:telegram:group:-100123"
		cronPrefix = "agent:main:cron:"
	)
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				twin := newState(t, fx) // the CLI's copy for the real writes
				cs := tr.connect(t, s.server(false), nil)
				// a cron session of the main agent (each fixture has its own)
				var cronKey string
				for _, r := range s.cliDoc("list")["sessions"].([]any) {
					if k := r.(map[string]any)["key"].(string); strings.HasPrefix(k, cronPrefix) {
						cronKey = k
					}
				}
				if cronKey == "" {
					t.Fatal("no cron session in the fixture")
				}

				before := s.hashes()
				dry := []struct {
					tool    string
					args    map[string]any
					cli     []string
					refused bool
				}{
					{"sessions_delete", map[string]any{"sessionKey": hook, "dryRun": true}, []string{"delete", hook, "--dry-run"}, false},
					{"sessions_delete", map[string]any{"keys": []string{hook, group}, "dryRun": true, "keepTranscript": true}, []string{"delete", hook, group, "--dry-run", "--keep-transcript"}, false},
					{"sessions_reset", map[string]any{"sessionKey": hook, "dryRun": true}, []string{"reset", hook, "--dry-run"}, false},
					{"sessions_archive", map[string]any{"sessionKey": hook, "dryRun": true}, []string{"archive", hook, "--dry-run"}, false},
					// the main session: refused, as the CLI refuses it
					{"sessions_delete", map[string]any{"sessionKey": "main"}, []string{"delete", "main"}, true},
					{"sessions_delete", map[string]any{"keys": []string{hook, "main"}}, []string{"delete", hook, "main"}, true},
					{"sessions_archive", map[string]any{"sessionKey": "main"}, []string{"archive", "main"}, true},
					{"sessions_reset", map[string]any{"sessionKey": "agent:ops:main", "dryRun": true}, []string{"reset", "agent:ops:main", "--dry-run"}, false},
				}
				ids := newIDs{}
				for _, c := range dry {
					res := call(t, cs, c.tool, c.args)
					code, want := s.cliAnswer(s.dir, c.cli...)
					sameAnswer(t, fmt.Sprintf("%s %v", c.tool, c.args), ids, res, code, want)
					if c.refused && (code == 0 || !res.IsError || !strings.Contains(text(res), "main session")) {
						t.Errorf("%s %v: the main session was not refused: %s", c.tool, c.args, text(res))
					}
				}
				s.sameHashes(before, "after the dry runs and the refusals")

				// the real writes, the server on s and the CLI on its twin
				for _, c := range []struct {
					tool string
					args map[string]any
					cli  []string
				}{
					{"sessions_delete", map[string]any{"keys": []string{hook}}, []string{"delete", hook}},
					{"sessions_reset", map[string]any{"sessionKey": group}, []string{"reset", group}},
					{"sessions_archive", map[string]any{"sessionKey": cronKey}, []string{"archive", cronKey}},
				} {
					res := call(t, cs, c.tool, c.args)
					code, want := twin.cliAnswer(s.dir, c.cli...)
					sameAnswer(t, fmt.Sprintf("%s %v", c.tool, c.args), ids, res, code, want)
				}
				// the same stores after: the server's copy as the CLI left its own
				_, got := s.cliAnswer(s.dir, "list", "--all-agents")
				_, want := twin.cliAnswer(s.dir, "list", "--all-agents")
				if !ids.same(got, want) {
					t.Errorf("the stores differ after the writes:\n got %v\nwant %v", got, want)
				}
				if _, err := os.Stat(filepath.Join(s.dir, "agents")); err != nil {
					t.Fatal(err)
				}
				if n, _ := got["count"].(float64); n == 0 || len(ids) == 0 && fx == fixtures[0] {
					t.Errorf("after the writes: %v sessions, %d resets compared", got["count"], len(ids))
				}
			})
		}
	}
}

// A session with a live run (OpenClaw's transcript lock held by a live
// pid) is refused by every lifecycle tool as the CLI refuses it, and
// nothing is written.
func TestLifecycleBusy(t *testing.T) {
	const hook = "agent:main:hook:github:push-42"
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newState(t, fixtures[0])
			lock := filepath.Join(s.dir, "agents", "main", "sessions", "02161643-4320-459e-9b07-c42d02d97f2f.jsonl.lock")
			if err := os.WriteFile(lock, []byte(`{"pid":1,"createdAt":"2100-01-01T00:00:00.000Z"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, s.server(false), nil)
			before := s.hashes()
			for _, c := range []struct {
				tool string
				cli  []string
			}{
				{"sessions_delete", []string{"delete", hook}},
				{"sessions_reset", []string{"reset", hook}},
				{"sessions_archive", []string{"archive", hook}},
			} {
				res := call(t, cs, c.tool, map[string]any{"sessionKey": hook})
				code, want := s.cliAnswer(s.dir, c.cli...)
				sameAnswer(t, c.tool+" of a busy session", newIDs{}, res, code, want)
				if !res.IsError || !strings.Contains(text(res), "is still active") {
					t.Errorf("%s of a busy session: %s", c.tool, text(res))
				}
			}
			s.sameHashes(before, "after the refusals of a busy session")
		})
	}
}
