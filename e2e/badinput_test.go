package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/testutil"
)

// The bad-input corpus (testdata/badinput/, one directory per case, see its
// README.md): every case is a copy of the bundled OpenClaw 2026.1.30 state
// with bad files laid over it (from the case directory, or generated below
// when they cannot live in git: FIFOs, symlinks, a 10 MB line, permissions,
// live and dead pids). For each case the test hashes every file under the
// case root (path, type, mode, sha256), runs the commands the case names,
// checks each exit code, a clear message and a time bound (nothing hangs),
// and then requires every file byte- and mode-identical — apart from the
// paths a case declares it writes (a dead lock evicted, a send that goes
// through). Nothing outside the state dir is ever opened: the outside files
// hold a marker that must never show up in any output, or are FIFOs that
// would hang whoever opened them.

const (
	biMainID   = "c040fd20-0a1c-4ce0-924c-6e695a32eecb"
	biSessions = "state/agents/main/sessions"
	biStore    = biSessions + "/sessions.json"
	biMainT    = biSessions + "/" + biMainID + ".jsonl"
	biSecret   = "BADINPUT-SECRET-7f3a9c" // in testdata/badinput/*/outside/secret.jsonl
)

type biCmd struct {
	args     []string // after `sessions --state-dir <state>`; @ROOT@, @STATE@, @OUTSIDE@ expanded
	env      []string // extra environment
	code     int      // expected exit code
	stdout   string   // regexp stdout must match ("" = no check)
	stderr   string   // regexp stderr must match ("" = no check)
	min, max time.Duration
}

type biEnv struct {
	root, state, outside string
	env                  []string
}

func (e *biEnv) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

type biCase struct {
	name    string // also the overlay dir testdata/badinput/<name>, when it exists
	fixture string // default state-2026.1.30
	setup   func(t *testing.T, e *biEnv)
	cmds    []biCmd
	changes []string // paths under the root allowed to change
	check   func(t *testing.T, e *biEnv, res []relResult)
	nonRoot string // when set, the case needs a non-root user; the reason
}

func readOnlyCmds(stderr string, code int) []biCmd {
	return []biCmd{
		{args: []string{"list"}, code: code, stderr: stderr},
		{args: []string{"list", "--json"}, code: code, stdout: `"status": "error"`},
		{args: []string{"history", "main"}, code: code, stderr: stderr},
	}
}

func writeCmds(stderr string, code int) []biCmd {
	return []biCmd{
		{args: []string{"patch", "main", "--label", "x"}, code: code, stderr: stderr},
		{args: []string{"send", "main", "hi", "--timeout", "5"}, code: code, stderr: stderr},
	}
}

