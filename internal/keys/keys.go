// Package keys parses, canonicalises and classifies OpenClaw session keys
// (CONTRACT §3, format §5). Pure functions, no I/O.
package keys

import (
	"strings"

	"github.com/openclaw/sessions/internal/lazyre"
)

// Reserved keys that are never listed (format §2.1).
const (
	Global  = "global"
	Unknown = "unknown"
	MainKey = "main"
)

// Kinds of CONTRACT §3, in display order.
var Kinds = []string{"main", "group", "cron", "hook", "node", "other"}

// IsKind reports whether k is one of Kinds.
func IsKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// CleanKinds reads kinds as a user gave them: any case, spaces around,
// empty items skipped. bad is the first item that is not a kind ("" when
// all are).
func CleanKinds(items []string) (kinds []string, bad string) {
	for _, k := range items {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		if !IsKind(k) {
			return nil, k
		}
		kinds = append(kinds, k)
	}
	return kinds, ""
}

// splitNonEmpty splits on ':' dropping empty segments, like the JS
// split(":").filter(Boolean) OpenClaw uses.
func splitNonEmpty(s string) []string {
	parts := strings.Split(s, ":")
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Parse splits an agent-prefixed key `agent:<id>:<rest>` (format §5.1
// parseAgentSessionKey): trimmed, empty segments dropped, at least three
// parts, the first exactly "agent". The agent id is returned as written.
func Parse(key string) (agentID, rest string, ok bool) {
	k := strings.TrimSpace(key)
	// The usual key, `agent:<id>:<rest>` with no empty segment, is cut
	// where it stands: what the split below would join again (a listing
	// of 10,000 rows classifies every key; the split was a tenth of it).
	if r, found := strings.CutPrefix(k, "agent:"); found && !strings.Contains(r, "::") && !strings.HasSuffix(r, ":") {
		if i := strings.IndexByte(r, ':'); i > 0 {
			return r[:i], r[i+1:], true
		}
	}
	return parseSplit(k)
}

// parseSplit is Parse by its definition: the trimmed key's non-empty
// segments.
func parseSplit(k string) (agentID, rest string, ok bool) {
	parts := splitNonEmpty(k)
	if len(parts) < 3 || parts[0] != "agent" {
		return "", "", false
	}
	return parts[1], strings.Join(parts[2:], ":"), true
}

// Rest returns the part of key after `agent:<id>:`, or the whole key when it
// has no agent prefix.
func Rest(key string) string {
	if _, rest, ok := Parse(key); ok {
		return rest
	}
	return strings.TrimSpace(key)
}

// AgentOf returns the (normalised) agent a key belongs to. Keys without the
// `agent:<id>:` prefix belong to the default agent (CONTRACT §3; 1.30 says
// "main" whatever the default is).
func AgentOf(key, defaultAgent string, normalize func(string) string) string {
	if id, _, ok := Parse(key); ok {
		return normalize(id)
	}
	return defaultAgent
}

// MainOf is the canonical main key of an agent.
func MainOf(agentID string) string { return "agent:" + agentID + ":main" }

// IsSubagent reports whether key is a sub-agent session key (format §5.1).
func IsSubagent(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	if strings.HasPrefix(k, "subagent:") {
		return true
	}
	_, rest, ok := Parse(k)
	return ok && strings.HasPrefix(rest, "subagent:")
}

// IsReserved reports the keys that are never listed.
func IsReserved(key string) bool { return key == Global || key == Unknown }

// Kind classifies a key on the part after `agent:<id>:` (CONTRACT §3):
// main, cron, hook, node by prefix; group for group/channel keys or a
// group/channel chatType; other for the rest.
func Kind(key, chatType string) string {
	rest := strings.ToLower(Rest(key))
	switch {
	case rest == MainKey:
		return "main"
	case strings.HasPrefix(rest, "cron:"):
		return "cron"
	case strings.HasPrefix(rest, "hook:"):
		return "hook"
	case strings.HasPrefix(rest, "node-"), strings.HasPrefix(rest, "node:"):
		return "node"
	}
	if ct := strings.ToLower(strings.TrimSpace(chatType)); ct == "group" || ct == "channel" {
		return "group"
	}
	if isGroupRest(rest) {
		return "group"
	}
	return "other"
}

// isGroupRest: `<channel>:group:<id>` / `<channel>:channel:<id>` (also with
// an account segment or a thread suffix).
func isGroupRest(rest string) bool {
	return strings.HasPrefix(rest, "group:") || strings.HasPrefix(rest, "channel:") ||
		strings.Contains(rest, ":group:") || strings.Contains(rest, ":channel:")
}

// KeyChannel returns the channel named by a group key
// (`[agent:<a>:]<channel>:group|channel:<id>`), or "".
func KeyChannel(key string) string {
	parts := splitNonEmpty(strings.ToLower(Rest(key)))
	if len(parts) >= 3 && (parts[1] == "group" || parts[1] == "channel") {
		return parts[0]
	}
	return ""
}

// Channel derives the channel of a row (CONTRACT §3): group → the entry's
// channel (else the key's); cron/hook/node → internal; otherwise
// lastChannel, else deliveryContext.channel, else unknown.
func Channel(kind, key, entryChannel, lastChannel, dcChannel string) string {
	switch kind {
	case "cron", "hook", "node":
		return "internal"
	case "group":
		if c := strings.TrimSpace(entryChannel); c != "" {
			return c
		}
		if c := KeyChannel(key); c != "" {
			return c
		}
	}
	if c := strings.TrimSpace(lastChannel); c != "" {
		return c
	}
	if c := strings.TrimSpace(dcChannel); c != "" {
		return c
	}
	return "unknown"
}

var sessionIDRe = lazyre.New(`^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// LooksLikeSessionID matches a UUID (format §5.2).
func LooksLikeSessionID(v string) bool { return sessionIDRe.MatchString(strings.TrimSpace(v)) }

// LooksLikeKey reports whether v is shaped like a session key (format §5.2
// looksLikeSessionKey).
func LooksLikeKey(v string) bool {
	k := strings.TrimSpace(v)
	if k == "" {
		return false
	}
	if k == MainKey || k == Global || k == Unknown {
		return true
	}
	for _, p := range []string{"agent:", "cron:", "hook:", "node-", "node:", "acp:", "subagent:"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return strings.Contains(k, ":group:") || strings.Contains(k, ":channel:")
}

// Candidates returns the store keys to try, in order, for a key a user typed
// (gateway resolveSessionStoreKey, format §2.3, with CONTRACT §3's rule that
// `main` is the requester agent's main): the canonical form first, then the
// raw key when different.
//   - "main" → agent:<requester>:main; "global"/"unknown" as is;
//   - agent:<Id>:<rest> → agent:<normalised id>:<rest> (…:main aliases kept);
//   - anything else → agent:<default>:<raw> (the un-prefixed key is also
//     tried, since stray legacy keys exist).
func Candidates(raw, requesterAgent, defaultAgent string, normalize func(string) string) []string {
	k := strings.TrimSpace(raw)
	var canon string
	switch {
	case k == "":
		return nil
	case k == MainKey:
		canon = MainOf(requesterAgent)
	case k == Global || k == Unknown:
		canon = k
	default:
		if id, rest, ok := Parse(k); ok {
			canon = "agent:" + normalize(id) + ":" + rest
		} else {
			canon = "agent:" + defaultAgent + ":" + k
		}
	}
	out := []string{canon}
	if k != canon {
		out = append(out, k)
	}
	if lk := strings.ToLower(canon); lk != canon {
		out = append(out, lk)
	}
	return out
}

// Display returns the key as shown to a requester: its own agent's main
// session is `main`; everything else as stored (CONTRACT §3). With
// scope "global" the `global` key is shown as `main`.
func Display(key, requesterAgent string, globalScope bool) string {
	if key == MainOf(requesterAgent) {
		return MainKey
	}
	if globalScope && key == Global {
		return MainKey
	}
	return key
}

// Canonical returns the canonical store form of a requester key given with
// --as / OPENCLAW_SESSION_KEY: `main` → agent:<default>:main, agent keys with
// their id normalised, un-prefixed keys prefixed with the default agent.
func Canonical(raw, defaultAgent string, normalize func(string) string) string {
	c := Candidates(raw, defaultAgent, defaultAgent, normalize)
	if len(c) == 0 {
		return ""
	}
	return c[0]
}
