package persona

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
)

func loadCfg(t *testing.T, doc string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, config.Env{Getenv: func(string) string { return "" }, Home: "/home/u", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// OpenClaw 1.30's trimBootstrapContent: 70 % head, 20 % tail, its marker.
func TestTrimMarker(t *testing.T) {
	content := strings.Repeat("a", 60) + strings.Repeat("b", 40) + "  \n\n"
	got, cut, orig := Trim(content, "SOUL.md", 50)
	if !cut || orig != 100 {
		t.Fatalf("cut=%v orig=%d", cut, orig)
	}
	want := strings.Repeat("a", 35) + "\n\n[...truncated, read SOUL.md for full content...]\n…(truncated SOUL.md: kept 35+10 chars of 100)…\n\n" + strings.Repeat("b", 10)
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	// within the limit: only trailing white space goes
	got, cut, _ = Trim("hello \n", "X", 50)
	if cut || got != "hello" {
		t.Fatalf("%q %v", got, cut)
	}
	// UTF-16 lengths, never a split surrogate pair
	emoji := strings.Repeat("😀", 30) // 60 UTF-16 units
	got, cut, orig = Trim(emoji, "E.md", 10)
	if !cut || orig != 60 {
		t.Fatalf("cut=%v orig=%d", cut, orig)
	}
	if !strings.HasPrefix(got, "😀😀😀\n") || !strings.HasSuffix(got, "\n😀") || strings.ContainsRune(got, '\uFFFD') {
		t.Fatalf("%q", got)
	}
}

func TestLoadFilesOrderAndMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "SOUL.md", "soul")
	write(t, dir, "AGENTS.md", "agents")
	write(t, dir, "MEMORY.md", "mem")
	files := LoadFiles(dir)
	var names []string
	for _, f := range files {
		n := f.Name
		if f.Missing {
			n += "?"
		}
		names = append(names, n)
	}
	want := "AGENTS.md SOUL.md TOOLS.md? IDENTITY.md? USER.md? HEARTBEAT.md? BOOTSTRAP.md? MEMORY.md"
	if got := strings.Join(names, " "); got != want && got != want+" memory.md" {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	cf := ContextFiles(files, 0, 0, nil)
	if cf[0].Content != "agents" || cf[2].Content != "[MISSING] Expected at: "+filepath.Join(dir, "TOOLS.md") {
		t.Fatalf("%+v", cf[:3])
	}
	// a sub-agent sees AGENTS.md and TOOLS.md only
	sub := FilterForSession(files, "agent:main:subagent:abc")
	if len(sub) != 2 || sub[0].Name != AgentsFile || sub[1].Name != ToolsFile {
		t.Fatalf("%+v", sub)
	}
	if len(FilterForSession(files, "agent:main:main")) != len(files) {
		t.Fatal("main session filtered")
	}
}

func TestContextFilesBudgets(t *testing.T) {
	files := []File{
		{Name: "AGENTS.md", Content: strings.Repeat("x", 500)},
		{Name: "SOUL.md", Content: ""},
		{Name: "TOOLS.md", Content: strings.Repeat("y", 300)},
		{Name: "USER.md", Content: strings.Repeat("z", 300)},
	}
	var warns []string
	cf := ContextFiles(files, 400, 700, func(s string) { warns = append(warns, s) })
	// AGENTS.md cut to 400 (per-file), SOUL.md empty → dropped, TOOLS.md
	// cut by the remaining 300 budget? no: 300 fits exactly; USER.md has 0 left.
	if len(cf) != 2 || cf[0].Path != "AGENTS.md" || !cf[0].Truncated || cf[1].Path != "TOOLS.md" {
		t.Fatalf("%+v", cf)
	}
	if !strings.Contains(cf[0].Content, "[...truncated, read AGENTS.md for full content...]") {
		t.Fatal(cf[0].Content)
	}
	total := ulen(cf[0].Content) + ulen(cf[1].Content)
	if total > 700 {
		t.Fatalf("total %d > 700", total)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "AGENTS.md is 500 chars (limit 400)") {
		t.Fatalf("%v", warns)
	}
	// a file that does not fit the rest of the total is cut with "…"
	cf = ContextFiles(files[:1], 1000, 100, nil)
	if ulen(cf[0].Content) != 100 || !strings.HasSuffix(cf[0].Content, "…") {
		t.Fatalf("%q", cf[0].Content)
	}
	// fewer than 64 left: no further file
	cf = ContextFiles([]File{{Name: "A", Content: strings.Repeat("a", 80)}, {Name: "B", Content: "b"}}, 1000, 120, nil)
	if len(cf) != 1 {
		t.Fatalf("%+v", cf)
	}
}

func TestWorkspaceResolution(t *testing.T) {
	cfg := loadCfg(t, `{"agents":{"defaults":{"workspace":"~/ws-default"},"list":[{"id":"main","default":true},{"id":"ops","workspace":"/srv/ops"},{"id":"dev"}]}}`)
	env := Env{Home: "/home/u"}
	for agent, want := range map[string]string{"main": "/home/u/ws-default", "ops": "/srv/ops", "dev": "/home/u/.openclaw/workspace-dev"} {
		if got := Workspace(cfg, agent, "main", env); got != want {
			t.Errorf("%s: %s, want %s", agent, got, want)
		}
	}
	bare := loadCfg(t, `{}`)
	if got := Workspace(bare, "main", "main", env); got != "/home/u/.openclaw/workspace" {
		t.Error(got)
	}
	env.Getenv = func(k string) string {
		if k == "OPENCLAW_PROFILE" {
			return "work"
		}
		return ""
	}
	if got := Workspace(bare, "main", "main", env); got != "/home/u/.openclaw/workspace-work" {
		t.Error(got)
	}
}

func TestTimezoneAndLimits(t *testing.T) {
	cfg := loadCfg(t, `{"agents":{"defaults":{"userTimezone":"Europe/Vienna","bootstrapMaxChars":1234,"bootstrapTotalMaxChars":5000},"list":[{"id":"ops","bootstrapMaxChars":99}]}}`)
	if tz := Timezone(cfg, Env{HostTZ: "UTC"}); tz != "Europe/Vienna" {
		t.Error(tz)
	}
	bad := loadCfg(t, `{"agents":{"defaults":{"userTimezone":"Not/AZone"}}}`)
	if tz := Timezone(bad, Env{HostTZ: "America/New_York"}); tz != "America/New_York" {
		t.Error(tz)
	}
	if tz := Timezone(bad, Env{}); tz != "UTC" {
		t.Error(tz)
	}
	if m, tot := Limits(cfg, "main"); m != 1234 || tot != 5000 {
		t.Error(m, tot)
	}
	if m, _ := Limits(cfg, "ops"); m != 99 {
		t.Error(m)
	}
}

func TestBuildPrompt(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, ".openclaw", "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "AGENTS.md", "# Agents rules\nbe brief")
	write(t, ws, "SOUL.md", "# Soul\nyou are Pirate Pete")
	write(t, ws, "TOOLS.md", strings.Repeat("t", 300))
	cfg := loadCfg(t, `{"agents":{"defaults":{"model":{"primary":"mock/mock-1"},"bootstrapMaxChars":200,"models":{"mock/mock-1":{"alias":"fast"}}},"list":[{"id":"main","default":true,"identity":{"name":"Pete"}}]}}`)
	p, gotWS := Build(cfg, Params{
		AgentID: "main", DefaultAgent: "main", SessionKey: "agent:main:main", Channel: "Signal",
		Extra: "Agent-to-agent message context:", Provider: "mock", Model: "mock-1",
		Now: time.Date(2026, 1, 2, 23, 30, 0, 0, time.UTC), Env: Env{Home: home, HostTZ: "Asia/Tokyo"},
	})
	if gotWS != ws {
		t.Fatal(gotWS)
	}
	iAgents := strings.Index(p, "## AGENTS.md\n# Agents rules\nbe brief\n")
	iSoul := strings.Index(p, "## SOUL.md\n# Soul\nyou are Pirate Pete\n")
	iTools := strings.Index(p, "## TOOLS.md\n")
	if iAgents < 0 || iSoul < iAgents || iTools < iSoul {
		t.Fatalf("order %d %d %d:\n%s", iAgents, iSoul, iTools, p)
	}
	for _, want := range []string{
		"You are a personal assistant running inside OpenClaw.\n",
		"You are the OpenClaw agent main (Pete).",
		NoToolsNotice,
		"Your working directory is: " + ws,
		"## Current Date & Time\nCurrent date: 2026-01-03\nTime zone: Asia/Tokyo\n",
		"## Model Aliases\nPrefer aliases when specifying model overrides; full provider/model is also accepted.\n- fast: mock/mock-1\n",
		"## Group Chat Context\nAgent-to-agent message context:\n",
		"If SOUL.md is present, embody its persona and tone.",
		"[...truncated, read TOOLS.md for full content...]\n…(truncated TOOLS.md: kept 140+40 chars of 300)…",
		"## Silent Replies\n",
		"Heartbeat prompt: " + DefaultHeartbeatPrompt,
		"Runtime: agent=main | model=mock/mock-1 | default_model=mock/mock-1 | channel=signal | capabilities=none | thinking=off | engine=provider (no tools)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("missing %q in\n%s", want, p)
		}
	}
	// a sub-agent: minimal prompt, AGENTS.md and TOOLS.md only
	p, _ = Build(cfg, Params{AgentID: "main", DefaultAgent: "main", SessionKey: "agent:main:subagent:x", Extra: "task", Env: Env{Home: home}})
	if strings.Contains(p, "Pirate Pete") || !strings.Contains(p, "be brief") || !strings.Contains(p, "## Subagent Context\ntask") ||
		strings.Contains(p, "## Silent Replies") || strings.Contains(p, "## Heartbeats") || strings.Contains(p, "## Model Aliases") {
		t.Fatalf("sub-agent prompt:\n%s", p)
	}
}
