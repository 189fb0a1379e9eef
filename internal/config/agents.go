package config

import (
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

const (
	// MainAgentID is OpenClaw's DEFAULT_AGENT_ID.
	MainAgentID = "main"
	// DefaultPingPongTurns and MaxPingPongTurns bound the agent-to-agent
	// reply ping-pong (session.agentToAgent.maxPingPongTurns).
	DefaultPingPongTurns = 5
	MaxPingPongTurns     = 5
	// DefaultArchiveAfterMinutes is agents.defaults.subagents.archiveAfterMinutes' default.
	DefaultArchiveAfterMinutes = 60
	// AgentIDPlaceholder is the template variable of session.store.
	AgentIDPlaceholder = "{agentId}"
)

// NormalizeAgentID is OpenClaw's normalizeAgentId (format §1.3): trim; empty
// → "main"; an id matching ^[a-z0-9][a-z0-9_-]{0,63}$ (case-insensitive) is
// lower-cased; anything else is lower-cased, every run of characters outside
// [a-z0-9_-] becomes "-", leading and trailing dashes are stripped and the
// first 64 characters are kept — after the strip, so the result may end with
// "-"; an empty result is "main".
func NormalizeAgentID(v string) string {
	t := jsTrim(v)
	if t == "" {
		return MainAgentID
	}
	if isValidAgentID(t) {
		return strings.ToLower(t)
	}
	var b strings.Builder
	inRun := false
	for _, r := range jsLower(t) {
		if isAgentIDChar(r) {
			b.WriteRune(r)
			inRun = false
		} else if !inRun {
			b.WriteByte('-')
			inRun = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 64 { // ASCII only by now
		s = s[:64]
	}
	if s == "" {
		return MainAgentID
	}
	return s
}

func isValidAgentID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

func isAgentIDChar(r rune) bool {
	return (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' || r == '-'
}

// jsLower lower-cases like String.prototype.toLowerCase as far as the result
// can contain ASCII: the only full-mapping difference that matters is U+0130
// (İ), which JavaScript lowers to "i" + U+0307.
func jsLower(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == 0x130 {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// DefaultAgentID is resolveDefaultAgentId (format §1.3): no agents → "main";
// else the first entry with a truthy "default", else the first entry;
// normalised.
func (c *Config) DefaultAgentID() string {
	if c == nil || len(c.Agents) == 0 {
		return MainAgentID
	}
	for _, a := range c.Agents {
		if a.Default {
			return NormalizeAgentID(a.RawID)
		}
	}
	return NormalizeAgentID(c.Agents[0].RawID)
}

// AgentIDs is listAgentIds: normalised ids in list order, de-duplicated, or
// ["main"] when no agent is configured.
func (c *Config) AgentIDs() []string {
	if c == nil || len(c.Agents) == 0 {
		return []string{MainAgentID}
	}
	seen := map[string]bool{}
	var ids []string
	for _, a := range c.Agents {
		id := NormalizeAgentID(a.RawID)
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids
}

// Agent returns the first configured agent whose normalised id equals the
// normalised id, or nil when it is not configured.
func (c *Config) Agent(id string) *Agent {
	if c == nil {
		return nil
	}
	want := NormalizeAgentID(id)
	for i := range c.Agents {
		if c.Agents[i].ID == want {
			return &c.Agents[i]
		}
	}
	return nil
}

// SessionsDir is <stateDir>/agents/<id>/sessions (format §1.4).
func SessionsDir(stateDir, agentID string) string {
	return filepath.Join(stateDir, "agents", NormalizeAgentID(agentID), "sessions")
}

// StorePath is resolveStorePath (format §1.4): the sessions.json of an agent.
// The agent id is normalised ("" → "main"). Without session.store it is
// <stateDir>/agents/<id>/sessions/sessions.json. A store containing
// "{agentId}" is templated, "~"-expanded and made absolute. Any other store is
// "~"-expanded and made absolute and is shared by all agents (shared=true).
func (c *Config) StorePath(stateDir, agentID string, env Env) (path string, shared bool) {
	id := NormalizeAgentID(agentID)
	store := ""
	if c != nil {
		store = c.Session.Store
	}
	if jsTrim(store) == "" {
		return filepath.Join(SessionsDir(stateDir, id), "sessions.json"), false
	}
	if strings.Contains(store, AgentIDPlaceholder) {
		return ResolveUserPath(strings.ReplaceAll(store, AgentIDPlaceholder, id), env), false
	}
	return ResolveUserPath(store, env), true
}

// ModelFor resolves the model configured for an agent: the agent's own model,
// else agents.defaults.model (primary), resolved with ResolveModel. Both are
// "" when no model is configured.
func (c *Config) ModelFor(agentID string) (provider, model string) {
	if c == nil {
		return "", ""
	}
	ref := ""
	if a := c.Agent(agentID); a != nil && a.Model != nil {
		ref = a.Model.Primary
	}
	if ref == "" && c.Defaults.Model != nil {
		ref = c.Defaults.Model.Primary
	}
	return c.ResolveModel(ref)
}

// SubagentModelFor is the model a sub-agent of agentID runs with when spawn
// gives none (sessions_spawn): the agent's subagents.model, else
// agents.defaults.subagents.model; "" when neither is set (the child then
// uses its agent's model).
func (c *Config) SubagentModelFor(agentID string) string {
	if c == nil {
		return ""
	}
	if a := c.Agent(agentID); a != nil && a.Subagents.Model != nil && a.Subagents.Model.Primary != "" {
		return a.Subagents.Model.Primary
	}
	if m := c.Defaults.Subagents.Model; m != nil {
		return m.Primary
	}
	return ""
}

// ResolveModel turns a model reference into provider and model id. A
// reference without "/" is first looked up as an alias of
// agents.defaults.models (case-insensitive; the entry's key is used).
// Otherwise it is split on the first "/" and both parts are trimmed; without
// a "/" the provider is "" (OpenClaw would assume its default provider) and
// the whole reference is the model.
func (c *Config) ResolveModel(ref string) (provider, model string) {
	ref = jsTrim(ref)
	if ref == "" {
		return "", ""
	}
	if !strings.Contains(ref, "/") && c != nil {
		if key, ok := c.aliasTarget(ref); ok {
			ref = key
		}
	}
	p, m, ok := strings.Cut(ref, "/")
	if !ok {
		return "", ref
	}
	return jsTrim(p), jsTrim(m)
}

// aliasTarget finds the agents.defaults.models key whose "alias" equals
// alias (case-insensitive, trimmed). Keys are scanned in sorted order and
// the last match wins, so the result is deterministic.
func (c *Config) aliasTarget(alias string) (string, bool) {
	want := strings.ToLower(jsTrim(alias))
	keys := make([]string, 0, len(c.Defaults.Models))
	for k := range c.Defaults.Models {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	found, ok := "", false
	for _, k := range keys {
		var entry struct {
			Alias any `json:"alias"`
		}
		if json.Unmarshal(c.Defaults.Models[k], &entry) != nil {
			continue
		}
		a, _ := entry.Alias.(string)
		if a = jsTrim(a); a != "" && strings.ToLower(a) == want {
			found, ok = k, true
		}
	}
	return found, ok
}

// PingPongTurns is session.agentToAgent.maxPingPongTurns floored and clamped
// to 0..5; 5 when unset or not a finite number.
func (c *Config) PingPongTurns() int {
	if c == nil || c.Session.AgentToAgent.MaxPingPongTurns == nil {
		return DefaultPingPongTurns
	}
	v := *c.Session.AgentToAgent.MaxPingPongTurns
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return DefaultPingPongTurns
	}
	v = math.Floor(v)
	if v < 0 {
		return 0
	}
	if v > MaxPingPongTurns {
		return MaxPingPongTurns
	}
	return int(v)
}

// ArchiveAfterMinutes is agents.defaults.subagents.archiveAfterMinutes
// (default 60), floored with a minimum of 1; 0 (never archive) when it is
// <= 0 or not finite.
func (c *Config) ArchiveAfterMinutes() int {
	if c == nil || c.Defaults.Subagents.ArchiveAfterMinutes == nil {
		return DefaultArchiveAfterMinutes
	}
	v := *c.Defaults.Subagents.ArchiveAfterMinutes
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0
	}
	v = math.Floor(v)
	if v < 1 {
		return 1
	}
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(v)
}
