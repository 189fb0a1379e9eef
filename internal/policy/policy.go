// Package policy holds the pure allow/deny decisions of OpenClaw's session
// tools (format §6, §7): agent-to-agent access, the send policy, sandbox
// visibility and sub-agent spawn targets. No I/O.
package policy

import (
	"regexp"
	"strings"
)

// OpenClaw's refusal messages (format §6.2, §6.3, §6.4).
const (
	MsgHistoryA2ADisabled = "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access."
	MsgHistoryA2ADenied   = "Agent-to-agent history denied by tools.agentToAgent.allow."
	MsgSendA2ADisabled    = "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends."
	MsgSendA2ADenied      = "Agent-to-agent messaging denied by tools.agentToAgent.allow."
	MsgNotVisible         = "Session not visible from this sandboxed agent session: "
	MsgSendBlocked        = "send blocked by session policy"
	MsgSpawnFromSubagent  = "sessions_spawn is not allowed from sub-agent sessions"
	MsgSandboxLabelLookup = "Sandboxed sessions_send label lookup is limited to this agent"
)

// A2A is tools.agentToAgent (format §7.2).
type A2A struct {
	Enabled bool
	Allow   []string
}

// matches: empty allow list → everything; exact patterns are case-sensitive,
// wildcard patterns case-insensitive and anchored.
func (p A2A) matches(id string) bool {
	if len(p.Allow) == 0 {
		return true
	}
	for _, raw := range p.Allow {
		pat := strings.TrimSpace(raw)
		switch {
		case pat == "":
			continue
		case pat == "*":
			return true
		case !strings.Contains(pat, "*"):
			if pat == id {
				return true
			}
		default:
			parts := strings.Split(pat, "*")
			for i, s := range parts {
				parts[i] = regexp.QuoteMeta(s)
			}
			re, err := regexp.Compile("(?i)^" + strings.Join(parts, ".*") + "$")
			if err == nil && re.MatchString(id) {
				return true
			}
		}
	}
	return false
}

// Allowed reports whether requester agent req may reach target agent tgt.
func (p A2A) Allowed(req, tgt string) bool {
	if req == tgt {
		return true
	}
	if !p.Enabled {
		return false
	}
	return p.matches(req) && p.matches(tgt)
}

// Op is what a requester wants to do across agents; it picks the message.
type Op int

const (
	OpHistory Op = iota // reading (list/history)
	OpSend              // sending
)

// CheckA2A returns "" when allowed, else OpenClaw's refusal message.
func (p A2A) Check(op Op, req, tgt string) string {
	if p.Allowed(req, tgt) {
		return ""
	}
	if !p.Enabled {
		if op == OpSend {
			return MsgSendA2ADisabled
		}
		return MsgHistoryA2ADisabled
	}
	if op == OpSend {
		return MsgSendA2ADenied
	}
	return MsgHistoryA2ADenied
}

// SendRule is one session.sendPolicy rule.
type SendRule struct {
	Action                       string
	Channel, ChatType, KeyPrefix string
}

// SendConfig is session.sendPolicy; nil means no policy configured.
type SendConfig struct {
	Default string
	Rules   []SendRule
}

// SendInput is what the send policy looks at for one session.
type SendInput struct {
	Key          string
	EntryPolicy  string // entry.sendPolicy override
	EntryChannel string
	LastChannel  string
	ChatType     string
	Channel      string // an explicit channel parameter, if any
}

func normAction(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return "allow"
	case "deny":
		return "deny"
	}
	return ""
}

// NormalizeChatType maps direct|dm → direct, group, channel; else "".
func NormalizeChatType(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "direct", "dm":
		return "direct"
	case "group":
		return "group"
	case "channel":
		return "channel"
	}
	return ""
}

// keyChannel: only un-prefixed `<channel>:group|channel:<id>` keys name a
// channel here (format §7.1 step 3: agent-prefixed keys never match).
func keyChannel(key string) string {
	var parts []string
	for _, p := range strings.Split(key, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) >= 3 && (parts[1] == "group" || parts[1] == "channel") {
		return strings.ToLower(strings.TrimSpace(parts[0]))
	}
	return ""
}

