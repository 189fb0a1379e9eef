package sessionwrite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

const (
	hookKey = "agent:main:hook:github:push-42"
	child   = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
	childID = "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d"
)

func target(t *testing.T, s *state.State, key string) *state.Target {
	t.Helper()
	tg, err := s.Resolve(key, policy.OpSend)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// reread is the state of s's dir read afresh (a State keeps what it read).
func reread(t *testing.T, s *state.State) *state.State {
	t.Helper()
	s2, err := state.Open(state.Options{StateDir: s.Dir.Path, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	return s2
}

func lifecycleWrites(t *testing.T, s *state.State, now time.Time) Writes {
	t.Helper()
	r, err := Choose(s, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenLifecycle(s, "main", r, Options{LockTimeout: time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
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

// The sweep's remover on a JSON-era store: the entry leaves sessions.json,
// the transcript is renamed .deleted.<ts>; a second time is no error.
func TestLocalRemoverJSON(t *testing.T) {
	s := openState(t, "state-2026.1.30")
	now := time.UnixMilli(1900000061234)
	remove := LocalRemover(s)
	res, err := remove(context.Background(), "main", child, now, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	dir := s.SessionsDir("main")
	want := filepath.Join(dir, childID+".jsonl.deleted.2030-03-17T17-47-41.234Z")
	if !res.Existed || res.Archived || len(res.Renamed) != 1 || res.Renamed[0] != want || res.At != now.UnixMilli() {
		t.Fatalf("res %+v", res)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, childID+".jsonl")); !os.IsNotExist(err) {
		t.Error("transcript still there")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if strings.Contains(string(data), child) || !strings.Contains(string(data), "agent:main:main") {
		t.Error("entry not removed (or too much removed)")
	}
	res, err = remove(context.Background(), "main", child, now, time.Second)
	if err != nil || res.Existed || len(res.Renamed) != 0 {
		t.Errorf("second time: %+v %v", res, err)
	}
}

// A transcript whose real path is outside the state dir is never renamed.
func TestLocalRemoverNeverRenamesOutside(t *testing.T) {
	s := openState(t, "state-2026.1.30")
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	_ = os.WriteFile(outside, []byte("{}\n"), 0o644)
	link := filepath.Join(s.SessionsDir("main"), childID+".jsonl")
	_ = os.Remove(link)
	if err := os.Symlink(outside, link); err != nil {
		t.Skip(err)
	}
	res, err := LocalRemover(s)(context.Background(), "main", child, time.Now(), time.Second)
	if err != nil || !res.Existed || len(res.Renamed) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("link renamed")
	}
}

// The sweep's remover on a 2026.8+ store archives the row (archivedAt set).
func TestLocalRemoverSQLite(t *testing.T) {
	s := openState(t, "state-2026.9.6")
	now := time.UnixMilli(1900000061234)
	res, err := LocalRemover(s)(context.Background(), "main", hookKey, now, time.Second)
	if err != nil || !res.Existed || !res.Archived || res.At != now.UnixMilli() {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = LocalRemover(s)(context.Background(), "main", "agent:main:hook:gone", now, time.Second)
	if err != nil || res.Existed {
		t.Fatalf("gone: %+v %v", res, err)
	}
}

// JSON era: a dry run reports exactly what the real run then does and
// writes nothing; reset gives a new sessionId and keeps the transcript; a
// session changed since it was read is skipped; Idle is asked first.
func TestJSONLifecycle(t *testing.T) {
	s := openState(t, "state-2026.1.30")
	now := time.UnixMilli(1900000061234)
	w := lifecycleWrites(t, s, now)
	if !w.Route().Direct(era.JSON) {
		t.Fatalf("route %+v", w.Route())
	}
	ctx := context.Background()
	before := treeHash(t, s.Dir.Path)
	var asked []string
	idle := func(t *state.Target) error { asked = append(asked, t.Key); return nil }
	ch := target(t, s, child)
	dry, err := w.Delete(ctx, []*state.Target{ch}, Lifecycle{DryRun: true, Idle: idle})
	if err != nil {
		t.Fatal(err)
	}
	if treeHash(t, s.Dir.Path) != before {
		t.Fatal("a dry run wrote")
	}
	real, err := w.Delete(ctx, []*state.Target{ch}, Lifecycle{Idle: idle})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dry, real) || len(real.Items) != 1 || len(real.Items[0].Transcripts) != 1 || real.Items[0].Bytes == 0 ||
		!strings.HasSuffix(real.Items[0].Transcripts[0], ".deleted.2030-03-17T17-47-41.234Z") {
		t.Fatalf("dry %+v\nreal %+v", dry, real)
	}
	if !reflect.DeepEqual(asked, []string{child, child}) {
		t.Errorf("idle asked for %v", asked)
	}
	// gone meanwhile: skipped, nothing written
	again, err := w.Delete(ctx, []*state.Target{ch}, Lifecycle{})
	if err != nil || len(again.Items) != 0 || len(again.Skipped) != 1 || again.Skipped[0].Reason != "changed since it was read" {
		t.Fatalf("again: %+v %v", again, err)
	}
	// prune's cutoff: updated since (not below the cutoff) is skipped
	hook := target(t, s, hookKey)
	cut, err := w.Delete(ctx, []*state.Target{hook}, Lifecycle{Cutoff: hook.Entry.Updated()})
	if err != nil || len(cut.Items) != 0 || len(cut.Skipped) != 1 {
		t.Fatalf("cutoff: %+v %v", cut, err)
	}
	// a refusal of Idle stops before anything is written
	busy := apperr.Errorf("busy")
	if _, err := w.Reset(ctx, hook, Lifecycle{Idle: func(*state.Target) error { return busy }}); err != busy {
		t.Fatalf("reset of a busy session: %v", err)
	}
	it, err := w.Reset(ctx, hook, Lifecycle{})
	if err != nil || it.NewSessionID == "" || it.NewSessionID == hook.Entry.SessionID || it.SessionID != hook.Entry.SessionID {
		t.Fatalf("reset: %+v %v", it, err)
	}
	if got := target(t, reread(t, s), hookKey); got.Entry.SessionID != it.NewSessionID {
		t.Errorf("after reset: sessionId %s", got.Entry.SessionID)
	}
	// archive is a delete there
	ar, err := w.Archive(ctx, target(t, reread(t, s), hookKey), Lifecycle{})
	if err != nil || len(ar.Items) != 1 || ar.Items[0].ArchivedAt != 0 {
		t.Fatalf("archive: %+v %v", ar, err)
	}
	if _, err := reread(t, s).Resolve(hookKey, policy.OpSend); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("archived session still there: %v", err)
	}
}

// SQLite era: delete and archive by the direct writer (a dry run opens
// nothing for writing), reset refused with exit 10.
func TestSQLiteLifecycle(t *testing.T) {
	s := openState(t, "state-2026.9.6")
	now := time.UnixMilli(1900000061234)
	w := lifecycleWrites(t, s, now)
	if !w.Route().Direct(era.SQLite) {
		t.Fatalf("route %+v", w.Route())
	}
	ctx := context.Background()
	hook := target(t, s, hookKey)
	if _, err := w.Reset(ctx, hook, Lifecycle{}); apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "sessions reset goes through OpenClaw's gateway there") {
		t.Fatalf("reset: %v", err)
	}
	before := treeHash(t, s.Dir.Path)
	dry, err := w.Archive(ctx, hook, Lifecycle{DryRun: true})
	if err != nil || len(dry.Items) != 1 || dry.Items[0].ArchivedAt != now.UnixMilli() {
		t.Fatalf("dry archive: %+v %v", dry, err)
	}
	if _, err := w.Delete(ctx, []*state.Target{hook}, Lifecycle{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if treeHash(t, s.Dir.Path) != before {
		t.Fatal("a dry run wrote")
	}
	ar, err := w.Archive(ctx, hook, Lifecycle{})
	if err != nil || len(ar.Items) != 1 || ar.Items[0].ArchivedAt != now.UnixMilli() {
		t.Fatalf("archive: %+v %v", ar, err)
	}
	del, err := w.Delete(ctx, []*state.Target{target(t, s, "agent:main:cron:peer-job-1")}, Lifecycle{})
	if err != nil || len(del.Items) != 1 || len(del.Items[0].Transcripts) != 0 {
		t.Fatalf("delete: %+v %v", del, err)
	}
}

// ResetEntry keeps exactly the fields sessions.reset keeps, in its order,
// zeroes the counters and drops the rest (sessionFile, spawnedBy, channel…);
// an absent field stays absent (JSON.stringify drops undefined).
func TestResetEntry(t *testing.T) {
	old := jsonx.NewObject()
	if err := json.Unmarshal([]byte(`{"sessionId":"old","updatedAt":5,"sessionFile":"/x.jsonl","spawnedBy":"agent:main:main","label":"L","model":"m","totalTokens":900,"inputTokens":800,"outputTokens":100,"sendPolicy":"deny","origin":{"provider":"telegram"},"lastTo":"42","thinkingLevel":"high","channel":"telegram","systemSent":true}`), old); err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1767225600000)
	got, err := json.Marshal(ResetEntry(old, "new", now))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionId":"new","updatedAt":1767225600000,"systemSent":false,"abortedLastRun":false,"thinkingLevel":"high","model":"m","sendPolicy":"deny","label":"L","origin":{"provider":"telegram"},"lastTo":"42","inputTokens":0,"outputTokens":0,"totalTokens":0}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

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

// Through a gateway every write is its RPC with the params of its version;
// the files are never written; a dry run calls nothing that writes.
func TestGatewayLifecycle(t *testing.T) {
	for _, proto := range []int{3, 4} {
		for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
			s := openState(t, fixture)
			before := treeHash(t, s.Dir.Path)
			g := &fakeGW{proto: proto}
			ctx := context.Background()
			now := func() time.Time { return time.UnixMilli(1795454400000) }
			hook := target(t, s, hookKey)
			hs, err := SessionOf(s, hook, true)
			if err != nil {
				t.Fatal(err)
			}
			idle := func(*state.Target) error { t.Error("a gateway write asked Idle"); return nil }

			dry := Lifecycle{DryRun: true, Idle: idle}
			if out, err := DeleteThrough(ctx, g, []GatewaySession{hs}, dry); err != nil || len(out.Items) != 1 {
				t.Fatalf("dry delete %+v %v", out, err)
			}
			if it, err := ResetThrough(ctx, g, "ws://fake", hs, dry, now()); err != nil || (proto >= 4) != (it.NewSessionID == hook.Entry.SessionID) {
				t.Fatalf("dry reset %+v %v", it, err)
			}
			if out, err := ArchiveThrough(ctx, g, hs, dry, now()); err != nil || len(out.Items) != 1 {
				t.Fatalf("dry archive %+v %v", out, err)
			}
			if len(g.calls) != 0 {
				t.Fatalf("a dry run called %v", g.calls)
			}

			out, err := DeleteThrough(ctx, g, []GatewaySession{hs}, Lifecycle{KeepTranscript: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Items) != 1 || out.Items[0].Transcripts[0] != "/nowhere/"+hook.Entry.SessionID+".jsonl.deleted.x" {
				t.Fatalf("delete %+v", out)
			}
			if want := (gateway.DeleteParams{KeepTranscript: true, ExpectedSessionID: hook.Entry.SessionID}); g.args[0] != want {
				t.Fatalf("delete params %+v", g.args[0])
			}
			rr, err := ResetThrough(ctx, g, "ws://fake", hs, Lifecycle{}, now())
			if err != nil {
				t.Fatal(err)
			}
			if proto >= 4 && rr.NewSessionID != hook.Entry.SessionID || proto < 4 && rr.NewSessionID == hook.Entry.SessionID {
				t.Fatalf("reset %+v", rr)
			}
			ar, err := ArchiveThrough(ctx, g, hs, Lifecycle{}, now())
			if err != nil {
				t.Fatal(err)
			}
			wantCalls := []string{"sessions.delete " + hookKey, "sessions.reset " + hookKey}
			if proto >= 4 {
				wantCalls = append(wantCalls, "sessions.patch "+hookKey)
				if !reflect.DeepEqual(g.args[2], map[string]any{"archived": true, "expectedSessionId": hook.Entry.SessionID}) {
					t.Fatalf("patch %v", g.args[2])
				}
				if ar.Items[0].ArchivedAt != 1795454460000 {
					t.Fatalf("archive %+v", ar.Items[0])
				}
			} else {
				wantCalls = append(wantCalls, "sessions.delete "+hookKey)
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
