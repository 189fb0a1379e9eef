package persona

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
)

// Tokens OpenClaw's prompt names (auto-reply/tokens.js, heartbeat.js).
const (
	SilentReplyToken = "NO_REPLY"
	HeartbeatToken   = "HEARTBEAT_OK"
	// DefaultHeartbeatPrompt is HEARTBEAT_PROMPT.
	DefaultHeartbeatPrompt = "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK."
)

// NoToolsNotice is the line that replaces OpenClaw's tool list: the
// provider engine calls the model directly and runs no tools.
const NoToolsNotice = "No tools are available in this turn: it is run by the `sessions` CLI's provider engine, which calls the model directly and runs no tools. Do not call tools and do not claim to have run any; answer from the conversation and the context below."

// Input is everything one system prompt is built from.
type Input struct {
	AgentID   string
	AgentName string // the agent's name/identity from the config ("" when none)
	// IsDefaultAgent: the heartbeat prompt is configured only for it.
	IsDefaultAgent  bool
	SessionKey      string
	Workspace       string // absolute
	Channel         string // the session's channel ("" when none)
	ChatType        string // direct, group … ("" when unknown)
	Extra           string // the step's context (extraSystemPrompt)
	Model           string // provider/model of the turn
	DefaultModel    string // the agent's default provider/model
	Thinking        string // the turn's thinking level ("" = off)
	Timezone        string // IANA name
	Now             time.Time
	HeartbeatPrompt string // agents.defaults.heartbeat.prompt ("" = default)
	ModelAliases    []string
	Files           []ContextFile // after ContextFiles
	// BootstrapPresent: BOOTSTRAP.md exists (OpenClaw's commit reminder).
	BootstrapPresent bool
}