func biCases() []biCase {
	cmds := func(groups ...[]biCmd) []biCmd {
		var out []biCmd
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	return []biCase{
		// ---- sessions.json
		{name: "store-empty", cmds: cmds(readOnlyCmds(`sessions.json is corrupt: the file is empty`, 10), writeCmds(`is corrupt: the file is empty`, 10))},
		{name: "store-truncated", cmds: cmds(readOnlyCmds(`sessions.json is corrupt: `, 10), writeCmds(`is corrupt`, 10))},
		{name: "store-array", cmds: cmds(readOnlyCmds(`sessions.json is corrupt: top level is an array, not an object`, 10), writeCmds(`top level is an array`, 10))},
		{name: "store-nul", cmds: cmds(readOnlyCmds(`sessions.json is corrupt: `, 10), writeCmds(`is corrupt`, 10))},
		{name: "store-directory", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Remove(e.path(biStore)))
			must(t, os.Mkdir(e.path(biStore), 0o700))
		}, cmds: cmds(readOnlyCmds(`cannot read session store .*sessions.json: is a directory`, 10), writeCmds(`sessions.json: not a regular file|is a directory`, 10))},
		{name: "store-fifo", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Remove(e.path(biStore)))
			must(t, testutil.Mkfifo(e.path(biStore)))
		}, cmds: cmds(readOnlyCmds(`sessions.json: not a regular file`, 10), writeCmds(`not a regular file`, 10))},
		{name: "store-invalid-utf8", cmds: []biCmd{
			// read: the bytes become U+FFFD, as OpenClaw's utf-8 decoding does
			{args: []string{"list", "--json"}, stdout: `"label": "bad \\ufffd\\ufffd bytes"`},
			{args: []string{"history", "main", "--limit", "1", "--json"}, stdout: `"sessionKey": "main"`},
			// a write elsewhere keeps the entry's raw bytes verbatim
			{args: []string{"patch", "agent:main:telegram:group:-100123", "--label", "tg"}, stdout: `patched`},
			// and so does a write to that very entry (unknown bytes kept)
			{args: []string{"patch", "main", "--send-policy", "deny"}, stdout: `patched main`},
		}, changes: []string{biStore}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			data := readFile(t, e.path(biStore))
			for _, want := range []string{"\"bad \xff\xfe bytes\"", "\"caf\xe9 latin-1\"", `"label": "tg"`, `"sendPolicy": "deny"`} {
				if !strings.Contains(data, want) {
					t.Errorf("store lost %q:\n%s", want, data)
				}
			}
		}},
		{name: "store-lone-surrogates", cmds: []biCmd{
			{args: []string{"list", "--json"}, stdout: `"label": "cut \x{FFFD}"`},
			{args: []string{"list", "--json"}, stdout: `"key": "agent:main:hook:emoji-\x{FFFD}"`},
			{args: []string{"history", "main", "--limit", "1", "--json"}, stdout: `"sessionKey": "main"`},
			{args: []string{"patch", "agent:main:telegram:group:-100123", "--label", "tg"}, stdout: `patched`},
			{args: []string{"patch", "main", "--send-policy", "deny"}, stdout: `patched main`},
		}, changes: []string{biStore}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			data := readFile(t, e.path(biStore))
			for _, want := range []string{`"label": "cut \ud83e"`, `"displayName": "\ude00 tail \ud83d\ude00 ok"`,
				`"agent:main:hook:emoji-\ud83e": {`, `"agent:main:hook:emoji-\ud83f": {`, `"sendPolicy": "deny"`} {
				if !strings.Contains(data, want) {
					t.Errorf("store lost %s:\n%s", want, data)
				}
			}
		}},
		{name: "store-duplicate-keys", cmds: []biCmd{
			// JSON.parse: the last value wins, at the first position
			{args: []string{"list", "--jq", `[.sessions[] | select(.key=="main") | .label] | join(",")`}, stdout: `^last-copy\n$`},
			{args: []string{"history", "main", "--jq", ".sessionId"}, stdout: `^` + biMainID + `\n$`},
		}},

		// ---- transcripts
		{name: "transcript-invalid-utf8", cmds: []biCmd{
			// OpenClaw never writes invalid UTF-8: such a line is corrupt,
			// skipped with one warning, never dropped from the file
			{args: []string{"history", "main", "--jq", `[.messages[].content[0].text] | join(",")`}, stdout: `^first,second,third\n$`, stderr: `skipped 1 unreadable line`},
			{args: []string{"history", "main", "--limit", "1", "--jq", `.messages[0].content[0].text`}, stdout: `^third\n$`},
		}},
		{name: "transcript-lone-surrogates", cmds: []biCmd{
			// OpenClaw writes "\ud83e" when a JS slice cuts an emoji: read, kept
			{args: []string{"history", "main", "--json"}, stdout: `"text": "cut emoji \\ud83e here"`},
			{args: []string{"history", "main", "--raw", "--json"}, stdout: `"text": "reply \\udc00 and a pair \\ud83d\\ude00"`},
			{args: []string{"history", "main", "--limit", "1", "--json"}, stdout: `reply \\udc00`},
			{args: []string{"list", "--messages", "2", "--jq", `.sessions[] | select(.key=="main") | .messages | length`}, stdout: `^2\n$`},
		}},
		{name: "transcript-10mb-line", setup: func(t *testing.T, e *biEnv) {
			f, err := os.OpenFile(e.path(biMainT), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			big := strings.Repeat("x", 10<<20)
			fmt.Fprintf(f, `{"type":"message","id":"big10mb","parentId":null,"timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"%s"}],"timestamp":1795236300000}}`+"\n", big)
			fmt.Fprintln(f, `{"type":"message","id":"after","parentId":"big10mb","timestamp":"2026-11-21T05:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"after the big line"}],"stopReason":"stop","timestamp":1795236300001}}`)
			must(t, f.Close())
		}, cmds: []biCmd{
			{args: []string{"history", "main", "--limit", "2", "--jq", `[.messages[].content[0].text | length] | join(",")`}, stdout: `^4014,18\n$`, max: 60 * time.Second},
			{args: []string{"history", "main", "--jq", `.truncated`}, stdout: `^false\n$`, max: 60 * time.Second},
			{args: []string{"list", "--messages", "2", "--jq", `.sessions[] | select(.key=="main") | .messages[1].content[0].text`}, stdout: `^after the big line\n$`, max: 60 * time.Second},
		}},
		{name: "transcript-no-header", cmds: []biCmd{
			{args: []string{"history", "main", "--jq", `[.messages[].content[0].text] | join(",")`}, stdout: `^only-message,reply\n$`},
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 10, stderr: `does not start with a session header; refusing to append to it`},
			{args: []string{"send", "main", "hi", "--timeout", "0", "--json"}, code: 10, stdout: `"status": "error"`},
		}},
		{name: "transcript-corrupt-header", cmds: []biCmd{
			{args: []string{"history", "main", "--jq", `[.messages[].content[0].text] | join(",")`}, stdout: `^after-corrupt-header,reply\n$`, stderr: `skipped 1 unreadable line`},
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 10, stderr: `does not start with a session header; refusing to append to it`},
		}},
		{name: "transcript-duplicate-ids", cmds: []biCmd{
			{args: []string{"history", "main", "--jq", `[.messages[].content[0].text] | join(",")`}, stdout: `^first-dup,second-dup,third,fourth\n$`},
			// the engine's context (LeafPath) is built and the turn appended
			{args: []string{"send", "main", "next", "--timeout", "20", "--json"}, stdout: `"reply": "bad-input-reply"`},
		}, changes: []string{biSessions, "state/sessions-cli"}, check: checkAppended},
		{name: "transcript-parent-cycle", cmds: []biCmd{
			{args: []string{"history", "main", "--jq", `[.messages[].content[0].text] | join(",")`}, stdout: `^self-parent,cycle-one,cycle-two,cycle-three\n$`},
			// LeafPath walks c3 → c2 → c1 → c3 and stops: the send completes
			{args: []string{"send", "main", "next", "--timeout", "20", "--json"}, stdout: `"reply": "bad-input-reply"`},
		}, changes: []string{biSessions, "state/sessions-cli"}, check: checkAppended},
		{name: "transcript-fifo", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Remove(e.path(biMainT)))
			must(t, testutil.Mkfifo(e.path(biMainT)))
		}, cmds: []biCmd{
			{args: []string{"history", "main"}, code: 10, stderr: `cannot read transcript .*: not a regular file`},
			{args: []string{"list", "--messages", "1", "--jq", ".count"}, stdout: `^\d+\n$`, stderr: `not a regular file`},
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 10, stderr: `not a regular file`},
		}},

		// ---- escaping the state dir: never opened (the marker never shows)
		{name: "escape-dotdot", cmds: escapeCmds(`sessionFile ../../../../outside/secret.jsonl|lies outside the state dir`)},
		{name: "escape-absolute", cmds: escapeCmds(`lies outside the state dir`)},
		{name: "escape-symlink", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Remove(e.path(biMainT)))
			must(t, os.Symlink("../../../../outside/secret.jsonl", e.path(biMainT)))
		}, cmds: escapeCmds(`lies outside the state dir`)},
		{name: "escape-symlink-fifo", setup: func(t *testing.T, e *biEnv) {
			must(t, os.MkdirAll(e.outside, 0o755))
			must(t, testutil.Mkfifo(filepath.Join(e.outside, "secret.jsonl")))
			must(t, os.Remove(e.path(biMainT)))
			must(t, os.Symlink(filepath.Join(e.outside, "secret.jsonl"), e.path(biMainT)))
		}, cmds: escapeCmds(`lies outside the state dir`)},
		{name: "escape-session-id", cmds: []biCmd{
			{args: []string{"history", "main"}, code: 1, stderr: `invalid sessionId`},
			{args: []string{"history", "agent:main:telegram:group:-100123", "--json"}, code: 1, stdout: `invalid sessionId`},
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 1, stderr: `invalid sessionId`},
			{args: []string{"list", "--messages", "1", "--jq", ".count"}, stdout: `^2\n$`},
		}},
		{name: "escape-dangling-symlink", setup: func(t *testing.T, e *biEnv) {
			must(t, os.MkdirAll(e.outside, 0o755))
			must(t, os.Remove(e.path(biMainT)))
			must(t, os.Symlink(filepath.Join(e.outside, "created-through-link.jsonl"), e.path(biMainT)))
		}, cmds: []biCmd{
			// no transcript yet, as far as a reader can tell
			{args: []string{"history", "main", "--jq", ".messages | length"}, stdout: `^0\n$`},
			// a write never creates a file through a symbolic link
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 1, stderr: `is a symbolic link to .*created-through-link.jsonl, which does not exist; refusing to create a file through it`},
		}},

		// ---- locks
		{name: "lock-garbage", cmds: []biCmd{
			// a young lock with garbage in it is held: waited on, then exit 11
			{args: []string{"--lock-timeout", "400ms", "patch", "main", "--label", "x"}, code: 11,
				stderr: `session store locked by pid unknown \(.*sessions.json.lock, held [\d.]+s\); gave up after 400ms`, min: 400 * time.Millisecond, max: 5 * time.Second},
			{args: []string{"list", "--jq", ".count"}, stdout: `^\d+\n$`}, // reads take no lock
		}},
		{name: "lock-garbage-stale", setup: func(t *testing.T, e *biEnv) {
			old := time.Now().Add(-45 * time.Second)
			must(t, os.Chtimes(e.path(biStore+".lock"), old, old))
		}, cmds: []biCmd{
			// OpenClaw's own rule: a lock whose mtime is over 30 s old is stale
			{args: []string{"--lock-timeout", "5s", "patch", "main", "--label", "after-stale"}, stdout: `patched main`, max: 2 * time.Second},
		}, changes: []string{biStore, biStore + ".lock"}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			mustNotExist(t, e.path(biStore+".lock"))
			if !strings.Contains(readFile(t, e.path(biStore)), `"label": "after-stale"`) {
				t.Error("patch not written")
			}
		}},
		{name: "lock-dead-pid", setup: func(t *testing.T, e *biEnv) {
			writeStoreLock(t, e.path(biStore+".lock"), deadPID(t))
		}, cmds: []biCmd{
			// a lock naming a pid that does not exist is evicted at once
			{args: []string{"--lock-timeout", "10s", "patch", "main", "--label", "after-dead"}, stdout: `patched main`, max: 2 * time.Second},
		}, changes: []string{biStore, biStore + ".lock"}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			mustNotExist(t, e.path(biStore+".lock"))
		}},
		{name: "lock-live-pid", setup: func(t *testing.T, e *biEnv) {
			pid := livePID(t)
			writeStoreLock(t, e.path(biStore+".lock"), pid)
			e.env = append(e.env, "LIVEPID="+strconv.Itoa(pid))
		}, cmds: []biCmd{
			{args: []string{"--lock-timeout", "500ms", "patch", "main", "--label", "x"}, code: 11,
				stderr: `session store locked by pid @LIVEPID@ \(.*sessions.json.lock, held [\d.]+s\); gave up after 500ms`, min: 500 * time.Millisecond, max: 5 * time.Second},
			{args: []string{"--lock-timeout", "300ms", "patch", "main", "--send-policy", "deny", "--json"}, code: 11, stdout: `"status": "error"`},
		}},
		{name: "transcript-lock-live-pid", setup: func(t *testing.T, e *biEnv) {
			payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", livePID(t), time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
			must(t, os.WriteFile(e.path(biMainT+".lock"), []byte(payload), 0o644))
		}, cmds: []biCmd{
			{args: []string{"history", "main", "--limit", "1", "--jq", ".messages | length"}, stdout: `^1\n$`},
			{args: []string{"list", "--messages", "1", "--jq", ".count"}, stdout: `^\d+\n$`},
		}},

		// ---- OpenClaw 2026.8+ state (SQLite only): read-only, writes refused
		// 2026.8+ state held by a live OpenClaw (its gateway.state.lock naming
		// our pid): readable; patch goes to that gateway (unreachable here),
		// send and spawn refuse naming the pid and --gateway
		{name: "sqlite-held", fixture: "state-2026.9.6", setup: func(t *testing.T, e *biEnv) {
			dir := sqlitewrite.LockDir(e.path("state"))
			must(t, os.MkdirAll(dir, 0o700))
			must(t, os.WriteFile(filepath.Join(dir, "gateway.state.lock"),
				[]byte(fmt.Sprintf(`{"pid":%d,"createdAt":"2026-11-23T00:00:00.000Z","configPath":"/x/openclaw.json","role":"gateway"}`, os.Getpid())), 0o600))
		}, cmds: []biCmd{
			{args: []string{"list", "--all-agents", "--jq", ".count"}, stdout: `^[1-9]\d*\n$`},
			{args: []string{"agents", "--jq", `[.agents[].era] | join(",")`}, stdout: `sqlite`},
			{args: []string{"patch", "main", "--label", "x"}, code: 10, stderr: `gateway ws://.* unreachable`},
			// send and spawn go to that gateway too, where only
			// its own turns may run: the exec engine asked for is exit 2
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 2, stderr: `--engine exec:.* cannot run a turn on agent main: its sessions are written through the gateway ws://`},
			{args: []string{"spawn", "a task"}, code: 2, stderr: `cannot run a turn on agent main: its sessions are written through the gateway`},
		}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			mustNotExist(t, e.path("state/agents/main/sessions/sessions.json"))
		}},

		// ---- permissions
		{name: "unreadable-store", nonRoot: "chmod 000 does not stop root", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Chmod(e.path(biStore), 0))
		}, cmds: cmds(readOnlyCmds(`cannot read session store .*sessions.json: permission denied`, 10), writeCmds(`permission denied`, 10))},
		{name: "unreadable-transcript", nonRoot: "chmod 000 does not stop root", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Chmod(e.path(biMainT), 0))
		}, cmds: []biCmd{
			{args: []string{"history", "main"}, code: 10, stderr: `permission denied`},
			{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 10, stderr: `permission denied`},
			{args: []string{"list", "--jq", ".count"}, stdout: `^\d+\n$`},
		}},

		// ---- config
		{name: "config-include-cycle", cmds: []biCmd{
			{args: []string{"list"}, code: 10, stderr: `invalid config .*openclaw.json: circular \$include: .*openclaw.json -> .*more.json5 -> .*openclaw.json`},
			{args: []string{"send", "main", "hi"}, code: 10, stderr: `circular \$include`},
		}},
		{name: "config-corrupt", cmds: []biCmd{
			{args: []string{"list"}, code: 10, stderr: `cannot parse config .*openclaw.json: line \d+, column \d+`},
			{args: []string{"patch", "main", "--label", "x"}, code: 10, stderr: `cannot parse config`},
		}},
		{name: "config-fifo", setup: func(t *testing.T, e *biEnv) {
			must(t, os.Remove(e.path("state/openclaw.json")))
			must(t, testutil.Mkfifo(e.path("state/openclaw.json")))
		}, cmds: []biCmd{
			{args: []string{"list"}, code: 10, stderr: `cannot read config .*openclaw.json: not a regular file`},
		}},
		{name: "config-missing-apikey-var", cmds: []biCmd{
			// the config still loads: reads work
			{args: []string{"list", "--jq", ".count"}, stdout: `^\d+\n$`},
			// a provider turn could not start: refused before any run or byte
			{args: []string{"send", "main", "hi", "--engine", "provider"}, code: 1,
				stderr: `models.providers.mock.apiKey uses \$\{SESSIONS_BADINPUT_UNSET_KEY\}, which is not set`},
			{args: []string{"send", "main", "hi", "--engine", "provider", "--timeout", "0", "--json"}, code: 1, stdout: `"status": "error"`},
		}, check: func(t *testing.T, e *biEnv, _ []relResult) {
			mustNotExist(t, e.path("state/sessions-cli"))
		}},
	}
}

