package config

import (
	"encoding/json"
	"strings"
)

// Config is a loaded openclaw.json: the merged, substituted tree plus typed
// views of the keys the sessions tool uses. Keys it does not know are kept in
// Raw and otherwise ignored; optional values of the wrong type are ignored
// rather than failing the load.
type Config struct {
	Path   string // absolute path of the file (loaded or not)
	Exists bool
	// Raw is the merged, substituted tree (strict-JSON types: map[string]any,
	// []any, float64, string, bool, nil). Never nil after Load.
	Raw map[string]any
	// MissingVars lists, sorted, the "${VAR}" references that had no value;
	// the literal "${VAR}" was kept in place.
	MissingVars []string

	Agents   []Agent       // agents.list: object entries only, in order
	Defaults AgentDefaults // agents.defaults
	Session  Session
	Tools    Tools
	Models   Models
	Logging  Logging
}

// Logging is the config's logging block, the part the sessions tool uses.
type Logging struct {
	// RedactPatterns is logging.redactPatterns: extra credential patterns
	// masked in text handed to an agent (string entries only; nil when unset).
	RedactPatterns []string
}

// ModelRef is a model selection: "provider/model" or {primary, fallbacks}.
type ModelRef struct {
	Primary   string
	Fallbacks []string
}

// Sandbox is the sessions-relevant part of a sandbox block.
type Sandbox struct {
	Mode                   string // "off" | "non-main" | "all" ("" when unset)
	SessionToolsVisibility string // "spawned" | "all" ("" when unset)
}

// AgentSubagents is agents.list[].subagents.
type AgentSubagents struct {
	AllowAgents []string // raw entries ("*" = any); nil when unset
	Model       *ModelRef
}

// Agent is one entry of agents.list.
type Agent struct {
	ID        string // normalised with NormalizeAgentID
	RawID     string // the configured id, as written ("" when missing or not a string)
	Default   bool   // JS-truthy "default"
	Name      string
	Workspace string // "~" expanded
	Model     *ModelRef
	Subagents AgentSubagents
	Sandbox   Sandbox
	Raw       map[string]any // the whole entry
}

// DefaultSubagents is agents.defaults.subagents.
type DefaultSubagents struct {
	ArchiveAfterMinutes *float64
	Model               *ModelRef
	MaxConcurrent       *float64
}

// AgentDefaults is agents.defaults.
type AgentDefaults struct {
	Model *ModelRef
	// Models is the agents.defaults.models allowlist, keyed "provider/model";
	// nil when unset. An empty map, like nil, allows any model.
	Models         map[string]json.RawMessage
	ContextTokens  *float64
	TimeoutSeconds *float64
	Subagents      DefaultSubagents
	Sandbox        Sandbox
	Workspace      string // "~" expanded
}

// SendMatch is the match part of a send-policy rule.
type SendMatch struct {
	Channel, ChatType, KeyPrefix string
}

// SendRule is one session.sendPolicy rule.
type SendRule struct {
	Action string // "allow" | "deny" (as written)
	Match  SendMatch
}

// SendPolicy is session.sendPolicy.
type SendPolicy struct {
	Default string // "allow" | "deny" | ""
	Rules   []SendRule
}

// SessionAgentToAgent is session.agentToAgent.
type SessionAgentToAgent struct {
	MaxPingPongTurns *float64
}

// Session is the config's session block.
type Session struct {
	Scope        string // "" | "per-sender" | "global"
	DMScope      string
	Store        string      // raw session.store (may contain {agentId} and ~)
	SendPolicy   *SendPolicy // nil when unset
	AgentToAgent SessionAgentToAgent
}

// ToolsAgentToAgent is tools.agentToAgent.
type ToolsAgentToAgent struct {
	Enabled bool     // only a literal true enables it
	Allow   []string // patterns; empty allows every agent
}

// Tools is the config's tools block.
type Tools struct {
	AgentToAgent ToolsAgentToAgent
}

