package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestResolveUserPath(t *testing.T) {
	home, cwd := sandbox(t)
	env := fakeEnv(home, cwd, nil)
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"   ", ""},
		{"~", home},
		{"~/", home},
		{"~/a/b", filepath.Join(home, "a", "b")},
		{"  ~/a  ", filepath.Join(home, "a")},
		{`~\a`, home + `\a`}, // a backslash is a file-name character on Unix
		{"~user/a", filepath.Join(cwd, "~user", "a")},
		{"~~", filepath.Join(cwd, "~~")},
		{"a/~/b", filepath.Join(cwd, "a", "~", "b")},
		{"rel", filepath.Join(cwd, "rel")},
		{"rel/", filepath.Join(cwd, "rel")},
		{"./x/../y", filepath.Join(cwd, "y")},
		{"/abs/../x//y/", "/x/y"},
		{"\ufeff/abs\u00a0", "/abs"}, // JS trim removes U+FEFF and NBSP
	}
	for _, tc := range tests {
		if got := ResolveUserPath(tc.in, env); got != tc.want {
			t.Errorf("ResolveUserPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Without a home directory "~" is not expanded.
	if got := ResolveUserPath("~/a", fakeEnv("", cwd, nil)); got != filepath.Join(cwd, "~", "a") {
		t.Errorf("no home: got %q", got)
	}
}

func TestJSTrim(t *testing.T) {
	tests := map[string]string{
		" \t\n\v\f\r a \u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff": "a",
		"\u0085a\u0085": "\u0085a\u0085", // NEL is not JS white space
		"\u200ba":       "\u200ba",       // nor is ZERO WIDTH SPACE
	}
	for in, want := range tests {
		if got := jsTrim(in); got != want {
			t.Errorf("jsTrim(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveStateDir(t *testing.T) {
	type tc struct {
		name     string
		flag     string
		profile  string
		vars     map[string]string
		mk       []string // dirs (or "file:" + name for files) to create under home
		want     string   // relative to home unless absolute
		explicit bool
		source   string
	}
	tests := []tc{
		{name: "flag wins over everything", flag: "/flag", profile: "p",
			vars: map[string]string{"OPENCLAW_STATE_DIR": "/env", "CLAWDBOT_STATE_DIR": "/legacy"},
			mk:   []string{".openclaw"}, want: "/flag", explicit: true, source: "--state-dir"},
		{name: "flag with tilde", flag: "~/st", want: "st", explicit: true, source: "--state-dir"},
		{name: "flag relative to cwd", flag: "rel/dir", want: "CWD/rel/dir", explicit: true, source: "--state-dir"},
		{name: "blank flag ignored", flag: "  ", vars: map[string]string{"OPENCLAW_STATE_DIR": "/env"},
			want: "/env", explicit: true, source: "OPENCLAW_STATE_DIR"},
		{name: "OPENCLAW_STATE_DIR", vars: map[string]string{"OPENCLAW_STATE_DIR": "/env", "CLAWDBOT_STATE_DIR": "/legacy"},
			mk: []string{".openclaw"}, want: "/env", explicit: true, source: "OPENCLAW_STATE_DIR"},
		{name: "OPENCLAW_STATE_DIR trimmed and tilde", vars: map[string]string{"OPENCLAW_STATE_DIR": "  ~/x  "},
			want: "x", explicit: true, source: "OPENCLAW_STATE_DIR"},
		{name: "OPENCLAW_STATE_DIR beats profile", profile: "work", vars: map[string]string{"OPENCLAW_STATE_DIR": "/env"},
			want: "/env", explicit: true, source: "OPENCLAW_STATE_DIR"},
		{name: "blank OPENCLAW_STATE_DIR falls to CLAWDBOT_STATE_DIR",
			vars: map[string]string{"OPENCLAW_STATE_DIR": " \t", "CLAWDBOT_STATE_DIR": "/legacy"},
			want: "/legacy", explicit: true, source: "CLAWDBOT_STATE_DIR"},
		{name: "CLAWDBOT_STATE_DIR", vars: map[string]string{"CLAWDBOT_STATE_DIR": "/legacy"}, mk: []string{".openclaw"},
			want: "/legacy", explicit: true, source: "CLAWDBOT_STATE_DIR"},
		{name: "profile", profile: "work", mk: []string{".openclaw"},
			want: ".openclaw-work", explicit: true, source: "--profile"},
		{name: "profile trimmed", profile: " work ", want: ".openclaw-work", explicit: true, source: "--profile"},
		{name: "profile default", profile: "default", want: ".openclaw", explicit: true, source: "--profile"},
		{name: "profile DEFAULT any case", profile: "DeFaUlT", want: ".openclaw", explicit: true, source: "--profile"},
		{name: "profile beats CLAWDBOT_STATE_DIR (it fills OPENCLAW_STATE_DIR)", profile: "p",
			vars: map[string]string{"CLAWDBOT_STATE_DIR": "/legacy"}, want: ".openclaw-p", explicit: true, source: "--profile"},
		{name: "OPENCLAW_PROFILE alone changes nothing", vars: map[string]string{"OPENCLAW_PROFILE": "work"},
			mk: []string{".openclaw"}, want: ".openclaw", source: "default"},
		{name: "existing ~/.openclaw", mk: []string{".openclaw", ".clawdbot"}, want: ".openclaw", source: "default"},
		{name: "~/.openclaw as a file still counts", mk: []string{"file:.openclaw", ".clawdbot"}, want: ".openclaw", source: "default"},
		{name: "legacy clawdbot", mk: []string{".clawdbot", ".moltbot", ".moldbot"}, want: ".clawdbot", source: "legacy ~/.clawdbot"},
		{name: "legacy moltbot", mk: []string{".moltbot", ".moldbot"}, want: ".moltbot", source: "legacy ~/.moltbot"},
		{name: "legacy moldbot", mk: []string{".moldbot"}, want: ".moldbot", source: "legacy ~/.moldbot"},
		{name: "nothing exists", want: ".openclaw", source: "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, cwd := sandbox(t)
			for _, m := range tt.mk {
				if name, ok := strings.CutPrefix(m, "file:"); ok {
					writeFile(t, filepath.Join(home, name), "x")
				} else {
					mustMkdir(t, filepath.Join(home, m))
				}
			}
			want := tt.want
			switch {
			case filepath.IsAbs(want):
			case len(want) > 4 && want[:4] == "CWD/":
				want = filepath.Join(cwd, want[4:])
			default:
				want = filepath.Join(home, want)
			}
			got := ResolveStateDir(tt.flag, tt.profile, fakeEnv(home, cwd, tt.vars))
			if got.Path != want || got.Explicit != tt.explicit || got.Source != tt.source {
				t.Errorf("got %+v, want {Path:%s Explicit:%v Source:%s}", got, want, tt.explicit, tt.source)
			}
		})
	}
}

func TestValidateProfile(t *testing.T) {
	for _, ok := range []string{"", "  ", "work", "dev_1", "A-b"} {
		if err := ValidateProfile(ok); err != nil {
			t.Errorf("ValidateProfile(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"../x", "a b", "a/b", "é"} {
		err := ValidateProfile(bad)
		if err == nil {
			t.Errorf("ValidateProfile(%q) = nil", bad)
		}
	}
}

func TestResolveConfigPath(t *testing.T) {
	type tc struct {
		name       string
		flag       string
		profile    string
		sdFlag     string // --state-dir passed to ResolveStateDir
		vars       map[string]string
		files      []string // relative to home (or absolute-ish "ROOT/...")
		want       string   // relative to home unless it starts with ROOT/
		wantExists bool
	}
	tests := []tc{
		{name: "--config only that path, missing", flag: "ROOT/c/my.json", files: []string{".openclaw/openclaw.json"},
			want: "ROOT/c/my.json"},
		{name: "--config tilde", flag: "~/cfg.json5", files: []string{"cfg.json5"}, want: "cfg.json5", wantExists: true},
		{name: "--config beats env", flag: "ROOT/a.json", vars: map[string]string{"OPENCLAW_CONFIG_PATH": "ROOT/b.json"},
			files: []string{"ROOT/a.json", "ROOT/b.json"}, want: "ROOT/a.json", wantExists: true},
		{name: "OPENCLAW_CONFIG_PATH", vars: map[string]string{"OPENCLAW_CONFIG_PATH": "ROOT/b.json"},
			files: []string{"ROOT/b.json", ".openclaw/openclaw.json"}, want: "ROOT/b.json", wantExists: true},
		{name: "OPENCLAW_CONFIG_PATH missing is still the only path", vars: map[string]string{"OPENCLAW_CONFIG_PATH": "ROOT/none.json"},
			files: []string{".openclaw/openclaw.json"}, want: "ROOT/none.json"},
		{name: "OPENCLAW_CONFIG_PATH beats CLAWDBOT_CONFIG_PATH",
			vars:  map[string]string{"OPENCLAW_CONFIG_PATH": "ROOT/o.json", "CLAWDBOT_CONFIG_PATH": "ROOT/c.json"},
			files: []string{"ROOT/o.json", "ROOT/c.json"}, want: "ROOT/o.json", wantExists: true},
		{name: "CLAWDBOT_CONFIG_PATH only that path", vars: map[string]string{"CLAWDBOT_CONFIG_PATH": "ROOT/c.json"},
			files: []string{".openclaw/openclaw.json"}, want: "ROOT/c.json"},
		{name: "profile: its own openclaw.json even if missing", profile: "work",
			files: []string{".openclaw/openclaw.json"}, want: ".openclaw-work/openclaw.json"},
		{name: "profile default", profile: "default", files: []string{".openclaw/openclaw.json"},
			want: ".openclaw/openclaw.json", wantExists: true},
		{name: "profile with OPENCLAW_STATE_DIR uses that dir", profile: "work",
			vars: map[string]string{"OPENCLAW_STATE_DIR": "ROOT/st"}, files: []string{"ROOT/st/openclaw.json"},
			want: "ROOT/st/openclaw.json", wantExists: true},
		{name: "profile with --state-dir uses that dir", profile: "work", sdFlag: "ROOT/sd",
			want: "ROOT/sd/openclaw.json"},
		{name: "profile does not override OPENCLAW_CONFIG_PATH", profile: "work",
			vars: map[string]string{"OPENCLAW_CONFIG_PATH": "ROOT/o.json"}, want: "ROOT/o.json"},
		{name: "profile beats CLAWDBOT_CONFIG_PATH", profile: "work",
			vars: map[string]string{"CLAWDBOT_CONFIG_PATH": "ROOT/c.json"}, files: []string{"ROOT/c.json"},
			want: ".openclaw-work/openclaw.json"},
		{name: "explicit dir: legacy name inside it", vars: map[string]string{"OPENCLAW_STATE_DIR": "ROOT/st"},
			files: []string{"ROOT/st/clawdbot.json", ".openclaw/openclaw.json"}, want: "ROOT/st/clawdbot.json", wantExists: true},
		{name: "explicit dir: openclaw.json before legacy names", sdFlag: "ROOT/st",
			files: []string{"ROOT/st/moldbot.json", "ROOT/st/openclaw.json"}, want: "ROOT/st/openclaw.json", wantExists: true},
		{name: "quirk: explicit dir without config uses ~/.openclaw/openclaw.json",
			vars:  map[string]string{"OPENCLAW_STATE_DIR": "ROOT/st"},
			files: []string{"ROOT/st/sessions.txt", ".openclaw/openclaw.json"}, want: ".openclaw/openclaw.json", wantExists: true},
		{name: "explicit dir, nothing anywhere: <dir>/openclaw.json", vars: map[string]string{"CLAWDBOT_STATE_DIR": "ROOT/st"},
			want: "ROOT/st/openclaw.json"},
		{name: "default: ~/.openclaw names in order", files: []string{".openclaw/moltbot.json", ".openclaw/clawdbot.json"},
			want: ".openclaw/clawdbot.json", wantExists: true},
		{name: "default: ~/.openclaw before ~/.clawdbot", files: []string{".openclaw/moldbot.json", ".clawdbot/openclaw.json"},
			want: ".openclaw/moldbot.json", wantExists: true},
		{name: "legacy state dir with legacy config", files: []string{".clawdbot/clawdbot.json"},
			want: ".clawdbot/clawdbot.json", wantExists: true},
		{name: "legacy dirs in order", files: []string{".moldbot/openclaw.json", ".moltbot/moldbot.json"},
			want: ".moltbot/moldbot.json", wantExists: true},
		{name: "nothing: state dir openclaw.json", want: ".openclaw/openclaw.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, cwd := sandbox(t)
			root := filepath.Dir(home)
			fix := func(p string) string {
				if rest, ok := strings.CutPrefix(p, "ROOT/"); ok {
					return filepath.Join(root, rest)
				}
				return filepath.Join(home, p)
			}
			vars := map[string]string{}
			for k, v := range tt.vars {
				vars[k] = v
				if rest, ok := strings.CutPrefix(v, "ROOT/"); ok {
					vars[k] = filepath.Join(root, rest)
				}
			}
			for _, f := range tt.files {
				writeFile(t, fix(f), "{}")
			}
			flag := tt.flag
			if rest, ok := strings.CutPrefix(flag, "ROOT/"); ok {
				flag = filepath.Join(root, rest)
			}
			sdFlag := tt.sdFlag
			if rest, ok := strings.CutPrefix(sdFlag, "ROOT/"); ok {
				sdFlag = filepath.Join(root, rest)
			}
			env := fakeEnv(home, cwd, vars)
			sd := ResolveStateDir(sdFlag, tt.profile, env)
			got, exists := ResolveConfigPath(flag, tt.profile, sd, env)
			if want := fix(tt.want); got != want || exists != tt.wantExists {
				t.Errorf("got (%s, %v), want (%s, %v)", got, exists, want, tt.wantExists)
			}
		})
	}
}

func TestConfigCandidates(t *testing.T) {
	home := "/h"
	env := fakeEnv(home, "/", nil)
	got := ConfigCandidates(StateDir{Path: "/s", Explicit: true}, env)
	if len(got) != 20 {
		t.Fatalf("want 20 candidates, got %d", len(got))
	}
	wantHead := []string{"/s/openclaw.json", "/s/clawdbot.json", "/s/moltbot.json", "/s/moldbot.json", "/h/.openclaw/openclaw.json"}
	if !reflect.DeepEqual(got[:5], wantHead) {
		t.Errorf("head = %v", got[:5])
	}
	if got[19] != "/h/.moldbot/moldbot.json" {
		t.Errorf("last = %s", got[19])
	}
	if n := len(ConfigCandidates(StateDir{Path: "/s"}, env)); n != 16 {
		t.Errorf("non-explicit: want 16 candidates, got %d", n)
	}
}

func TestOSEnv(t *testing.T) {
	env := OSEnv()
	if env.Getenv == nil {
		t.Fatal("Getenv is nil")
	}
	if env.Home == "" {
		t.Skip("no home directory in this environment")
	}
	if !filepath.IsAbs(env.abs("x")) {
		t.Errorf("abs(x) not absolute")
	}
	// A zero Env must not panic.
	var zero Env
	_ = zero.get("HOME")
	_ = ResolveStateDir("", "", Env{Home: t.TempDir()})
}
