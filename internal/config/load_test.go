package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadMissingFile(t *testing.T) {
	home, cwd := sandbox(t)
	env := fakeEnv(home, cwd, nil)
	for name, p := range map[string]string{
		"absent":       filepath.Join(home, ".openclaw", "openclaw.json"),
		"parent file":  filepath.Join(writeFile(t, filepath.Join(home, "plain"), "x"), "openclaw.json"),
		"empty path":   "",
		"relative one": "nowhere/openclaw.json",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Load(p, env)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if cfg.Exists || cfg.Raw == nil || len(cfg.Raw) != 0 || len(cfg.Agents) != 0 {
				t.Fatalf("want empty config, got %+v", cfg)
			}
			if name == "relative one" && cfg.Path != filepath.Join(cwd, "nowhere", "openclaw.json") {
				t.Errorf("Path = %s", cfg.Path)
			}
			if cfg.DefaultAgentID() != "main" || !reflect.DeepEqual(cfg.AgentIDs(), []string{"main"}) ||
				cfg.PingPongTurns() != 5 || cfg.ArchiveAfterMinutes() != 60 {
				t.Errorf("defaults wrong: %s %v %d %d", cfg.DefaultAgentID(), cfg.AgentIDs(), cfg.PingPongTurns(), cfg.ArchiveAfterMinutes())
			}
			if p, m := cfg.ModelFor("main"); p != "" || m != "" {
				t.Errorf("ModelFor = %q %q", p, m)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	home, cwd := sandbox(t)
	env := fakeEnv(home, cwd, nil)

	// A directory where the file should be.
	dir := filepath.Join(home, "openclaw.json")
	mustMkdir(t, dir)
	_, err := Load(dir, env)
	if ae := wantStateErr(t, err); !strings.Contains(ae.Msg, dir) {
		t.Errorf("message does not name the file: %s", ae.Msg)
	}

	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of permissions")
	}
	p := writeFile(t, filepath.Join(home, "locked.json"), "{}")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	_, err = Load(p, env)
	if ae := wantStateErr(t, err); !strings.Contains(ae.Msg, p) {
		t.Errorf("message does not name the file: %s", ae.Msg)
	}
}

func TestLoadJSON5(t *testing.T) {
	env := fakeEnv("/h", "/", nil)
	cfg := mustLoad(t, "\ufeff"+`// leading comment
{
  /* block
     comment */
  unquoted: 'single "quoted"',
  "double": "x", // trailing comment
  hex: 0xFF,
  negHex: -0x10,
  half: .5,
  five: 5.,
  plus: +1,
  inf: Infinity,
  nan: NaN,
  list: [1, 2, 3,],
  $dollar: true,
  _under: null,
  multi: "a\
b",
  nested: { deep: { ok: true, }, },
}
`, env)
	want := map[string]any{
		"unquoted": `single "quoted"`,
		"double":   "x",
		"hex":      255.0,
		"negHex":   -16.0,
		"half":     0.5,
		"five":     5.0,
		"plus":     1.0,
		"inf":      nil,
		"nan":      nil,
		"list":     []any{1.0, 2.0, 3.0},
		"$dollar":  true,
		"_under":   nil,
		"multi":    "ab",
		"nested":   map[string]any{"deep": map[string]any{"ok": true}},
	}
	if !reflect.DeepEqual(cfg.Raw, want) {
		t.Errorf("Raw =\n%#v\nwant\n%#v", cfg.Raw, want)
	}
	if !cfg.Exists {
		t.Error("Exists = false")
	}
}

func TestLoadErrors(t *testing.T) {
	env := fakeEnv("/h", "/", nil)
	tests := []struct {
		name, content string
		contains      []string
	}{
		{"syntax error with line", "{\n  a: 1,\n  b: ,\n}", []string{"line 3", "column 6"}},
		{"unterminated", "{a: 1", []string{"cannot parse config"}},
		{"empty file", "", []string{"cannot parse config"}},
		{"garbage after value", "{} x", []string{"line 1"}},
		{"top-level array", "[1, 2]", []string{"top level must be an object", "array"}},
		{"top-level string", `"x"`, []string{"top level must be an object", "string"}},
		{"top-level null", `null`, []string{"top level must be an object", "null"}},
		{"too deep", "{a:" + strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1) + "}", []string{"nesting"}},
		{"huge hex", "{a: 0xFFFFFFFFFFFFFFFFFFFF}", []string{"cannot parse config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, filepath.Join(dir, "openclaw.json"), tt.content)
			_, err := Load(p, env)
			ae := wantStateErr(t, err)
			for _, c := range append(tt.contains, p) {
				if !strings.Contains(ae.Msg, c) {
					t.Errorf("message %q does not contain %q", ae.Msg, c)
				}
			}
		})
	}
	// Deep but within the limit is fine.
	n := maxNesting - 1
	if _, err := loadString(t, "{a:"+strings.Repeat("[", n)+strings.Repeat("]", n)+"}", env); err != nil {
		t.Errorf("nesting %d: %v", n, err)
	}
}