// Send resolves the send policy (format §7.1 resolveSendPolicy): the entry's
// override first, then the rules in order (a matching deny wins at once),
// then the default; "allow" when nothing is configured.
func Send(cfg *SendConfig, in SendInput) string {
	if p := normAction(in.EntryPolicy); p != "" {
		return p
	}
	if cfg == nil {
		return "allow"
	}
	channel := ""
	for _, c := range []string{in.Channel, in.EntryChannel, in.LastChannel, keyChannel(in.Key)} {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
			channel = c
			break
		}
	}
	chatType := NormalizeChatType(in.ChatType)
	if chatType == "" {
		switch {
		case strings.Contains(in.Key, ":group:"):
			chatType = "group"
		case strings.Contains(in.Key, ":channel:"):
			chatType = "channel"
		}
	}
	allowed := false
	for _, r := range cfg.Rules {
		action := normAction(r.Action)
		if action == "" {
			action = "allow"
		}
		if m := strings.ToLower(strings.TrimSpace(r.Channel)); m != "" && m != channel {
			continue
		}
		if m := NormalizeChatType(r.ChatType); m != "" && m != chatType {
			continue
		}
		if m := strings.ToLower(strings.TrimSpace(r.KeyPrefix)); m != "" && !strings.HasPrefix(in.Key, m) {
			continue
		}
		if action == "deny" {
			return "deny"
		}
		allowed = true
	}
	if allowed {
		return "allow"
	}
	if d := normAction(cfg.Default); d != "" {
		return d
	}
	return "allow"
}

// Sandbox describes the requester's sandbox situation (CONTRACT §3).
type Sandbox struct {
	Flag       bool   // --sandboxed / OPENCLAW_SANDBOXED=1
	Mode       string // agents.defaults.sandbox.mode: off | non-main | all
	Visibility string // agents.defaults.sandbox.sessionToolsVisibility: spawned (default) | all
}

// Sandboxed reports whether a requester session is sandboxed: explicitly,
// or implied by mode "all", or "non-main" for any session but its agent's
// main session.
func (s Sandbox) Sandboxed(requesterKey, requesterMainKey string) bool {
	if s.Flag {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(s.Mode)) {
	case "all":
		return requesterKey != ""
	case "non-main":
		return requesterKey != "" && requesterKey != requesterMainKey
	}
	return false
}

// RestrictToSpawned reports whether the requester sees only the sessions it
// spawned: sandboxed, visibility "spawned" (the default), a requester key,
// and not a sub-agent (format §6 preamble).
func (s Sandbox) RestrictToSpawned(requesterKey, requesterMainKey string, isSubagent bool) bool {
	if requesterKey == "" || isSubagent {
		return false
	}
	vis := strings.ToLower(strings.TrimSpace(s.Visibility))
	if vis == "" {
		vis = "spawned"
	}
	return vis == "spawned" && s.Sandboxed(requesterKey, requesterMainKey)
}

// SpawnTarget checks a sessions_spawn target agent against the requester
// agent's subagents.allowAgents (format §6.4 step 5). It returns "" when
// allowed, else OpenClaw's refusal message. normalize is NormalizeAgentID.
func SpawnTarget(allowAgents []string, requester, target string, normalize func(string) string) string {
	if requester == target {
		return ""
	}
	allowed := map[string]bool{}
	for _, v := range allowAgents {
		v = strings.TrimSpace(v)
		if v == "*" {
			return ""
		}
		if v != "" {
			allowed[strings.ToLower(normalize(v))] = true
		}
	}
	if allowed[strings.ToLower(target)] {
		return ""
	}
	return "agentId is not allowed for sessions_spawn (allowed: " + SpawnAllowedList(allowAgents, normalize) + ")"
}

// SpawnAllowedList is the "allowed: …" part of the refusal: the normalised
// ids in configured order joined by ", ", "*" when any, or "none".
func SpawnAllowedList(allowAgents []string, normalize func(string) string) string {
	var ids []string
	seen := map[string]bool{}
	for _, v := range allowAgents {
		v = strings.TrimSpace(v)
		if v == "*" {
			return "*"
		}
		if v == "" {
			continue
		}
		id := strings.ToLower(normalize(v))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