// escapeCmds: a transcript that lies outside the state dir is refused by
// history (exit 1), send (exit 1, before any run) and left out by list.
func escapeCmds(msg string) []biCmd {
	return []biCmd{
		{args: []string{"history", "main"}, code: 1, stderr: msg},
		{args: []string{"history", "main", "--raw", "--json"}, code: 1, stdout: `"status": "error"`},
		{args: []string{"send", "main", "hi", "--timeout", "5"}, code: 1, stderr: msg},
		{args: []string{"list", "--messages", "2", "--jq", `.sessions[] | select(.key=="main") | has("transcriptPath")`}, stdout: `^false\n$`, stderr: msg},
		{args: []string{"list", "--messages", "2", "--jq", `[.sessions[] | select(.key=="main") | .messages // [] | length] | add`}, stdout: `^0\n$`},
	}
}

// checkAppended: the send went through; its reply is the transcript's last
// assistant message and every line of the transcript is whole.
func checkAppended(t *testing.T, e *biEnv, _ []relResult) {
	data := readFile(t, e.path(biMainT))
	if !strings.HasSuffix(data, "\n") {
		t.Errorf("transcript ends with a torn line")
	}
	if !strings.Contains(data, `"text":"bad-input-reply"`) {
		t.Errorf("reply not appended")
	}
}

