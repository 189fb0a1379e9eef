package e2e_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileModes: with the most permissive umask (000), every file the CLI
// and its runners create gets OpenClaw's private modes — the store 0600,
// run records, logs, locks, the outbox and new transcripts 0600, every
// directory 0700 — so the modes come from the code, not the umask; and an
// existing file's mode is never widened (a store is narrowed to 0600 at
// most, like OpenClaw's chmod; a transcript we append to keeps its mode).
func TestFileModes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	state := relState(t, root, "state-2026.1.30")
	engine := filepath.Join(root, "engine.sh")
	must(t, os.WriteFile(engine, []byte("cat >/dev/null; case \"$SESSIONS_MESSAGE\" in *'announce step'*) echo 'announce text';; *) echo ok;; esac\n"), 0o755))
	// Run every command under umask 000 (the runner inherits it).
	wrapper := filepath.Join(root, "umask0.sh")
	must(t, os.WriteFile(wrapper, []byte("#!/bin/sh\numask 000\nexec \"$SESSIONS_REAL\" \"$@\"\n"), 0o755))
	env := relEnv(root, "SESSIONS_ENGINE=exec:sh '"+engine+"'", "SESSIONS_REAL="+relExe(t))
	run := func(args ...string) relResult {
		t.Helper()
		r := relRunAs(t, wrapper, nil, env, 30*time.Second, append([]string{"--state-dir", state}, args...)...)
		if r.Code != 0 {
			t.Fatalf("sessions %q exited %d: %s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		return r
	}
	sessions := filepath.Join(state, "agents", "main", "sessions")
	opsSessions := filepath.Join(state, "agents", "ops", "sessions")
	hookT := filepath.Join(sessions, "02161643-4320-459e-9b07-c42d02d97f2f.jsonl")
	tgT := filepath.Join(sessions, "31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl")
	dmT := filepath.Join(sessions, "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl")
	must(t, os.Remove(hookT)) // a send re-creates it
	must(t, os.Chmod(tgT, 0o644))
	must(t, os.Chmod(dmT, 0o640))
	must(t, os.Chmod(filepath.Join(sessions, "sessions.json"), 0o644))
	must(t, os.Chmod(filepath.Join(opsSessions, "sessions.json"), 0o400))
	modesBefore := relModes(t, root)

	run("patch", "agent:main:main", "--label", "modes")                                                           // store 0644 → 0600
	run("patch", "agent:ops:main", "--label", "modes")                                                            // store 0400 stays 0400
	run("send", "agent:main:hook:github:push-42", "hi", "--timeout", "20")                                        // creates a transcript
	run("send", "agent:main:telegram:group:-100123", "hi", "--timeout", "20", "--deliver", "exec:cat >/dev/null") // appends, outbox, delivery mirror
	run("send", "agent:main:signal:dm:+15551230001", "hi", "--timeout", "20")                                     // appends to a 0640 file
	if relRun(t, env, 20*time.Second, "spawn", "--help").Code == 0 {
		run("spawn", "a task", "--json") // a child entry and its transcript, the announce
	}
	relWaitRuns(t, env, state, 30*time.Second)

	want := map[string]os.FileMode{
		"state/agents/main/sessions/sessions.json":                              0o600,
		"state/agents/ops/sessions/sessions.json":                               0o400,
		"state/agents/main/sessions/31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl": 0o644,
		"state/agents/main/sessions/26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl": 0o640,
	}
	created := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "state/") {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()
		if w, ok := want[rel]; ok {
			if mode != w {
				t.Errorf("%s: mode %v, want %v", rel, mode, w)
			}
			return nil
		}
		if prev, existed := modesBefore[rel]; existed {
			if prev != info.Mode() {
				t.Errorf("%s: mode changed: %v → %v", rel, prev, info.Mode())
			}
			return nil
		}
		created++
		switch {
		case d.IsDir() && mode != 0o700:
			t.Errorf("%s: created with mode %v, want 0700", rel, mode)
		case d.Type().IsRegular() && mode != 0o600:
			t.Errorf("%s: created with mode %v, want 0600", rel, mode)
		case !d.IsDir() && !d.Type().IsRegular():
			t.Errorf("%s: created a %v", rel, d.Type())
		}
		return nil
	})
	must(t, err)
	if created < 8 {
		t.Errorf("only %d files created: the scenario did not run", created)
	}
	if _, err := os.Stat(hookT); err != nil {
		t.Errorf("the send did not create its transcript: %v", err)
	}
	t.Logf("%d files and directories created, all 0600/0700", created)
}

// TestNoSymlinkWrites: a write never goes through a symbolic link that
// leads out of the state dir. A sessions.json that is a link is replaced
// by the atomic rename (as OpenClaw's rename does), the file it pointed to
// is untouched; a transcript that is a link leading out is refused before
// a run exists; a dangling one is never created through.
func TestNoSymlinkWrites(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	state := relState(t, root, "state-2026.1.30")
	outside := filepath.Join(root, "outside")
	must(t, os.MkdirAll(outside, 0o755))
	env := relEnv(root, "SESSIONS_ENGINE=exec:echo ok")
	sessions := filepath.Join(state, "agents", "main", "sessions")

	// sessions.json → outside
	storeOut := filepath.Join(outside, "sessions.json")
	must(t, os.Rename(filepath.Join(sessions, "sessions.json"), storeOut))
	must(t, os.Symlink(storeOut, filepath.Join(sessions, "sessions.json")))
	// a transcript → an outside file; another → a missing outside file
	tOut := filepath.Join(outside, "t.jsonl")
	must(t, os.Rename(filepath.Join(sessions, "31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl"), tOut))
	must(t, os.Symlink(tOut, filepath.Join(sessions, "31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl")))
	must(t, os.Remove(filepath.Join(sessions, "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl")))
	must(t, os.Symlink(filepath.Join(outside, "missing.jsonl"), filepath.Join(sessions, "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl")))
	outBefore := relSnapshot(t, outside)

	if r := relRun(t, env, 20*time.Second, "--state-dir", state, "send", "agent:main:telegram:group:-100123", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, "lies outside the state dir") {
		t.Errorf("send into a transcript linked outside: exit %d: %s", r.Code, r.Stderr)
	}
	// The DM entry's sessionFile (an absolute path of the original host)
	// is missing; its <sessionId>.jsonl is the dangling link.
	if r := relRun(t, env, 20*time.Second, "--state-dir", state, "send", "agent:main:signal:dm:+15551230001", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, "refusing to create a file through it") {
		t.Errorf("send into a dangling transcript link: exit %d: %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(state, "sessions-cli")); err == nil {
		t.Errorf("a refused send recorded a run")
	}
	if r := relRun(t, env, 20*time.Second, "--state-dir", state, "patch", "agent:main:main", "--label", "through-link"); r.Code != 0 {
		t.Fatalf("patch: exit %d: %s", r.Code, r.Stderr)
	}
	if d := relDiff(outBefore, relSnapshot(t, outside)); len(d) > 0 {
		t.Errorf("files outside the state dir changed:\n%s", strings.Join(d, "\n"))
	}
	fi, err := os.Lstat(filepath.Join(sessions, "sessions.json"))
	must(t, err)
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("sessions.json after the patch: %v (want a regular 0600 file)", fi.Mode())
	}
	if !strings.Contains(readFile(t, filepath.Join(sessions, "sessions.json")), `"label": "through-link"`) {
		t.Errorf("the patch is not in the new store")
	}
}

// relModes maps every path under root to its mode (type and permissions).
func relModes(t *testing.T, root string) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = info.Mode()
		return nil
	}))
	return out
}
