package keys_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
)

// fixtureKeys returns every session key of the bundled OpenClaw states (the
// seed corpus), plus their spawnedBy values.
func fixtureKeys(t testing.TB) []string {
	files, _ := filepath.Glob("../../testdata/state-*/agents/*/sessions/sessions.json")
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for k, e := range m {
			out = append(out, k)
			if s, ok := e["spawnedBy"].(string); ok {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixture keys found")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FuzzKeys: parsing and classifying any key never panics, and the results
// hang together: Parse round-trips, Kind is one of the six kinds and does
// not depend on the agent prefix, Channel is never empty, Candidates starts
// with the canonical key and has no duplicates, a sessionId is never taken
// for a key.
func FuzzKeys(f *testing.F) {
	for _, k := range fixtureKeys(f) {
		f.Add(k, "", "main")
		f.Add(k, "group", "ops")
	}
	for _, k := range []string{
		"main", "global", "unknown", "", "  ", ":", "agent:", "agent::", "agent:main", "agent::main::main",
		"Agent:Main:Main", "agent:OPS:Signal:Group:X", "agent:Dev Team:main", "agent:a:b:c:d:e",
		"subagent:x", "SubAgent:x", "agent:main:subagent:1", "node-abc", "node:abc", "hook:gh:push",
		"cron:1", "acp:x", "discord:group:1", "agent:main:discord:channel:1:topic:5", "agent:main: main",
		"c040fd20-0a1c-4ce0-924c-6e695a32eecb", "C040FD20-0A1C-4CE0-924C-6E695A32EECB", "\x00", "agent:\xff:main",
		"agent:main:\u2028", "agent:ma:in:group:", "agent:main:cron:",
	} {
		f.Add(k, "", "main")
		f.Add(k, "channel", "Main")
		f.Add(k, "DM", "")
	}
	norm := config.NormalizeAgentID
	f.Fuzz(func(t *testing.T, key, chatType, reqRaw string) {
		req := norm(reqRaw)
		const def = "main"

		// Parse
		id, rest, ok := keys.Parse(key)
		if !ok {
			if id != "" || rest != "" {
				t.Fatalf("Parse(%q) failed but returned %q, %q", key, id, rest)
			}
		} else {
			if id == "" || rest == "" || strings.Contains(id, ":") {
				t.Fatalf("Parse(%q) = %q, %q", key, id, rest)
			}
			if strings.HasPrefix(rest, ":") || strings.HasSuffix(rest, ":") || strings.Contains(rest, "::") {
				t.Fatalf("Parse(%q): rest %q has an empty segment", key, rest)
			}
			// (Whitespace at the ends of the rejoined key is trimmed by Parse.)
			id2, rest2, ok2 := keys.Parse("agent:" + id + ":" + rest)
			if rest == strings.TrimSpace(rest) && (!ok2 || id2 != id || rest2 != rest) {
				t.Fatalf("Parse does not round-trip %q: %q,%q → %q,%q,%v", key, id, rest, id2, rest2, ok2)
			}
			if keys.Rest(key) != rest {
				t.Fatalf("Rest(%q) = %q, want %q", key, keys.Rest(key), rest)
			}
			if got := keys.AgentOf(key, def, norm); got != norm(id) {
				t.Fatalf("AgentOf(%q) = %q, want %q", key, got, norm(id))
			}
		}
		if !ok {
			if keys.Rest(key) != strings.TrimSpace(key) {
				t.Fatalf("Rest(%q) = %q", key, keys.Rest(key))
			}
			if got := keys.AgentOf(key, def, norm); got != def {
				t.Fatalf("AgentOf(%q) = %q, want the default agent", key, got)
			}
		}

		// Kind
		kind := keys.Kind(key, chatType)
		if !keys.IsKind(kind) {
			t.Fatalf("Kind(%q, %q) = %q, not a kind", key, chatType, kind)
		}
		if kind == "main" && strings.ToLower(keys.Rest(key)) != "main" {
			t.Fatalf("Kind(%q) = main", key)
		}
		if ok && rest == strings.TrimSpace(rest) {
			if _, _, nested := keys.Parse(rest); !nested {
				if k2 := keys.Kind(rest, chatType); k2 != kind {
					t.Fatalf("Kind(%q) = %q but Kind(%q) = %q: the agent prefix changed the kind", key, kind, rest, k2)
				}
			}
		}
		if ct := strings.ToLower(strings.TrimSpace(chatType)); (ct == "group" || ct == "channel") && kind != "group" {
			switch kind {
			case "main", "cron", "hook", "node":
			default:
				t.Fatalf("Kind(%q, %q) = %q, want group", key, chatType, kind)
			}
		}
		if kc := keys.KeyChannel(key); kc != "" {
			if strings.Contains(kc, ":") || kc != strings.ToLower(kc) {
				t.Fatalf("KeyChannel(%q) = %q", key, kc)
			}
			if kind == "other" {
				t.Fatalf("KeyChannel(%q) = %q but Kind is other", key, kc)
			}
		}
		// Channel
		for _, k := range keys.Kinds {
			c := keys.Channel(k, key, chatType, "", "")
			if c == "" {
				t.Fatalf("Channel(%s, %q) is empty", k, key)
			}
			if (k == "cron" || k == "hook" || k == "node") && c != "internal" {
				t.Fatalf("Channel(%s) = %q, want internal", k, c)
			}
		}
		if c := keys.Channel(kind, key, "", "", ""); kind != "group" && c != "unknown" && kind != "cron" && kind != "hook" && kind != "node" {
			t.Fatalf("Channel(%s, %q) with nothing known = %q, want unknown", kind, key, c)
		}

		// sessionIds are never keys
		if keys.LooksLikeSessionID(key) && keys.LooksLikeKey(key) {
			t.Fatalf("%q looks like both a sessionId and a key", key)
		}

		// Candidates
		cands := keys.Candidates(key, req, def, norm)
		trimmed := strings.TrimSpace(key)
		if trimmed == "" {
			if cands != nil {
				t.Fatalf("Candidates(%q) = %q, want none", key, cands)
			}
			return
		}
		if len(cands) == 0 {
			t.Fatalf("Candidates(%q) is empty", key)
		}
		seen := map[string]bool{}
		for _, c := range cands {
			if c == "" || seen[c] {
				t.Fatalf("Candidates(%q) = %q: empty or duplicate", key, cands)
			}
			seen[c] = true
		}
		canon := cands[0]
		switch {
		case trimmed == keys.MainKey:
			if canon != keys.MainOf(req) {
				t.Fatalf("Candidates(main) = %q, want %q", canon, keys.MainOf(req))
			}
		case trimmed == keys.Global || trimmed == keys.Unknown:
			if canon != trimmed {
				t.Fatalf("Candidates(%q)[0] = %q", key, canon)
			}
		default:
			if !ok {
				// An un-prefixed key belongs to the default agent, as typed.
				if canon != "agent:"+def+":"+trimmed {
					t.Fatalf("canonical key of un-prefixed %q = %q", key, canon)
				}
				break
			}
			if canon != "agent:"+norm(id)+":"+rest {
				t.Fatalf("canonical key of %q = %q, want agent:%s:%s", key, canon, norm(id), rest)
			}
			if rest != strings.TrimSpace(rest) {
				break
			}
			cid, crest, cok := keys.Parse(canon)
			if !cok || cid != norm(id) || crest != rest {
				t.Fatalf("canonical key %q of %q: agent %q rest %q, want %q %q", canon, key, cid, crest, norm(id), rest)
			}
			if cid != norm(cid) {
				t.Fatalf("canonical key %q has an unnormalised agent id", canon)
			}
		}
		if keys.Canonical(key, def, norm) != keys.Candidates(key, def, def, norm)[0] {
			t.Fatalf("Canonical(%q) disagrees with Candidates", key)
		}
		if c := keys.Canonical(key, def, norm); !hasEmptySegment(trimmed) {
			if c2 := keys.Canonical(c, def, norm); c2 != c {
				t.Fatalf("Canonical is not idempotent: %q → %q → %q", key, c, c2)
			}
		}

		// Display
		if keys.Display(keys.MainOf(req), req, false) != keys.MainKey {
			t.Fatalf("Display(main of %q) is not main", req)
		}
		if d := keys.Display(key, req, false); d != key && key != keys.MainOf(req) {
			t.Fatalf("Display(%q) = %q", key, d)
		}

		// IsSubagent is case-insensitive and means a subagent: rest
		if strings.ToLower(strings.ToUpper(key)) == strings.ToLower(key) && keys.IsSubagent(key) != keys.IsSubagent(strings.ToUpper(key)) {
			t.Fatalf("IsSubagent(%q) depends on case", key)
		}
	})
}

// hasEmptySegment: a key with "::" or a leading or trailing ":" is not
// canonical-stable (OpenClaw drops empty segments when it parses a key).
func hasEmptySegment(k string) bool {
	return strings.Contains(k, "::") || strings.HasPrefix(k, ":") || strings.HasSuffix(k, ":")
}