func TestBadInput(t *testing.T) {
	cases := biCases()
	if len(cases) < 20 {
		t.Fatalf("only %d cases", len(cases))
	}
	names := map[string]bool{}
	ran := 0
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("duplicate case %s", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runBadInput(t, c)
		})
		ran++
	}
	// Every corpus directory has its case.
	dirs, _ := os.ReadDir(filepath.Join("testdata", "badinput"))
	for _, d := range dirs {
		if d.IsDir() && !names[d.Name()] {
			t.Errorf("testdata/badinput/%s has no case in badinput_test.go", d.Name())
		}
	}
	t.Logf("%d bad-input cases", ran)
}

func runBadInput(t *testing.T, c biCase) {
	root := t.TempDir()
	e := &biEnv{root: root, outside: filepath.Join(root, "outside")}
	fixture := c.fixture
	if fixture == "" {
		fixture = "state-2026.1.30"
	}
	e.state = relState(t, root, fixture)
	overlay := filepath.Join("testdata", "badinput", c.name)
	if _, err := os.Stat(overlay); err == nil {
		relCopyTree(t, overlay, root)
		expandPlaceholders(t, root, e)
	}
	e.env = relEnv(root, "SESSIONS_ENGINE=exec:echo bad-input-reply")
	if c.setup != nil {
		c.setup(t, e)
	}
	exe, cred := relExe(t), (*userCred)(nil)
	if c.nonRoot != "" && os.Geteuid() == 0 {
		// Root reads anything: run the commands as nobody instead, over a
		// state dir it owns.
		exe, cred = asNobody(t, root, c)
	}
	before := relSnapshot(t, root)

	var results []relResult
	for i, cmd := range c.cmds {
		args := append([]string{"--state-dir", e.state}, cmd.args...)
		for j := range args {
			args[j] = e.expand(args[j])
		}
		bound := cmd.max
		if bound == 0 {
			bound = 20 * time.Second
		}
		r := relRunAs(t, exe, cred, append(e.env, cmd.env...), bound+5*time.Second, args...)
		results = append(results, r)
		what := fmt.Sprintf("command %d `sessions %s`", i+1, strings.Join(cmd.args, " "))
		if r.Hung || r.Took > bound {
			t.Fatalf("%s took %v (bound %v): it hangs\nstderr: %s", what, r.Took, bound, r.Stderr)
		}
		if r.Took < cmd.min {
			t.Errorf("%s returned after %v, expected to wait at least %v", what, r.Took, cmd.min)
		}
		if r.Code != cmd.code {
			t.Errorf("%s exited %d, want %d\nstdout: %s\nstderr: %s", what, r.Code, cmd.code, trunc(r.Stdout), trunc(r.Stderr))
		}
		if cmd.stdout != "" && !regexp.MustCompile(e.expand(cmd.stdout)).MatchString(r.Stdout) {
			t.Errorf("%s: stdout does not match %q:\n%s", what, cmd.stdout, trunc(r.Stdout))
		}
		if cmd.stderr != "" && !regexp.MustCompile(e.expand(cmd.stderr)).MatchString(r.Stderr) {
			t.Errorf("%s: stderr does not match %q:\n%s", what, cmd.stderr, trunc(r.Stderr))
		}
		if cmd.code != 0 && strings.TrimSpace(r.Stderr) == "" {
			t.Errorf("%s failed without a message on stderr", what)
		}
		if strings.Contains(r.Stdout+r.Stderr, biSecret) {
			t.Errorf("%s printed the content of a file outside the state dir", what)
		}
	}
	if len(c.changes) > 0 {
		relWaitRuns(t, e.env, e.state, 30*time.Second)
	}
	after := relSnapshot(t, root)
	if d := relDiff(before, after, c.changes...); len(d) > 0 {
		t.Errorf("files changed:\n%s", strings.Join(d, "\n"))
	}
	if c.check != nil {
		c.check(t, e, results)
	}
}