// Cost is a model's price per million tokens.
type Cost struct {
	Input, Output, CacheRead, CacheWrite float64
}

// ModelDef is one entry of models.providers.<p>.models.
type ModelDef struct {
	ID, Name      string
	Cost          *Cost
	ContextWindow float64
	MaxTokens     float64
	Reasoning     bool
	Input         []string // e.g. ["text", "image"]
}

// Provider is models.providers.<p>.
type Provider struct {
	BaseURL, APIKey, API string
	Headers              map[string]string
	// Models is the explicit model list: nil when the key is absent,
	// non-nil (possibly empty) when present.
	Models []ModelDef
	Raw    map[string]any
}

// Model returns the provider's model with the given id, or nil.
func (p Provider) Model(id string) *ModelDef {
	for i := range p.Models {
		if p.Models[i].ID == id {
			return &p.Models[i]
		}
	}
	return nil
}

// Models is the config's models block.
type Models struct {
	Providers map[string]Provider // nil when unset
}

// decode fills the typed views from c.Raw.
func (c *Config) decode(env Env) {
	root := c.Raw
	agents := obj(root["agents"])
	if list, ok := agents["list"].([]any); ok {
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			c.Agents = append(c.Agents, decodeAgent(m, env))
		}
	}
	c.Defaults = decodeDefaults(obj(agents["defaults"]), env)
	c.Session = decodeSession(obj(root["session"]))
	a2a := obj(obj(root["tools"])["agentToAgent"])
	c.Tools.AgentToAgent.Enabled = a2a["enabled"] == true
	c.Tools.AgentToAgent.Allow = strList(a2a["allow"])
	c.Logging.RedactPatterns = strList(obj(root["logging"])["redactPatterns"])
	if provs, ok := obj(root["models"])["providers"].(map[string]any); ok {
		c.Models.Providers = make(map[string]Provider, len(provs))
		for name, v := range provs {
			if m, ok := v.(map[string]any); ok {
				c.Models.Providers[name] = decodeProvider(m)
			}
		}
	}
}

func decodeAgent(m map[string]any, env Env) Agent {
	a := Agent{Raw: m}
	a.RawID = str(m["id"])
	a.ID = NormalizeAgentID(a.RawID)
	a.Default = jsTruthy(m["default"])
	a.Name = str(m["name"])
	a.Workspace = expandPathValue(str(m["workspace"]), env)
	a.Model = modelRef(m["model"])
	sub := obj(m["subagents"])
	a.Subagents.AllowAgents = strList(sub["allowAgents"])
	a.Subagents.Model = modelRef(sub["model"])
	a.Sandbox = decodeSandbox(obj(m["sandbox"]))
	return a
}

func decodeDefaults(m map[string]any, env Env) AgentDefaults {
	var d AgentDefaults
	d.Model = modelRef(m["model"])
	if models, ok := m["models"].(map[string]any); ok {
		d.Models = make(map[string]json.RawMessage, len(models))
		for k, v := range models {
			raw, err := json.Marshal(v)
			if err != nil {
				raw = json.RawMessage("null")
			}
			d.Models[k] = raw
		}
	}
	d.ContextTokens = num(m["contextTokens"])
	d.TimeoutSeconds = num(m["timeoutSeconds"])
	sub := obj(m["subagents"])
	d.Subagents.ArchiveAfterMinutes = num(sub["archiveAfterMinutes"])
	d.Subagents.Model = modelRef(sub["model"])
	d.Subagents.MaxConcurrent = num(sub["maxConcurrent"])
	d.Sandbox = decodeSandbox(obj(m["sandbox"]))
	d.Workspace = expandPathValue(str(m["workspace"]), env)
	return d
}

func decodeSandbox(m map[string]any) Sandbox {
	return Sandbox{Mode: str(m["mode"]), SessionToolsVisibility: str(m["sessionToolsVisibility"])}
}