// SystemPrompt builds the prompt in the layout of OpenClaw's
// buildAgentSystemPrompt ("full" mode; "minimal" for sub-agent sessions),
// with the tool sections replaced by NoToolsNotice.
func SystemPrompt(in Input) string {
	minimal := IsSubagentKey(in.SessionKey)
	var l []string
	add := func(s ...string) { l = append(l, s...) }
	add("You are a personal assistant running inside OpenClaw.", "")
	who := in.AgentID
	if who == "" {
		who = "main"
	}
	if in.AgentName != "" && in.AgentName != in.AgentID {
		who += " (" + in.AgentName + ")"
	}
	add("## Agent", "You are the OpenClaw agent "+who+".")
	if in.SessionKey != "" {
		add("Session: " + in.SessionKey + ".")
	}
	add("")
	add("## Tooling", NoToolsNotice,
		"TOOLS.md does not control tool availability; it is user guidance for how to use external tools.", "")
	if len(in.ModelAliases) > 0 && !minimal {
		add("## Model Aliases", "Prefer aliases when specifying model overrides; full provider/model is also accepted.", strings.Join(in.ModelAliases, "\n"), "")
	}
	add("## Workspace", "Your working directory is: "+in.Workspace,
		"Treat this directory as the single global workspace for file operations unless explicitly instructed otherwise.")
	if in.BootstrapPresent {
		add("Reminder: commit your changes in this workspace after edits.")
	}
	add("")
	if in.Timezone != "" {
		add("## Current Date & Time")
		if !in.Now.IsZero() {
			now := in.Now
			if loc, err := time.LoadLocation(in.Timezone); err == nil {
				now = now.In(loc)
			}
			add("Current date: " + now.Format("2006-01-02"))
		}
		add("Time zone: "+in.Timezone, "")
	}
	add("## Workspace Files (injected)", "These user-editable files are loaded by OpenClaw and included below in Project Context.", "")
	if !minimal {
		add("## Reply Tags",
			"To request a native reply/quote on supported surfaces, include one tag in your reply:",
			"- [[reply_to_current]] replies to the triggering message.",
			"- [[reply_to:<id>]] replies to a specific message id when you have it.",
			"Whitespace inside the tag is allowed (e.g. [[ reply_to_current ]] / [[ reply_to: 123 ]]).",
			"Tags are stripped before sending; support depends on the current channel config.",
			"")
		add("## Messaging",
			"- Reply in current session → automatically routes to the source channel (Signal, Telegram, etc.)",
			"")
	}
	if x := strings.TrimSpace(in.Extra); x != "" {
		h := "## Group Chat Context"
		if minimal {
			h = "## Subagent Context"
		}
		add(h, x, "")
	}
	if len(in.Files) > 0 {
		add("# Project Context", "", "The following project context files have been loaded:")
		for _, f := range in.Files {
			if strings.EqualFold(filepath.Base(strings.ReplaceAll(strings.TrimSpace(f.Path), `\`, "/")), "soul.md") {
				add("If SOUL.md is present, embody its persona and tone. Avoid stiff, generic replies; follow its guidance unless higher-priority instructions override it.")
				break
			}
		}
		add("")
		for _, f := range in.Files {
			add("## "+f.Path, "", f.Content, "")
		}
	}
	if !minimal {
		add("## Silent Replies", "When you have nothing to say, respond with ONLY: "+SilentReplyToken, "",
			"⚠️ Rules:", "- It must be your ENTIRE message — nothing else",
			`- Never append it to an actual response (never include "`+SilentReplyToken+`" in real replies)`,
			"- Never wrap it in markdown or code blocks", "",
			`❌ Wrong: "Here's help... `+SilentReplyToken+`"`, `❌ Wrong: "`+SilentReplyToken+`"`, "✅ Right: "+SilentReplyToken, "")
		hb := "Heartbeat prompt: (configured)"
		if in.IsDefaultAgent {
			p := strings.TrimSpace(in.HeartbeatPrompt)
			if p == "" {
				p = DefaultHeartbeatPrompt
			}
			hb = "Heartbeat prompt: " + p
		}
		add("## Heartbeats", hb,
			"If you receive a heartbeat poll (a user message matching the heartbeat prompt above), and there is nothing that needs attention, reply exactly:",
			HeartbeatToken,
			`OpenClaw treats a leading/trailing "`+HeartbeatToken+`" as a heartbeat ack (and may discard it).`,
			`If something needs attention, do NOT include "`+HeartbeatToken+`"; reply with the alert text instead.`, "")
	}
	add("## Runtime", RuntimeLine(in), "Reasoning: off (hidden unless on/stream). Toggle /reasoning; /status shows Reasoning when enabled.")
	// like OpenClaw: empty strings are dropped (lines.filter(Boolean))
	out := l[:0]
	for _, s := range l {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

// RuntimeLine is OpenClaw's buildRuntimeLine for what the provider engine
// knows: agent, model, default model, channel, thinking; plus engine=provider.
func RuntimeLine(in Input) string {
	parts := []string{}
	if in.AgentID != "" {
		parts = append(parts, "agent="+in.AgentID)
	}
	if in.Model != "" {
		parts = append(parts, "model="+in.Model)
	}
	if in.DefaultModel != "" {
		parts = append(parts, "default_model="+in.DefaultModel)
	}
	if ch := strings.ToLower(strings.TrimSpace(in.Channel)); ch != "" {
		parts = append(parts, "channel="+ch, "capabilities=none")
	}
	th := in.Thinking
	if th == "" {
		th = "off"
	}
	parts = append(parts, "thinking="+th, "engine=provider (no tools)")
	return "Runtime: " + strings.Join(parts, " | ")
}

// Env is what workspace and time-zone resolution read from the process.
type Env struct {
	Home   string              // the user's home directory
	Getenv func(string) string // nil: no variables
	HostTZ string              // the host's IANA zone ("" = unknown → UTC)
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Workspace resolves an agent's workspace as OpenClaw does
// (resolveAgentWorkspaceDir): agents.list[].workspace, else — for the
// default agent — agents.defaults.workspace, else ~/.openclaw/workspace
// (workspace-<profile> with $OPENCLAW_PROFILE); another agent gets
// ~/.openclaw/workspace-<id>.
func Workspace(cfg *config.Config, agentID, defaultAgent string, env Env) string {
	if cfg != nil {
		if a := cfg.Agent(agentID); a != nil && strings.TrimSpace(a.Workspace) != "" {
			return resolveUser(strings.TrimSpace(a.Workspace), env.Home)
		}
	}
	if agentID == defaultAgent {
		if cfg != nil && strings.TrimSpace(cfg.Defaults.Workspace) != "" {
			return resolveUser(strings.TrimSpace(cfg.Defaults.Workspace), env.Home)
		}
		if p := strings.TrimSpace(env.getenv("OPENCLAW_PROFILE")); p != "" && !strings.EqualFold(p, "default") {
			return filepath.Join(env.Home, ".openclaw", "workspace-"+p)
		}
		return filepath.Join(env.Home, ".openclaw", "workspace")
	}
	return filepath.Join(env.Home, ".openclaw", "workspace-"+agentID)
}

func resolveUser(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[2:])
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Timezone is resolveUserTimezone: agents.defaults.userTimezone when it is
// a valid zone, else the host's, else UTC.
func Timezone(cfg *config.Config, env Env) string {
	if tz := strings.TrimSpace(defaultsString(cfg, "userTimezone")); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			return tz
		}
	}
	if env.HostTZ != "" {
		return env.HostTZ
	}
	return "UTC"
}

// defaultsString reads agents.defaults.<key> as a string.
func defaultsString(cfg *config.Config, key string) string {
	d := defaultsMap(cfg)
	s, _ := d[key].(string)
	return s
}

func defaultsMap(cfg *config.Config) map[string]any {
	if cfg == nil || cfg.Raw == nil {
		return nil
	}
	a, _ := cfg.Raw["agents"].(map[string]any)
	d, _ := a["defaults"].(map[string]any)
	return d
}

// Limits are agents.list[].bootstrapMaxChars/bootstrapTotalMaxChars, else
// agents.defaults', else 0 (the defaults).
func Limits(cfg *config.Config, agentID string) (maxChars, totalMaxChars int) {
	get := func(key string) int {
		if cfg == nil {
			return 0
		}
		if a := cfg.Agent(agentID); a != nil {
			if v, ok := a.Raw[key].(float64); ok && v > 0 {
				return int(v)
			}
		}
		if v, ok := defaultsMap(cfg)[key].(float64); ok && v > 0 {
			return int(v)
		}
		return 0
	}
	return get("bootstrapMaxChars"), get("bootstrapTotalMaxChars")
}

// HeartbeatPrompt is agents.defaults.heartbeat.prompt.
func HeartbeatPrompt(cfg *config.Config) string {
	hb, _ := defaultsMap(cfg)["heartbeat"].(map[string]any)
	s, _ := hb["prompt"].(string)
	return s
}

// AgentName is the agent's display name: agents.list[].identity.name, else
// agents.list[].name.
func AgentName(cfg *config.Config, agentID string) string {
	if cfg == nil {
		return ""
	}
	a := cfg.Agent(agentID)
	if a == nil {
		return ""
	}
	if id, ok := a.Raw["identity"].(map[string]any); ok {
		if n, _ := id["name"].(string); strings.TrimSpace(n) != "" {
			return strings.TrimSpace(n)
		}
	}
	return strings.TrimSpace(a.Name)
}

// ModelAliasLines is buildModelAliasLines: "- alias: provider/model" for
// every agents.defaults.models entry with an alias, sorted by alias.
func ModelAliasLines(cfg *config.Config) []string {
	if cfg == nil {
		return nil
	}
	type pair struct{ alias, model string }
	var ps []pair
	for k, raw := range cfg.Defaults.Models {
		var v struct {
			Alias any `json:"alias"`
		}
		_ = json.Unmarshal(raw, &v)
		a, _ := v.Alias.(string)
		if strings.TrimSpace(k) == "" || strings.TrimSpace(a) == "" {
			continue
		}
		ps = append(ps, pair{strings.TrimSpace(a), strings.TrimSpace(k)})
	}
	sort.Slice(ps, func(i, j int) bool { return strings.ToLower(ps[i].alias) < strings.ToLower(ps[j].alias) })
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = "- " + p.alias + ": " + p.model
	}
	return out
}

// Params name one turn for Build.
type Params struct {
	AgentID, DefaultAgent string
	SessionKey            string
	Channel, ChatType     string
	Extra                 string
	Provider, Model       string
	Thinking              string
	Now                   time.Time
	Env                   Env
	Warn                  func(string)
}

// Build loads the agent's workspace files and builds the system prompt of
// one provider-engine turn. It also returns the workspace directory.
func Build(cfg *config.Config, p Params) (prompt, workspace string) {
	ws := Workspace(cfg, p.AgentID, p.DefaultAgent, p.Env)
	files := LoadFiles(ws)
	bootstrapPresent := false
	for _, f := range files {
		if f.Name == BootstrapFile && !f.Missing {
			bootstrapPresent = true
		}
	}
	maxC, totalC := Limits(cfg, p.AgentID)
	ctx := ContextFiles(FilterForSession(files, p.SessionKey), maxC, totalC, p.Warn)
	in := Input{
		AgentID: p.AgentID, AgentName: AgentName(cfg, p.AgentID),
		IsDefaultAgent: p.AgentID == p.DefaultAgent,
		SessionKey:     p.SessionKey, Workspace: ws,
		Channel: p.Channel, ChatType: p.ChatType, Extra: p.Extra,
		Thinking: p.Thinking, Timezone: Timezone(cfg, p.Env), Now: p.Now,
		HeartbeatPrompt: HeartbeatPrompt(cfg), ModelAliases: ModelAliasLines(cfg),
		Files: ctx, BootstrapPresent: bootstrapPresent,
	}
	if p.Model != "" {
		in.Model = p.Model
		if p.Provider != "" {
			in.Model = p.Provider + "/" + p.Model
		}
	}
	if cfg != nil {
		if dp, dm := cfg.ModelFor(p.AgentID); dm != "" {
			in.DefaultModel = dm
			if dp != "" {
				in.DefaultModel = dp + "/" + dm
			}
		}
	}
	return SystemPrompt(in), ws
}

// HostTimezone is the host's IANA zone: $TZ, else the /etc/localtime link
// target, else "".
func HostTimezone(getenv func(string) string) string {
	if getenv != nil {
		if tz := strings.TrimPrefix(strings.TrimSpace(getenv("TZ")), ":"); tz != "" {
			if _, err := time.LoadLocation(tz); err == nil {
				return tz
			}
		}
	}
	if t, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.Index(t, "zoneinfo/"); i >= 0 {
			return t[i+len("zoneinfo/"):]
		}
	}
	if b, err := os.ReadFile("/etc/timezone"); err == nil {
		if tz := strings.TrimSpace(string(b)); tz != "" {
			return tz
		}
	}
	return ""
}