// nobodyID is the uid and gid the permission cases run as under root.
const nobodyID = 65534

// asNobody prepares a case to run as uid/gid 65534 when the test runs as
// root (chmod 000 does not stop root): the case root and the path to it are
// made traversable, the tree is given to nobody, and the executable is
// copied where nobody can run it. The case is skipped, with the reason,
// when that is not possible.
func asNobody(t *testing.T, root string, c biCase) (string, *userCred) {
	t.Helper()
	skip := func(err error) {
		t.Skipf("skipped: running as root (%s) and cannot switch to uid %d: %v; this case runs as any other user", c.nonRoot, nobodyID, err)
	}
	bin := t.TempDir()
	exe := filepath.Join(bin, "sessions")
	data, err := os.ReadFile(relExe(t))
	if err == nil {
		err = os.WriteFile(exe, data, 0o755)
	}
	for _, d := range []string{bin, filepath.Dir(bin), root, filepath.Dir(root)} {
		if err == nil {
			err = os.Chmod(d, 0o755)
		}
	}
	if err == nil {
		err = filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobodyID, nobodyID)
		})
	}
	if err != nil {
		skip(err)
	}
	probe := relRunAs(t, exe, &userCred{Uid: nobodyID, Gid: nobodyID}, relEnv(root), 20*time.Second, "version")
	if probe.Code != 0 {
		skip(fmt.Errorf("`sessions version` as uid %d exited %d: %s", nobodyID, probe.Code, probe.Stderr))
	}
	t.Logf("running as root: the commands run as uid %d", nobodyID)
	return exe, &userCred{Uid: nobodyID, Gid: nobodyID}
}