func decodeSession(m map[string]any) Session {
	var s Session
	s.Scope = str(m["scope"])
	s.DMScope = str(m["dmScope"])
	s.Store = str(m["store"])
	if sp, ok := m["sendPolicy"].(map[string]any); ok {
		p := &SendPolicy{Default: str(sp["default"])}
		if rules, ok := sp["rules"].([]any); ok {
			for _, r := range rules {
				rm, ok := r.(map[string]any)
				if !ok {
					continue
				}
				match := obj(rm["match"])
				p.Rules = append(p.Rules, SendRule{
					Action: str(rm["action"]),
					Match: SendMatch{
						Channel:   str(match["channel"]),
						ChatType:  str(match["chatType"]),
						KeyPrefix: str(match["keyPrefix"]),
					},
				})
			}
		}
		s.SendPolicy = p
	}
	s.AgentToAgent.MaxPingPongTurns = num(obj(m["agentToAgent"])["maxPingPongTurns"])
	return s
}

func decodeProvider(m map[string]any) Provider {
	p := Provider{
		BaseURL: str(m["baseUrl"]),
		APIKey:  str(m["apiKey"]),
		API:     str(m["api"]),
		Raw:     m,
	}
	if h, ok := m["headers"].(map[string]any); ok {
		p.Headers = make(map[string]string, len(h))
		for k, v := range h {
			if s, ok := v.(string); ok {
				p.Headers[k] = s
			}
		}
	}
	if list, ok := m["models"].([]any); ok {
		p.Models = make([]ModelDef, 0, len(list))
		for _, e := range list {
			mm, ok := e.(map[string]any)
			if !ok {
				continue
			}
			md := ModelDef{
				ID:        str(mm["id"]),
				Name:      str(mm["name"]),
				Reasoning: mm["reasoning"] == true,
				Input:     strList(mm["input"]),
			}
			if v := num(mm["contextWindow"]); v != nil {
				md.ContextWindow = *v
			}
			if v := num(mm["maxTokens"]); v != nil {
				md.MaxTokens = *v
			}
			if cm, ok := mm["cost"].(map[string]any); ok {
				md.Cost = &Cost{
					Input:      numOr(cm["input"]),
					Output:     numOr(cm["output"]),
					CacheRead:  numOr(cm["cacheRead"]),
					CacheWrite: numOr(cm["cacheWrite"]),
				}
			}
			p.Models = append(p.Models, md)
		}
	}
	return p
}

// ---------------------------------------------------------------------------
// lenient accessors: a value of the wrong type reads as absent.

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) *float64 {
	f, ok := v.(float64)
	if !ok {
		return nil
	}
	return &f
}

func numOr(v any) float64 {
	f, _ := v.(float64)
	return f
}

// strList returns the string items of an array (other items skipped), or
// nil when v is not an array.
func strList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// modelRef reads "provider/model" or {primary, fallbacks}; nil when neither
// gives anything.
func modelRef(v any) *ModelRef {
	switch x := v.(type) {
	case string:
		if p := jsTrim(x); p != "" {
			return &ModelRef{Primary: p}
		}
	case map[string]any:
		r := &ModelRef{Primary: jsTrim(str(x["primary"]))}
		for _, f := range strList(x["fallbacks"]) {
			if f = jsTrim(f); f != "" {
				r.Fallbacks = append(r.Fallbacks, f)
			}
		}
		if r.Primary != "" || len(r.Fallbacks) > 0 {
			return r
		}
	}
	return nil
}

// jsTruthy is JavaScript's Boolean(v) for JSON values.
func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 // NaN never reaches here (sanitised to nil)
	case string:
		return x != ""
	}
	return true // objects and arrays
}

// expandPathValue mirrors normalizeConfigPaths for one value: a string that
// starts with "~" goes through ResolveUserPath; others are kept as written.
func expandPathValue(s string, env Env) string {
	if !strings.HasPrefix(s, "~") {
		return s
	}
	return ResolveUserPath(s, env)
}
