package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// fakeGW records the calls the lifecycle makes and answers as the real
// gateways do (shapes of 1.30 and 9.6 observed live).
type fakeGW struct {
	proto int
	calls []string
	args  []any
}

func (g *fakeGW) Protocol() int { return g.proto }

func (g *fakeGW) DeleteSession(_ context.Context, key string, p gateway.DeleteParams) (*gateway.DeleteResult, error) {
	g.calls = append(g.calls, "sessions.delete "+key)
	g.args = append(g.args, p)
	return &gateway.DeleteResult{OK: true, Key: key, Deleted: true, Archived: []string{"/nowhere/" + p.ExpectedSessionID + ".jsonl.deleted.x"}}, nil
}

func (g *fakeGW) ResetSession(_ context.Context, key, sid string) (*gateway.ResetResult, error) {
	g.calls = append(g.calls, "sessions.reset "+key)
	g.args = append(g.args, sid)
	newID := "11111111-2222-4333-8444-555555555555"
	if g.proto >= 4 {
		newID = sid
	}
	return &gateway.ResetResult{OK: true, Key: key, Entry: json.RawMessage(`{"sessionId":"` + newID + `","updatedAt":1795454460632}`)}, nil
}

func (g *fakeGW) PatchSession(_ context.Context, key string, fields map[string]any) (*gateway.PatchResult, error) {
	g.calls = append(g.calls, "sessions.patch "+key)
	g.args = append(g.args, fields)
	return &gateway.PatchResult{OK: true, Key: key, Entry: json.RawMessage(`{"archivedAt":1795454460000,"updatedAt":1795454460001}`)}, nil
}

func fixtureState(t *testing.T, name string) *state.State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func target(t *testing.T, s *state.State, key string) *state.Target {
	t.Helper()
	tg, err := s.Resolve(key, policy.OpSend)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// With a gateway every write is its RPC with the params of its version; the
// files are never written; a dry run calls nothing that writes; the main
// session is refused before any call.
func TestRemote(t *testing.T) {
	for _, proto := range []int{3, 4} {
		for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
			s := fixtureState(t, fixture)
			before := treeHash(t, s.Dir.Path)
			g := &fakeGW{proto: proto}
			o := Options{Remote: &Remote{URL: "ws://fake", Dial: func(context.Context) (Gateway, error) { return g, nil }}}
			ctx := context.Background()
			hook := target(t, s, "agent:main:hook:github:push-42")

			_, err := Delete(ctx, s, []*state.Target{target(t, s, "main")}, o)
			if err == nil || apperr.CodeOf(err) != 1 || len(g.calls) != 0 {
				t.Fatalf("main: %v, calls %v", err, g.calls)
			}
			_, err = Archive(ctx, s, target(t, s, "main"), o)
			if err == nil || len(g.calls) != 0 {
				t.Fatalf("archive main: %v, calls %v", err, g.calls)
			}

			dry := o
			dry.DryRun = true
			for _, op := range []func() (*Result, error){
				func() (*Result, error) { return Delete(ctx, s, []*state.Target{hook}, dry) },
				func() (*Result, error) { return Reset(ctx, s, hook, dry) },
				func() (*Result, error) { return Archive(ctx, s, hook, dry) },
			} {
				res, err := op()
				if err != nil {
					t.Fatal(err)
				}
				if !res.DryRun || res.Count != 1 {
					t.Fatalf("dry run %+v", res)
				}
			}
			if len(g.calls) != 0 {
				t.Fatalf("a dry run called %v", g.calls)
			}

			o.KeepTranscript = true
			res, err := Delete(ctx, s, []*state.Target{hook}, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Count != 1 || res.Sessions[0].Transcripts[0] != "/nowhere/"+hook.Entry.SessionID+".jsonl.deleted.x" {
				t.Fatalf("delete %+v", res)
			}
			if want := (gateway.DeleteParams{KeepTranscript: true, ExpectedSessionID: hook.Entry.SessionID}); g.args[0] != want {
				t.Fatalf("delete params %+v", g.args[0])
			}
			rr, err := Reset(ctx, s, hook, o)
			if err != nil {
				t.Fatal(err)
			}
			if proto >= 4 && rr.Sessions[0].NewSessionID != hook.Entry.SessionID || proto < 4 && rr.Sessions[0].NewSessionID == hook.Entry.SessionID {
				t.Fatalf("reset %+v", rr.Sessions[0])
			}
			ar, err := Archive(ctx, s, hook, o)
			if err != nil {
				t.Fatal(err)
			}
			wantCalls := []string{"sessions.delete agent:main:hook:github:push-42", "sessions.reset agent:main:hook:github:push-42"}
			if proto >= 4 {
				wantCalls = append(wantCalls, "sessions.patch agent:main:hook:github:push-42")
				if !reflect.DeepEqual(g.args[2], map[string]any{"archived": true, "expectedSessionId": hook.Entry.SessionID}) {
					t.Fatalf("patch %v", g.args[2])
				}
				if ar.Sessions[0].ArchivedAt != 1795454460000 {
					t.Fatalf("archive %+v", ar.Sessions[0])
				}
			} else {
				wantCalls = append(wantCalls, "sessions.delete agent:main:hook:github:push-42")
			}
			if !reflect.DeepEqual(g.calls, wantCalls) {
				t.Fatalf("protocol %d calls %v", proto, g.calls)
			}
			if treeHash(t, s.Dir.Path) != before {
				t.Fatal("the state dir changed while going through the gateway")
			}
		}
	}
}

// treeHash hashes every file's path and bytes under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h.Write([]byte(p))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