func (e *biEnv) expand(s string) string {
	s = strings.ReplaceAll(s, "@ROOT@", e.root)
	s = strings.ReplaceAll(s, "@STATE@", e.state)
	s = strings.ReplaceAll(s, "@OUTSIDE@", e.outside)
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "LIVEPID="); ok {
			s = strings.ReplaceAll(s, "@LIVEPID@", v)
		}
	}
	return s
}

// expandPlaceholders rewrites @ROOT@, @STATE@ and @OUTSIDE@ in the overlay
// files (absolute paths known only at run time).
func expandPlaceholders(t *testing.T, root string, e *biEnv) {
	t.Helper()
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "@") {
			return err
		}
		if x := e.expand(string(data)); x != string(data) {
			return os.WriteFile(p, []byte(x), info.Mode().Perm())
		}
		return nil
	})
	must(t, err)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	return string(b)
}

func mustNotExist(t testing.TB, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s exists", p)
	}
}

func trunc(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// writeStoreLock writes an OpenClaw store lock held by pid (fresh mtime).
func writeStoreLock(t testing.TB, path string, pid int) {
	t.Helper()
	payload := fmt.Sprintf(`{"pid":%d,"startedAt":%d}`, pid, time.Now().UnixMilli())
	must(t, os.WriteFile(path, []byte(payload), 0o644))
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

// livePID starts a process that lives until the test ends and returns its pid.
func livePID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	must(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd.Process.Pid
}