func TestNestingDepth(t *testing.T) {
	tests := map[string]int{
		`{}`:                         1,
		`{a:[{}]}`:                   3,
		`{a:"[[[[", b:'{{{'}`:        1,
		`{a:"\"[[", b:'\'{{'}`:       1,
		"{// [[[[\n a: 1}":           1,
		"{/* [[[[ */ a: [1]}":        2,
		"{/* unterminated [[[[ ":     1,
		`]]]]{`:                      1,
		`{a: "x\\", b: [[1]]}`:       3,
		"{a: 'line\\\n[[[', b: [1]}": 2,
	}
	for in, want := range tests {
		if got := nestingDepth([]byte(in)); got != want {
			t.Errorf("nestingDepth(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncdé\nf")
	tests := []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {7, 2, 4}, {8, 3, 1}, {100, 3, 2}, {-1, 1, 1}}
	for _, tt := range tests {
		if l, c := lineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func TestIncludes(t *testing.T) {
	env := fakeEnv("/h", "/", nil)

	t.Run("string include at root", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "base.json5"), `{agents: {list: [{id: "ops"}]}}`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{$include: "./base.json5"}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cfg.AgentIDs(), []string{"ops"}) {
			t.Errorf("AgentIDs = %v", cfg.AgentIDs())
		}
	})

	t.Run("array include deep merge", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "a.json5"), `{x: 1, arr: [1], obj: {a: 1, keep: "a"}, s: "a"}`)
		writeFile(t, filepath.Join(dir, "b.json5"), `{x: 2, arr: [2, 3], obj: {b: 2, keep: "b"}, other: true}`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{$include: ["a.json5", "b.json5"]}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"x":     2.0,
			"arr":   []any{1.0, 2.0, 3.0},
			"obj":   map[string]any{"a": 1.0, "b": 2.0, "keep": "b"},
			"s":     "a",
			"other": true,
		}
		if !reflect.DeepEqual(cfg.Raw, want) {
			t.Errorf("Raw = %#v", cfg.Raw)
		}
	})

	t.Run("sibling keys override, arrays concatenate, objects merge", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "base.json5"), `{
			session: {scope: "per-sender", dmScope: "main"},
			tools: {agentToAgent: {enabled: false, allow: ["a"]}},
			v: "included",
		}`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{
			$include: "base.json5",
			session: {scope: "global"},
			tools: {agentToAgent: {enabled: true, allow: ["b"]}},
			v: "sibling",
		}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Session.Scope != "global" || cfg.Session.DMScope != "main" {
			t.Errorf("session = %+v", cfg.Session)
		}
		if !cfg.Tools.AgentToAgent.Enabled || !reflect.DeepEqual(cfg.Tools.AgentToAgent.Allow, []string{"a", "b"}) {
			t.Errorf("tools = %+v", cfg.Tools)
		}
		if cfg.Raw["v"] != "sibling" {
			t.Errorf("v = %v", cfg.Raw["v"])
		}
		if _, ok := cfg.Raw[IncludeKey]; ok {
			t.Error("$include left in Raw")
		}
	})

	t.Run("nested includes relative to the including file", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "conf", "agents.json5"), `{list: [{$include: "../agents/ops.json5"}, {id: "b"}]}`)
		writeFile(t, filepath.Join(dir, "agents", "ops.json5"), `{id: "ops", model: {$include: "./model.json5"}}`)
		writeFile(t, filepath.Join(dir, "agents", "model.json5"), `{primary: "p/m"}`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{agents: {$include: "conf/agents.json5"}}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cfg.AgentIDs(), []string{"ops", "b"}) {
			t.Fatalf("AgentIDs = %v", cfg.AgentIDs())
		}
		if p, m := cfg.ModelFor("ops"); p != "p" || m != "m" {
			t.Errorf("ModelFor(ops) = %s/%s", p, m)
		}
	})

	t.Run("absolute path and same file twice is not a cycle", func(t *testing.T) {
		dir := t.TempDir()
		shared := writeFile(t, filepath.Join(dir, "shared.json5"), `{enabled: true}`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), fmt.Sprintf(`{a: {$include: %q}, b: {$include: %q}}`, shared, "shared.json5"))
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"a": map[string]any{"enabled": true}, "b": map[string]any{"enabled": true}}
		if !reflect.DeepEqual(cfg.Raw, want) {
			t.Errorf("Raw = %#v", cfg.Raw)
		}
	})

	t.Run("included scalar without siblings", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "s.json5"), `"hello"`)
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{greeting: {$include: "s.json5"}, arr: [{$include: "s.json5"}]}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Raw["greeting"] != "hello" || !reflect.DeepEqual(cfg.Raw["arr"], []any{"hello"}) {
			t.Errorf("Raw = %#v", cfg.Raw)
		}
	})

	t.Run("depth 10 is allowed", func(t *testing.T) {
		dir := t.TempDir()
		for i := 1; i <= MaxIncludeDepth; i++ {
			next := fmt.Sprintf(`{$include: "f%d.json5"}`, i+1)
			if i == MaxIncludeDepth {
				next = `{leaf: 10}`
			}
			writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.json5", i)), next)
		}
		p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{$include: "f1.json5"}`)
		cfg, err := Load(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Raw["leaf"] != 10.0 {
			t.Errorf("Raw = %#v", cfg.Raw)
		}
	})

	errCases := []struct {
		name     string
		files    map[string]string
		root     string
		contains []string
	}{
		{
			name:     "missing include file",
			root:     `{$include: "nope.json5"}`,
			contains: []string{"nope.json5", "cannot read $include"},
		},
		{
			name:     "cycle",
			files:    map[string]string{"a.json5": `{$include: "b.json5"}`, "b.json5": `{$include: "a.json5"}`},
			root:     `{$include: "a.json5"}`,
			contains: []string{"circular", "a.json5 -> ", "b.json5"},
		},
		{
			name:     "self include",
			root:     `{x: {$include: "openclaw.json"}}`,
			contains: []string{"circular"},
		},
		{
			name:     "depth 11",
			files:    chainFiles(MaxIncludeDepth + 1),
			root:     `{$include: "f1.json5"}`,
			contains: []string{"maximum $include depth (10)", "f11.json5"},
		},
		{
			name:     "parse error in include",
			files:    map[string]string{"bad.json5": "{\n x: }"},
			root:     `{$include: "bad.json5"}`,
			contains: []string{"cannot parse $include file", "bad.json5", "line 2"},
		},
		{
			name:     "invalid include value",
			root:     `{$include: 5}`,
			contains: []string{"invalid $include value", "number"},
		},
		{
			name:     "null include value",
			root:     `{$include: null}`,
			contains: []string{"invalid $include value", "null"},
		},
		{
			name:     "non-string array item",
			root:     `{$include: ["a.json5", true]}`,
			files:    map[string]string{"a.json5": "{}"},
			contains: []string{"invalid $include array item", "boolean"},
		},
		{
			name:     "siblings need an object",
			files:    map[string]string{"list.json5": "[1]"},
			root:     `{x: {$include: "list.json5", y: 1}}`,
			contains: []string{"sibling keys require", "list.json5", "array"},
		},
		{
			name:     "root include yields an array",
			files:    map[string]string{"list.json5": "[1]"},
			root:     `{$include: "list.json5"}`,
			contains: []string{"top level must be an object", "after $include"},
		},
		{
			name:     "include of a directory",
			files:    map[string]string{"d/x": ""},
			root:     `{$include: "d"}`,
			contains: []string{"not a regular file"},
		},
		{
			name:     "NUL in include path",
			root:     `{$include: "a\u0000b"}`,
			contains: []string{"NUL"},
		},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			p := writeFile(t, filepath.Join(dir, "openclaw.json"), tt.root)
			_, err := Load(p, env)
			ae := wantStateErr(t, err)
			for _, c := range append(tt.contains, p) {
				if !strings.Contains(ae.Msg, c) {
					t.Errorf("message %q does not contain %q", ae.Msg, c)
				}
			}
		})
	}
}

// chainFiles returns f1.json5 … fN.json5, each including the next; fN is a leaf.
func chainFiles(n int) map[string]string {
	files := map[string]string{}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("f%d.json5", i)] = fmt.Sprintf(`{$include: "f%d.json5"}`, i+1)
	}
	files[fmt.Sprintf("f%d.json5", n)] = `{leaf: true}`
	return files
}

func TestDeepMergeDoesNotMutate(t *testing.T) {
	a := map[string]any{"o": map[string]any{"x": 1.0}, "l": []any{1.0}}
	b := map[string]any{"o": map[string]any{"y": 2.0}, "l": []any{2.0}}
	got := deepMerge(a, b)
	want := map[string]any{"o": map[string]any{"x": 1.0, "y": 2.0}, "l": []any{1.0, 2.0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merge = %#v", got)
	}
	if !reflect.DeepEqual(a, map[string]any{"o": map[string]any{"x": 1.0}, "l": []any{1.0}}) {
		t.Errorf("target mutated: %#v", a)
	}
	if deepMerge([]any{1.0}, map[string]any{}) == nil || deepMerge(map[string]any{"a": 1.0}, "s") != "s" {
		t.Error("mismatched kinds: source must win")
	}
}

func TestSubstitution(t *testing.T) {
	vars := map[string]string{
		"API_KEY": "sk-123",
		"HOST":    "example.org",
		"EMPTY":   "",
		"BLANK":   "  ",
		"PROC":    "from-process",
		"NESTED":  "${HOST}",
		"_X1":     "underscore",
	}
	env := fakeEnv("/h", "/", vars)
	cfg := mustLoad(t, `{
		env: {
			BLOCK_ONLY: "from-block",
			PROC: "block-loses",
			BLANK: "block-wins-over-blank",
			vars: {VARS_ONLY: "from-vars", BLOCK_ONLY: "vars-loses-to-direct", NUM: 5},
			shellEnv: {enabled: true},
			NOT_STRING: 42,
			WS_ONLY: "   ",
		},
		a: "${API_KEY}",
		b: "https://${HOST}:8080/${HOST}",
		c: "$${API_KEY}",
		d: "$${lower}",
		e: "${lower} ${1ABC} ${A-B} ${} ${UNTERMINATED",
		f: "${MISSING_ONE} and ${MISSING_ONE} and ${EMPTY}",
		g: "${BLOCK_ONLY}|${VARS_ONLY}|${PROC}|${BLANK}",
		h: "${NESTED}",
		i: ["${API_KEY}", {deep: "${_X1}"}, 5, true, null],
		"${API_KEY}": "keys are not substituted",
		j: "$ $$ $$$ ${",
		k: "${WS_ONLY}",
		l: "${NUM}",
		m: "$$${API_KEY}",
	}`, env)
	want := map[string]any{
		"a":          "sk-123",
		"b":          "https://example.org:8080/example.org",
		"c":          "${API_KEY}",
		"d":          "$${lower}",
		"e":          "${lower} ${1ABC} ${A-B} ${} ${UNTERMINATED",
		"f":          "${MISSING_ONE} and ${MISSING_ONE} and ${EMPTY}",
		"g":          "from-block|from-vars|from-process|block-wins-over-blank",
		"h":          "${HOST}", // not recursive
		"i":          []any{"sk-123", map[string]any{"deep": "underscore"}, 5.0, true, nil},
		"${API_KEY}": "keys are not substituted",
		"j":          "$ $$ $$$ ${",
		"k":          "${WS_ONLY}",
		"l":          "${NUM}",
		"m":          "$${API_KEY}",
	}
	for k, v := range want {
		if !reflect.DeepEqual(cfg.Raw[k], v) {
			t.Errorf("%s = %#v, want %#v", k, cfg.Raw[k], v)
		}
	}
	if wantMissing := []string{"EMPTY", "MISSING_ONE", "NUM", "WS_ONLY"}; !reflect.DeepEqual(cfg.MissingVars, wantMissing) {
		t.Errorf("MissingVars = %v, want %v", cfg.MissingVars, wantMissing)
	}
	if got := cfg.MissingIn(cfg.Raw["f"].(string)); !reflect.DeepEqual(got, []string{"EMPTY", "MISSING_ONE"}) {
		t.Errorf("MissingIn = %v", got)
	}
	if got := cfg.MissingIn("plain"); got != nil {
		t.Errorf("MissingIn(plain) = %v", got)
	}
	var nilCfg *Config
	if nilCfg.MissingIn("${X}") != nil {
		t.Error("nil config MissingIn")
	}
}

func TestSubstitutionBlankProcessVarWithoutBlock(t *testing.T) {
	env := fakeEnv("/h", "/", map[string]string{"SPACES": "  "})
	cfg := mustLoad(t, `{a: "[${SPACES}]"}`, env)
	if cfg.Raw["a"] != "[  ]" || len(cfg.MissingVars) != 0 {
		t.Errorf("a = %q, missing %v", cfg.Raw["a"], cfg.MissingVars)
	}
}

func TestSubstitutionInIncludesAndProvider(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "models.json5"), `{providers: {p: {apiKey: "${P_KEY}", baseUrl: "${P_URL}/v1"}}}`)
	p := writeFile(t, filepath.Join(dir, "openclaw.json"), `{env: {P_URL: "http://h"}, models: {$include: "models.json5"}}`)
	cfg, err := Load(p, fakeEnv("/h", "/", nil))
	if err != nil {
		t.Fatal(err)
	}
	prov := cfg.Models.Providers["p"]
	if prov.BaseURL != "http://h/v1" || prov.APIKey != "${P_KEY}" {
		t.Errorf("provider = %+v", prov)
	}
	if !reflect.DeepEqual(cfg.MissingIn(prov.APIKey), []string{"P_KEY"}) {
		t.Errorf("MissingIn = %v", cfg.MissingIn(prov.APIKey))
	}
}

func TestValidVarName(t *testing.T) {
	for _, ok := range []string{"A", "_", "A1", "_A_1", "ABC_DEF"} {
		if !validVarName(ok) {
			t.Errorf("%q should be valid", ok)
		}
	}
	for _, bad := range []string{"", "a", "1A", "A-B", "A B", "Ä", "aB"} {
		if validVarName(bad) {
			t.Errorf("%q should be invalid", bad)
		}
	}
}

func TestDecodeTyped(t *testing.T) {
	home := "/home/u"
	env := fakeEnv(home, "/cwd", nil)
	cfg := mustLoad(t, `{
		agents: {
			defaults: {
				model: {primary: " anthropic/claude ", fallbacks: ["openai/gpt", 5, " "]},
				models: {"anthropic/claude": {alias: "Opus"}, "openai/gpt": {}},
				contextTokens: 1000,
				timeoutSeconds: "600",
				subagents: {archiveAfterMinutes: 30, model: "p/sub", maxConcurrent: 4},
				sandbox: {mode: "non-main", sessionToolsVisibility: "all"},
				workspace: "~/ws",
			},
			list: [
				null, 0, "str", [],
				{id: "Ops", default: 1, name: "Ops Agent", workspace: "~/ops", model: "p/ops",
				 subagents: {allowAgents: ["main", 3, "*"], model: {primary: "p/opsub"}},
				 sandbox: {mode: "all"}, agentDir: "/x"},
				{id: 42, name: 7},
				{},
			],
		},
		session: {
			scope: "global", dmScope: "per-peer", store: "~/s/{agentId}.json",
			sendPolicy: {default: "deny", rules: [
				{action: "allow", match: {channel: "discord", chatType: "group", keyPrefix: "agent:main:"}},
				"bogus",
				{action: "deny"},
			]},
			agentToAgent: {maxPingPongTurns: 2},
		},
		tools: {agentToAgent: {enabled: "true", allow: ["a*", null]}},
		models: {providers: {
			p: {baseUrl: "http://x", apiKey: "k", api: "openai-completions", headers: {A: "1", B: 2},
			    models: [{id: "m1", name: "M1", reasoning: true, input: ["text", "image"], contextWindow: 1000, maxTokens: 10,
			              cost: {input: 1.5, output: 2, cacheRead: "x"}}, "junk", {id: "m2"}]},
			q: {models: []},
			r: {},
			bad: "nope",
		}},
	}`, env)

	if len(cfg.Agents) != 3 {
		t.Fatalf("Agents = %d, want 3: %+v", len(cfg.Agents), cfg.Agents)
	}
	ops := cfg.Agents[0]
	if ops.ID != "ops" || ops.RawID != "Ops" || !ops.Default || ops.Name != "Ops Agent" || ops.Workspace != "/home/u/ops" {
		t.Errorf("ops = %+v", ops)
	}
	if ops.Model == nil || ops.Model.Primary != "p/ops" {
		t.Errorf("ops model = %+v", ops.Model)
	}
	if !reflect.DeepEqual(ops.Subagents.AllowAgents, []string{"main", "*"}) || ops.Subagents.Model.Primary != "p/opsub" {
		t.Errorf("ops subagents = %+v", ops.Subagents)
	}
	if ops.Sandbox.Mode != "all" || ops.Raw["agentDir"] != "/x" {
		t.Errorf("ops sandbox/raw = %+v %v", ops.Sandbox, ops.Raw["agentDir"])
	}
	if a := cfg.Agents[1]; a.ID != "main" || a.RawID != "" || a.Name != "" {
		t.Errorf("agent with numeric id = %+v", a)
	}

	d := cfg.Defaults
	if d.Model == nil || d.Model.Primary != "anthropic/claude" || !reflect.DeepEqual(d.Model.Fallbacks, []string{"openai/gpt"}) {
		t.Errorf("defaults model = %+v", d.Model)
	}
	if len(d.Models) != 2 || string(d.Models["anthropic/claude"]) != `{"alias":"Opus"}` || string(d.Models["openai/gpt"]) != `{}` {
		t.Errorf("defaults models = %v", d.Models)
	}
	if d.ContextTokens == nil || *d.ContextTokens != 1000 || d.TimeoutSeconds != nil {
		t.Errorf("defaults numbers = %v %v", d.ContextTokens, d.TimeoutSeconds)
	}
	if *d.Subagents.ArchiveAfterMinutes != 30 || d.Subagents.Model.Primary != "p/sub" || *d.Subagents.MaxConcurrent != 4 {
		t.Errorf("defaults subagents = %+v", d.Subagents)
	}
	if d.Sandbox != (Sandbox{Mode: "non-main", SessionToolsVisibility: "all"}) || d.Workspace != "/home/u/ws" {
		t.Errorf("defaults sandbox/workspace = %+v %s", d.Sandbox, d.Workspace)
	}

	s := cfg.Session
	if s.Scope != "global" || s.DMScope != "per-peer" || s.Store != "~/s/{agentId}.json" {
		t.Errorf("session = %+v", s)
	}
	wantPolicy := &SendPolicy{Default: "deny", Rules: []SendRule{
		{Action: "allow", Match: SendMatch{Channel: "discord", ChatType: "group", KeyPrefix: "agent:main:"}},
		{Action: "deny"},
	}}
	if !reflect.DeepEqual(s.SendPolicy, wantPolicy) {
		t.Errorf("sendPolicy = %+v", s.SendPolicy)
	}
	if cfg.PingPongTurns() != 2 || cfg.ArchiveAfterMinutes() != 30 {
		t.Errorf("turns/archive = %d %d", cfg.PingPongTurns(), cfg.ArchiveAfterMinutes())
	}
	if cfg.Tools.AgentToAgent.Enabled || !reflect.DeepEqual(cfg.Tools.AgentToAgent.Allow, []string{"a*"}) {
		t.Errorf("tools = %+v", cfg.Tools)
	}

	if len(cfg.Models.Providers) != 3 {
		t.Fatalf("providers = %v", cfg.Models.Providers)
	}
	p := cfg.Models.Providers["p"]
	if p.BaseURL != "http://x" || p.APIKey != "k" || p.API != "openai-completions" || !reflect.DeepEqual(p.Headers, map[string]string{"A": "1"}) {
		t.Errorf("provider p = %+v", p)
	}
	wantModels := []ModelDef{
		{ID: "m1", Name: "M1", Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1000, MaxTokens: 10,
			Cost: &Cost{Input: 1.5, Output: 2}},
		{ID: "m2"},
	}
	if !reflect.DeepEqual(p.Models, wantModels) {
		t.Errorf("models = %+v", p.Models)
	}
	if p.Model("m2") == nil || p.Model("nope") != nil {
		t.Error("Provider.Model lookup")
	}
	if q := cfg.Models.Providers["q"]; q.Models == nil || len(q.Models) != 0 {
		t.Errorf("explicit empty models list lost: %#v", q.Models)
	}
	if r := cfg.Models.Providers["r"]; r.Models != nil {
		t.Errorf("absent models list should be nil: %#v", r.Models)
	}
}

func TestDecodeWrongTypesIgnored(t *testing.T) {
	env := fakeEnv("/h", "/", nil)
	for _, content := range []string{
		`{agents: "x", session: [], tools: 5, models: null}`,
		`{agents: {list: {id: "x"}, defaults: []}, session: {sendPolicy: "deny", agentToAgent: 3, store: 5}}`,
		`{agents: {defaults: {model: 5, models: [], subagents: "x", sandbox: 1}}, models: {providers: []}}`,
		`{agents: {list: [{id: "a", model: {primary: 5}, subagents: [], sandbox: "all"}]}}`,
		`{session: {sendPolicy: {rules: "x", default: 1}}}`,
		`{tools: {agentToAgent: {allow: "x"}}}`,
	} {
		cfg, err := loadString(t, content, env)
		if err != nil {
			t.Errorf("%s: %v", content, err)
			continue
		}
		// Exercise every helper; none may panic.
		_ = cfg.DefaultAgentID()
		_ = cfg.AgentIDs()
		_, _ = cfg.ModelFor("a")
		_ = cfg.SubagentModelFor("a")
		_, _ = cfg.StorePath("/s", "a", env)
		_ = cfg.PingPongTurns()
		_ = cfg.ArchiveAfterMinutes()
	}
}

func TestLoadRealTestdata(t *testing.T) {
	p := filepath.Join("..", "..", "testdata", "state-2026.1.30", "openclaw.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("testdata not available: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := fakeEnv("/home/claw", wd, nil)
	cfg, err := Load(p, env)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Exists || len(cfg.MissingVars) != 0 {
		t.Errorf("Exists=%v MissingVars=%v", cfg.Exists, cfg.MissingVars)
	}
	if got := cfg.AgentIDs(); !reflect.DeepEqual(got, []string{"main", "ops"}) {
		t.Errorf("AgentIDs = %v", got)
	}
	if cfg.DefaultAgentID() != "main" {
		t.Errorf("DefaultAgentID = %s", cfg.DefaultAgentID())
	}
	if p, m := cfg.ModelFor("main"); p != "mock" || m != "mock-1" {
		t.Errorf("ModelFor(main) = %s/%s", p, m)
	}
	if p, m := cfg.ModelFor("ops"); p != "mock" || m != "mock-2" {
		t.Errorf("ModelFor(ops) = %s/%s", p, m)
	}
	if cfg.SubagentModelFor("main") != "mock/mock-2" {
		t.Errorf("SubagentModelFor(main) = %s", cfg.SubagentModelFor("main"))
	}
	main := cfg.Agent("main")
	if main == nil || !main.Default || main.Name != "Main" || !reflect.DeepEqual(main.Subagents.AllowAgents, []string{"*"}) {
		t.Errorf("main = %+v", main)
	}
	if cfg.Session.DMScope != "per-channel-peer" || cfg.Session.Scope != "" || cfg.Session.SendPolicy != nil {
		t.Errorf("session = %+v", cfg.Session)
	}
	if cfg.Defaults.ContextTokens == nil || *cfg.Defaults.ContextTokens != 128000 {
		t.Errorf("contextTokens = %v", cfg.Defaults.ContextTokens)
	}
	mock, ok := cfg.Models.Providers["mock"]
	if !ok || mock.API != "openai-completions" || mock.BaseURL != "http://127.0.0.1:18999/v1" || mock.APIKey != "mock-key" {
		t.Fatalf("mock provider = %+v", mock)
	}
	if len(mock.Models) != 2 || mock.Model("mock-1").ContextWindow != 128000 || mock.Model("mock-2").Cost == nil {
		t.Errorf("mock models = %+v", mock.Models)
	}
	if cfg.PingPongTurns() != 5 || cfg.ArchiveAfterMinutes() != 60 || cfg.Tools.AgentToAgent.Enabled {
		t.Errorf("defaults: %d %d %v", cfg.PingPongTurns(), cfg.ArchiveAfterMinutes(), cfg.Tools.AgentToAgent.Enabled)
	}
	sp, shared := cfg.StorePath("/st", "ops", env)
	if sp != "/st/agents/ops/sessions/sessions.json" || shared {
		t.Errorf("StorePath = %s %v", sp, shared)
	}
	// Keys the tool does not model survive in Raw.
	if gw, _ := cfg.Raw["gateway"].(map[string]any); gw["port"] != 18790.0 {
		t.Errorf("gateway = %v", cfg.Raw["gateway"])
	}
}
