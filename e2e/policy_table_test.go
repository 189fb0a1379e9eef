package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/policy"
)

// TestPolicyTable drives every decision of OpenClaw 2026.1.30's session-tool
// policies through the CLI, one row each, over a fresh copy of the bundled
// state: the send policy (format §7.1: entry override, rules in order with
// channel/chatType/keyPrefix matches and their case rules, default),
// agent-to-agent access (§7.2: enabled, allow patterns, exact patterns
// case-sensitive, wildcards case-insensitive and anchored), sandbox
// visibility (§6 preamble, §7.3: the flag, the environment, mode all /
// non-main, visibility spawned / all, sub-agent requesters), and
// sessions_spawn's requester and allowAgents rules (§6.4). A refusal must
// exit 3 with status "forbidden" and OpenClaw's exact message, before any
// byte is written — except a session of an agent the requester may not
// see, which is answered as one that does not exist (exit 4, "No session
// found", also before any byte is written); an allowed row must go through
// (exit 0).
//
// Fixture: agents main (default; subagents.allowAgents ["*"]) and ops.
// agent:main:main has channel "whatsapp" and lastChannel "signal"; the
// signal group has chatType group; the signal DM chatType direct;
// agent:main:subagent:fc55… was spawned by agent:main:main.
func TestPolicyTable(t *testing.T) {
	const (
		mainKey  = "agent:main:main"
		opsMain  = "agent:ops:main"
		tgGroup  = "agent:main:telegram:group:-100123"
		sigGroup = "agent:main:signal:group:c2lnbmfslwdyb3vwlwlkltawmq=="
		sigDM    = "agent:main:signal:dm:+15551230001"
		hookKey  = "agent:main:hook:github:push-42"
		subMain  = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
		subOps   = "agent:ops:subagent:b164e3e3-49bc-47c3-9d9b-5d7810e1c44f"
		blocked  = policy.MsgSendBlocked
		notVis   = policy.MsgNotVisible
		spawnAny = `"status": "accepted"`
		sentOK   = `"status": "ok"`
	)
	hidden := func(ref string) string { return "No session found: " + ref }
	sendPolicy := func(p map[string]any) map[string]any { return map[string]any{"session.sendPolicy": p} }
	rule := func(action string, match map[string]any) map[string]any {
		r := map[string]any{"match": match}
		if action != "" {
			r["action"] = action
		}
		return r
	}
	rules := func(r ...map[string]any) []any {
		out := make([]any, len(r))
		for i, x := range r {
			out[i] = x
		}
		return out
	}
	a2a := func(enabled bool, allow ...string) map[string]any {
		v := map[string]any{"enabled": enabled}
		if allow != nil {
			v["allow"] = allow
		}
		return map[string]any{"tools.agentToAgent": v}
	}
	sandbox := func(mode, vis string) map[string]any {
		v := map[string]any{}
		if mode != "" {
			v["mode"] = mode
		}
		if vis != "" {
			v["sessionToolsVisibility"] = vis
		}
		return map[string]any{"agents.defaults.sandbox": v}
	}
	agentsList := func(mainAllow ...string) map[string]any {
		m := map[string]any{"id": "main", "default": true, "name": "Main"}
		if mainAllow != nil {
			m["subagents"] = map[string]any{"allowAgents": mainAllow}
		}
		return map[string]any{"agents.list": []any{m, map[string]any{"id": "ops", "name": "Ops", "model": "mock/mock-2"}}}
	}
	send := func(key string) []string { return []string{"send", key, "policy-table", "--timeout", "20"} }
	hist := func(key string) []string { return []string{"history", key, "--limit", "1"} }

	rows := []polRow{
		// ---- send policy (§7.1)
		{name: "send: nothing configured allows", args: send(mainKey), want: sentOK},
		{name: "send: entry override deny", prep: [][]string{{"patch", mainKey, "--send-policy", "deny"}}, args: send(mainKey), refuse: blocked},
		{name: "send: entry override allow beats a deny rule", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{}))}),
			prep: [][]string{{"patch", mainKey, "--send-policy", "allow"}}, args: send(mainKey), want: sentOK},
		{name: "send: entry override is normalised (\" DENY \")", edit: setEntryField(mainKey, "sendPolicy", " DENY "), args: send(mainKey), refuse: blocked},
		{name: "send: an unknown entry override is ignored", cfg: sendPolicy(map[string]any{"default": "deny"}), edit: setEntryField(mainKey, "sendPolicy", "maybe"), args: send(mainKey), refuse: blocked},
		{name: "send: patch --send-policy inherit removes the override", cfg: sendPolicy(map[string]any{"default": "deny"}),
			prep: [][]string{{"patch", mainKey, "--send-policy", "allow"}, {"patch", mainKey, "--send-policy", "inherit"}}, args: send(mainKey), refuse: blocked},
		{name: "send: default deny", cfg: sendPolicy(map[string]any{"default": "deny"}), args: send(mainKey), refuse: blocked},
		{name: "send: an unknown default is allow", cfg: sendPolicy(map[string]any{"default": "nope"}), args: send(mainKey), want: sentOK},
		{name: "send: a rule without match matches everything", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{}))}), args: send(tgGroup), refuse: blocked},
		{name: "send: channel+chatType rule denies the signal group", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"channel": "signal", "chatType": "group"}))}), args: send(sigGroup), refuse: blocked},
		{name: "send: channel+chatType rule spares the telegram group", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"channel": "signal", "chatType": "group"}))}), args: send(tgGroup), want: sentOK},
		{name: "send: channel match is case-insensitive", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"channel": " SIGNAL "}))}), args: send(sigGroup), refuse: blocked},
		{name: "send: entry.channel wins over lastChannel (no match)", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"channel": "signal"}))}), args: send(mainKey), want: sentOK},
		{name: "send: entry.channel wins over lastChannel (match)", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"channel": "whatsapp"}))}), args: send(mainKey), refuse: blocked},
		{name: "send: chatType direct from the entry", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"chatType": "direct"}))}), args: send(sigDM), refuse: blocked},
		{name: "send: chatType dm normalises to direct", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"chatType": "DM"}))}), args: send(sigDM), refuse: blocked},
		{name: "send: chatType group from the key", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"chatType": "group"}))}), args: send(tgGroup), refuse: blocked},
		{name: "send: chatType rule does not match a direct chat", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"chatType": "group"}))}), args: send(sigDM), want: sentOK},
		{name: "send: keyPrefix is lowercased", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"keyPrefix": " AGENT:MAIN:HOOK: "}))}), args: send(hookKey), refuse: blocked},
		{name: "send: keyPrefix that does not match", cfg: sendPolicy(map[string]any{"rules": rules(rule("deny", map[string]any{"keyPrefix": "agent:main:cron:"}))}), args: send(hookKey), want: sentOK},
		{name: "send: a matching deny wins over an earlier allow", cfg: sendPolicy(map[string]any{"rules": rules(rule("allow", map[string]any{}), rule("deny", map[string]any{"keyPrefix": "agent:main:telegram:"}))}), args: send(tgGroup), refuse: blocked},
		{name: "send: an allow match beats default deny", cfg: sendPolicy(map[string]any{"default": "deny", "rules": rules(rule("allow", map[string]any{"keyPrefix": "agent:main:telegram:"}))}), args: send(tgGroup), want: sentOK},
		{name: "send: no allow match falls to default deny", cfg: sendPolicy(map[string]any{"default": "deny", "rules": rules(rule("allow", map[string]any{"keyPrefix": "agent:ops:"}))}), args: send(tgGroup), refuse: blocked},
		{name: "send: a rule without action allows", cfg: sendPolicy(map[string]any{"default": "deny", "rules": rules(rule("", map[string]any{"channel": "telegram"}))}), args: send(tgGroup), want: sentOK},
		{name: "send: the JSON error carries the sessionKey", cfg: sendPolicy(map[string]any{"default": "deny"}), args: send(mainKey), refuse: blocked, stdout: `"sessionKey": "main"`},

		// ---- agent-to-agent (§7.2)
		{name: "a2a: disabled hides another agent's session from send", as: opsMain, args: send(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: disabled hides another agent's session from history", as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: disabled, a sessionId of another agent is not found", as: opsMain, args: hist(biMainID), refuse: hidden(biMainID), hidden: true},
		{name: "a2a: disabled refuses a cross-agent label lookup", as: opsMain, args: []string{"send", "--label", "build-stats", "--agent", "main", "hi"}, refuse: policy.MsgSendA2ADisabled},
		{name: "a2a: enabled: true is required (a truthy string is not)", cfg: map[string]any{"tools.agentToAgent": map[string]any{"enabled": "yes"}}, as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: the same agent is always allowed", as: opsMain, args: send("agent:ops:cron:035bfbe3-107c-469b-8a17-ded8e4966021"), want: sentOK},
		{name: "a2a: the host operator is never restricted", args: send(opsMain), want: sentOK},
		{name: "a2a: enabled with no allow list", cfg: a2a(true), as: opsMain, args: send(mainKey), want: sentOK},
		{name: "a2a: exact patterns", cfg: a2a(true, "main", "ops"), as: opsMain, args: send(mainKey), want: sentOK},
		{name: "a2a: exact patterns are case-sensitive", cfg: a2a(true, "Main", "ops"), as: opsMain, args: send(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: exact patterns are case-sensitive (send message)", cfg: a2a(true, "Main", "ops"), as: opsMain, args: []string{"send", "--label", "build-stats", "--agent", "main", "hi"}, refuse: policy.MsgSendA2ADenied},
		{name: "a2a: exact patterns are case-sensitive (history message)", cfg: a2a(true, "Main", "ops"), as: opsMain, args: []string{"list", "--agent", "main"}, refuse: policy.MsgHistoryA2ADenied},
		{name: "a2a: both agents must match", cfg: a2a(true, "main"), as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: wildcards are case-insensitive", cfg: a2a(true, "M*", "O*"), as: opsMain, args: hist(mainKey), want: `"sessionKey": "agent:main:main"`},
		{name: "a2a: wildcards are anchored", cfg: a2a(true, "ai*", "ops"), as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: * allows every agent", cfg: a2a(true, " * "), as: opsMain, args: send(mainKey), want: sentOK},
		{name: "a2a: ? is not a wildcard", cfg: a2a(true, "m?in", "ops"), as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: regex metacharacters are literal", cfg: a2a(true, "m.*", "ops"), as: opsMain, args: hist(mainKey), refuse: hidden(mainKey), hidden: true},
		{name: "a2a: blank patterns are ignored, others trimmed", cfg: a2a(true, " ", " main ", "ops "), as: opsMain, args: hist(mainKey), want: `"sessionKey": "agent:main:main"`},
		{name: "a2a: list spans the agents the policy allows", cfg: a2a(true, "*"), as: opsMain, args: []string{"list", "--jq", ".count"}, want: `^11\n$`},
		{name: "a2a: list of a requester without access is its own agent", as: opsMain, args: []string{"list", "--jq", ".count"}, want: `^3\n$`},
		{name: "a2a: list --agent of another agent is refused", as: opsMain, args: []string{"list", "--agent", "main"}, refuse: policy.MsgHistoryA2ADisabled},

		// ---- sandbox visibility (§6 preamble, §7.3)
		{name: "sandbox: --sandboxed sees only what it spawned (history)", as: mainKey, flags: []string{"--sandboxed"}, args: hist(tgGroup), refuse: notVis + tgGroup},
		{name: "sandbox: --sandboxed sees only what it spawned (send)", as: mainKey, flags: []string{"--sandboxed"}, args: send(tgGroup), refuse: notVis + tgGroup},
		{name: "sandbox: --sandboxed may send to a session it spawned", as: mainKey, flags: []string{"--sandboxed"}, args: send(subMain), want: sentOK},
		{name: "sandbox: --sandboxed lists only its children", as: mainKey, flags: []string{"--sandboxed"}, args: []string{"list", "--jq", "[.sessions[].key] | join(\",\")"}, want: `^` + subMain + `\n$`},
		{name: "sandbox: OPENCLAW_SANDBOXED=1 is the flag", as: mainKey, env: []string{"OPENCLAW_SANDBOXED=1"}, args: hist(tgGroup), refuse: notVis + tgGroup},
		{name: "sandbox: an unknown key is not visible rather than missing", as: mainKey, flags: []string{"--sandboxed"}, args: hist("agent:main:nope"), refuse: notVis + "agent:main:nope"},
		{name: "sandbox: visibility all lifts the restriction", cfg: sandbox("", "all"), as: mainKey, flags: []string{"--sandboxed"}, args: hist(tgGroup), want: `"sessionKey": "agent:main:telegram:group:-100123"`},
		{name: "sandbox: mode all implies it", cfg: sandbox("all", ""), as: mainKey, args: hist(tgGroup), refuse: notVis + tgGroup},
		{name: "sandbox: mode non-main spares the agent's main session", cfg: sandbox("non-main", ""), as: mainKey, args: hist(tgGroup), want: `"sessionKey": "agent:main:telegram:group:-100123"`},
		{name: "sandbox: mode non-main restricts any other session", cfg: sandbox("non-main", ""), as: tgGroup, args: hist("main"), refuse: notVis + "main"},
		{name: "sandbox: mode off", cfg: sandbox("off", ""), as: tgGroup, args: hist("main"), want: `"sessionKey": "main"`},
		{name: "sandbox: a sub-agent requester is never restricted", as: subMain, flags: []string{"--sandboxed"}, args: hist(tgGroup), want: `"sessionKey": "agent:main:telegram:group:-100123"`},
		{name: "sandbox: the host operator is never restricted", flags: []string{"--sandboxed"}, args: hist(tgGroup), want: `"sessionKey": "agent:main:telegram:group:-100123"`},
		{name: "sandbox: label lookup in another agent is refused", as: mainKey, flags: []string{"--sandboxed"}, args: []string{"send", "--label", "disk-check", "--agent", "ops", "hi"}, refuse: policy.MsgSandboxLabelLookup},
		{name: "sandbox: a label it did not spawn is not visible", as: mainKey, flags: []string{"--sandboxed"}, cfg: a2a(true, "*"), args: []string{"send", "--label", "disk-check", "hi"}, refuse: "Session not visible from this sandboxed agent session."},

		// ---- sessions_spawn (§6.4)
		{name: "spawn: not from a sub-agent session", spawn: true, as: subMain, args: []string{"spawn", "nested task"}, refuse: policy.MsgSpawnFromSubagent},
		{name: "spawn: not from a sub-agent of another agent either", spawn: true, as: subOps, args: []string{"spawn", "nested task", "--agent", "main"}, refuse: policy.MsgSpawnFromSubagent},
		{name: "spawn: allowAgents * allows any agent", spawn: true, as: mainKey, args: []string{"spawn", "task", "--agent", "ops"}, want: spawnAny},
		{name: "spawn: the requester's own agent needs no allowAgents", spawn: true, as: opsMain, args: []string{"spawn", "task"}, want: spawnAny},
		{name: "spawn: no allowAgents refuses another agent", spawn: true, as: opsMain, args: []string{"spawn", "task", "--agent", "main"}, refuse: "agentId is not allowed for sessions_spawn (allowed: none)"},
		{name: "spawn: the refusal lists normalised ids", spawn: true, cfg: agentsList("Research", "Dev Team", "research"), as: mainKey, args: []string{"spawn", "task", "--agent", "ops"}, refuse: "agentId is not allowed for sessions_spawn (allowed: research, dev-team)"},
		{name: "spawn: allowAgents ids are case-insensitive", spawn: true, cfg: agentsList("OPS"), as: mainKey, args: []string{"spawn", "task", "--agent", "ops"}, want: spawnAny},
		{name: "spawn: the host operator spawns as the main of --agent (no allowAgents check)", spawn: true, cfg: agentsList("research"), args: []string{"spawn", "task", "--agent", "ops"}, want: spawnAny},
		{name: "spawn: agents shows the same decision", cfg: agentsList("research"), as: mainKey, args: []string{"agents", "--jq", `[.agents[] | .id + "=" + (.spawnTarget|tostring)] | join(" ")`}, want: `^main=true ops=false\n$`},
		{name: "spawn: agents from a sub-agent: no target", as: subMain, args: []string{"agents", "--jq", `[.agents[] | .spawnTarget] | any`}, want: `^false\n$`},
	}
	if len(rows) < 30 {
		t.Fatalf("only %d rows", len(rows))
	}
	hasSpawn := relRun(t, relEnv(t.TempDir()), 20*time.Second, "spawn", "--help").Code == 0
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			if row.spawn && !hasSpawn {
				t.Skip("the spawn command does not exist yet")
			}
			row.run(t)
		})
	}
	t.Logf("%d policy rows", len(rows))
}

type polRow struct {
	name   string
	cfg    map[string]any // dotted paths set in the fixture's openclaw.json
	prep   [][]string     // operator commands run first (e.g. patch)
	edit   func(t *testing.T, state string)
	as     string   // --as
	flags  []string // global flags
	env    []string
	args   []string
	refuse string // the exact forbidden message (exit 3); "" = allowed
	hidden bool   // refuse is a not-found error (exit 4): a session the requester may not see
	want   string // regexp on the allowed command's stdout
	stdout string // regexp also required on stdout
	spawn  bool   // needs the spawn command
}

const polEngine = "cat >/dev/null; case \"$SESSIONS_MESSAGE\" in *'announce step'*) echo ANNOUNCE_SKIP ;; *) echo policy-ok ;; esac\n"

func (row polRow) run(t *testing.T) {
	root := t.TempDir()
	state := relState(t, root, "state-2026.1.30")
	engine := filepath.Join(root, "engine.sh")
	must(t, os.WriteFile(engine, []byte(polEngine), 0o755))
	env := relEnv(root, "SESSIONS_ENGINE=exec:sh '"+engine+"'")
	if row.cfg != nil {
		writeConfig(t, state, row.cfg)
	}
	if row.edit != nil {
		row.edit(t, state)
	}
	for _, p := range row.prep {
		if r := relRun(t, env, 20*time.Second, append([]string{"--state-dir", state}, p...)...); r.Code != 0 {
			t.Fatalf("prep %q exited %d: %s", p, r.Code, r.Stderr)
		}
	}
	args := []string{"--state-dir", state}
	if row.as != "" {
		args = append(args, "--as", row.as)
	}
	args = append(args, row.flags...)
	args = append(args, row.args...)
	if !strings.Contains(strings.Join(row.args, " "), "--jq") {
		args = append(args, "--json")
	}
	before := relSnapshot(t, root)
	r := relRun(t, append(env, row.env...), 30*time.Second, args...)
	cmd := "sessions " + strings.Join(args[2:], " ")
	if r.Hung {
		t.Fatalf("%s hung", cmd)
	}
	if row.stdout != "" && !regexp.MustCompile(row.stdout).MatchString(r.Stdout) {
		t.Errorf("%s: stdout does not match %q:\n%s", cmd, row.stdout, r.Stdout)
	}
	if row.refuse != "" {
		var doc struct{ Status, Error string }
		_ = json.Unmarshal([]byte(r.Stdout), &doc)
		code, status := 3, "forbidden"
		if row.hidden {
			code, status = 4, "error"
		}
		if r.Code != code || doc.Status != status || doc.Error != row.refuse {
			t.Fatalf("%s: exit %d, %q %q; want exit %d, %s %q\nstderr: %s", cmd, r.Code, doc.Status, doc.Error, code, status, row.refuse, r.Stderr)
		}
		if d := relDiff(before, relSnapshot(t, root)); len(d) > 0 {
			t.Errorf("%s: a refusal wrote:\n%s", cmd, strings.Join(d, "\n"))
		}
		return
	}
	if r.Code != 0 {
		t.Fatalf("%s: exit %d, want 0\nstdout: %s\nstderr: %s", cmd, r.Code, r.Stdout, r.Stderr)
	}
	if row.want != "" && !regexp.MustCompile(row.want).MatchString(r.Stdout) {
		t.Errorf("%s: stdout does not match %q:\n%s", cmd, row.want, r.Stdout)
	}
	relWaitRuns(t, env, state, 30*time.Second)
}

// writeConfig sets dotted paths in the fixture's openclaw.json.
func writeConfig(t *testing.T, state string, set map[string]any) {
	t.Helper()
	p := filepath.Join(state, "openclaw.json")
	var cfg map[string]any
	must(t, json.Unmarshal([]byte(readFile(t, p)), &cfg))
	for path, v := range set {
		parts := strings.Split(path, ".")
		m := cfg
		for _, k := range parts[:len(parts)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = v
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	must(t, err)
	must(t, os.WriteFile(p, data, 0o644))
}

// setEntryField writes field=value into an entry of the main agent's store
// directly (values `sessions patch` would not write).
func setEntryField(key, field, value string) func(t *testing.T, state string) {
	return func(t *testing.T, state string) {
		p := filepath.Join(state, "agents", "main", "sessions", "sessions.json")
		var m map[string]map[string]any
		must(t, json.Unmarshal([]byte(readFile(t, p)), &m))
		m[key][field] = value
		data, err := json.MarshalIndent(m, "", "  ")
		must(t, err)
		must(t, os.WriteFile(p, data, 0o600))
	}
}
