package gateway

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gatewaysel"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if v, ok := m[p]; ok {
			return []byte(v), nil
		}
		return nil, &os.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
}

func cfg(t *testing.T, s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolve(t *testing.T) {
	store := &Contexts{Current: "home", Contexts: []Context{
		{Name: "home", Gateway: "ws://127.0.0.1:18789", TokenEnv: "HOME_TOK"},
		{Name: "vps", Gateway: "wss://vps.example.com", TokenFile: "/s/vps.token", Fingerprint: strings.Repeat("a", 64)},
		{Name: "bad", Gateway: "ws://10.1.1.1:1"},
	}}
	fsys := files(map[string]string{"/s/vps.token": "vps-secret\n", "/s/flag.token": " flag-secret ", "/s/empty": "\n"})
	type want struct {
		urls    []string
		token   string
		pw      string
		auth    string
		code    int
		message string
	}
	for _, tc := range []struct {
		name string
		in   Inputs
		want want
	}{
		{"nothing: local mode", Inputs{}, want{}},
		{"flag + env token", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1"}, Getenv: envOf(map[string]string{EnvToken: "env-tok"})},
			want{urls: []string{"ws://127.0.0.1:1"}, token: "env-tok", auth: "env OPENCLAW_GATEWAY_TOKEN"}},
		{"flag + password env", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1"}, Getenv: envOf(map[string]string{EnvPassword: "pw"})},
			want{urls: []string{"ws://127.0.0.1:1"}, pw: "pw", auth: "env OPENCLAW_GATEWAY_PASSWORD"}},
		{"token file beats env", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1", TokenFile: "/s/flag.token"}, ReadFile: fsys, Getenv: envOf(map[string]string{EnvToken: "env-tok"})},
			want{urls: []string{"ws://127.0.0.1:1"}, token: "flag-secret", auth: "file /s/flag.token"}},
		{"empty token file", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1", TokenFile: "/s/empty"}, ReadFile: fsys}, want{code: 2, message: "is empty"}},
		{"missing token file", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1", TokenFile: "/s/none"}, ReadFile: fsys}, want{code: 2, message: "cannot read"}},
		{"env URL", Inputs{Getenv: envOf(map[string]string{EnvURL: "wss://gw.example.com", EnvToken: "env-url-secret"})},
			want{urls: []string{"wss://gw.example.com"}, token: "env-url-secret"}},
		{"flag beats env URL", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:2"}, Getenv: envOf(map[string]string{EnvURL: "wss://gw.example.com"})},
			want{urls: []string{"ws://127.0.0.1:2"}}},
		{"plain ws remote refused", Inputs{Selector: gatewaysel.Selector{URL: "ws://gw.example.com"}}, want{code: 2, message: "--insecure-gateway"}},
		{"plain ws remote allowed", Inputs{Selector: gatewaysel.Selector{URL: "ws://gw.example.com", Insecure: true}}, want{urls: []string{"ws://gw.example.com"}}},
		{"fingerprint needs wss", Inputs{Selector: gatewaysel.Selector{URL: "ws://127.0.0.1:1", Fingerprint: strings.Repeat("a", 64)}}, want{code: 2, message: "wss://"}},
		{"token file without a gateway", Inputs{Selector: gatewaysel.Selector{TokenFile: "/s/flag.token"}}, want{code: 2, message: "need --gateway"}},
		{"current context", Inputs{Store: store, Getenv: envOf(map[string]string{"HOME_TOK": "home-secret"})},
			want{urls: []string{"ws://127.0.0.1:18789"}, token: "home-secret", auth: "env HOME_TOK"}},
		{"env URL beats current context", Inputs{Store: store, Getenv: envOf(map[string]string{EnvURL: "ws://127.0.0.1:9"})},
			want{urls: []string{"ws://127.0.0.1:9"}}},
		{"named context", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"vps"}}, Store: store, ReadFile: fsys},
			want{urls: []string{"wss://vps.example.com"}, token: "vps-secret", auth: "file /s/vps.token"}},
		{"repeated and comma", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"vps,home", "vps"}}, Store: store, ReadFile: fsys, Getenv: envOf(map[string]string{"HOME_TOK": "h"})},
			want{urls: []string{"wss://vps.example.com", "ws://127.0.0.1:18789"}, token: "vps-secret"}},
		{"all includes the bad one", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"all"}}, Store: store, ReadFile: fsys, Getenv: envOf(map[string]string{"HOME_TOK": "h"})}, want{code: 2, message: `context "bad"`}},
		{"unknown context", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"nope"}}, Store: store}, want{code: 4, message: `no context "nope"`}},
		{"context env unset", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"home"}}, Store: store}, want{code: 2, message: "$HOME_TOK is not set"}},
		{"context and gateway", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"home"}, URL: "ws://127.0.0.1:1"}, Store: store}, want{code: 2, message: "mutually exclusive"}},
		{"context and token file", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"home"}, TokenFile: "/s/flag.token"}, Store: store}, want{code: 2, message: "a context keeps its own"}},
		{"all without contexts", Inputs{Selector: gatewaysel.Selector{Contexts: []string{"all"}}}, want{code: 2, message: "no contexts defined"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eps, err := Resolve(tc.in)
			if tc.want.code != 0 {
				if apperr.CodeOf(err) != tc.want.code || !strings.Contains(err.Error(), tc.want.message) {
					t.Fatalf("got %d %v, want %d %q", apperr.CodeOf(err), err, tc.want.code, tc.want.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, e := range eps {
				urls = append(urls, e.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tc.want.urls, " ") {
				t.Fatalf("urls %v, want %v", urls, tc.want.urls)
			}
			if len(eps) == 0 {
				return
			}
			e := eps[0]
			if e.Token != tc.want.token || e.Password != tc.want.pw || (tc.want.auth != "" && e.AuthSource != tc.want.auth) {
				t.Fatalf("endpoint %+v", e)
			}
			// Secrets never in the JSON or String form.
			js, _ := json.Marshal(e)
			for _, secret := range []string{e.Token, e.Password} {
				if secret != "" && (strings.Contains(string(js), secret) || strings.Contains(e.String(), secret)) {
					t.Fatalf("secret in %s / %s", js, e)
				}
			}
		})
	}
}

func TestLocalEndpoint(t *testing.T) {
	fsys := files(map[string]string{"/run/gw.token": "file-secret"})
	for _, tc := range []struct {
		name, config string
		env          map[string]string
		url, token   string
		pw, fp       string
		errMsg       string
	}{
		{"defaults", `{}`, nil, "ws://127.0.0.1:18789", "", "", "", ""},
		{"config port and token", `{"gateway":{"port":19001,"auth":{"mode":"token","token":"cfg-tok"}}}`, nil, "ws://127.0.0.1:19001", "cfg-tok", "", "", ""},
		{"env port and token first", `{"gateway":{"port":19001,"auth":{"token":"cfg-tok"}}}`, map[string]string{EnvPort: "19555", EnvToken: "env-tok"}, "ws://127.0.0.1:19555", "env-tok", "", "", ""},
		{"password", `{"gateway":{"auth":{"mode":"password","password":"cfg-pw"}}}`, nil, "ws://127.0.0.1:18789", "", "cfg-pw", "", ""},
		{"tls", `{"gateway":{"tls":{"enabled":true}}}`, nil, "wss://127.0.0.1:18789", "", "", "", ""},
		{"remote mode", `{"gateway":{"mode":"remote","remote":{"url":"wss://gw.example.com","token":"r-tok","tlsFingerprint":"` + strings.Repeat("AB", 32) + `"},"auth":{"token":"local"}}}`, nil, "wss://gw.example.com", "r-tok", "", strings.Repeat("ab", 32), ""},
		{"remote without url", `{"gateway":{"mode":"remote"}}`, nil, "", "", "", "", "gateway.remote.url is not set"},
		{"remote token fallback locally", `{"gateway":{"remote":{"token":"r-tok"}}}`, nil, "ws://127.0.0.1:18789", "r-tok", "", "", ""},
		{"env secret ref", `{"gateway":{"auth":{"token":{"source":"env","id":"MY_TOK"}}}}`, map[string]string{"MY_TOK": "ref-secret"}, "ws://127.0.0.1:18789", "ref-secret", "", "", ""},
		{"file secret ref", `{"gateway":{"auth":{"token":{"source":"file","path":"/run/gw.token"}}}}`, nil, "ws://127.0.0.1:18789", "file-secret", "", "", ""},
		{"exec secret ref", `{"gateway":{"auth":{"token":{"source":"exec","command":"x"}}}}`, nil, "", "", "", "", "not supported"},
		{"unset ${VAR} ignored", `{"gateway":{"auth":{"token":"${GW_TOKEN}"}}}`, nil, "ws://127.0.0.1:18789", "", "", "", ""},
		{"bad env port", `{}`, map[string]string{EnvPort: "x"}, "", "", "", "", "OPENCLAW_GATEWAY_PORT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := LocalEndpoint(Inputs{Config: cfg(t, tc.config), Getenv: envOf(tc.env), ReadFile: fsys})
			if tc.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("got %v, want %q", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.URL != tc.url || e.Token != tc.token || e.Password != tc.pw || e.Fingerprint != tc.fp {
				t.Fatalf("got %+v (token %q pw %q)", e, e.Token, e.Password)
			}
		})
	}
}

func TestContextsStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions", ContextsFile)
	c, err := LoadContexts(path)
	if err != nil || len(c.Contexts) != 0 {
		t.Fatalf("missing file: %v %v", c, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Add(Context{Name: "b", Gateway: "ws://127.0.0.1:1", TokenEnv: "B_TOK"}, false))
	must(c.Add(Context{Name: "a", Gateway: "wss://a.example.com", Fingerprint: "SHA256:" + strings.Repeat("CD", 32)}, false))
	if err := c.Add(Context{Name: "a", Gateway: "wss://x.example.com"}, false); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Fatalf("duplicate: %v", err)
	}
	must(c.Add(Context{Name: "a", Gateway: "wss://a2.example.com"}, true))
	for _, bad := range []Context{
		{Name: "all", Gateway: "ws://127.0.0.1:1"},
		{Name: "-x", Gateway: "ws://127.0.0.1:1"},
		{Name: "x y", Gateway: "ws://127.0.0.1:1"},
		{Name: "x", Gateway: "ws://10.0.0.1:1"},
		{Name: "x", Gateway: "ws://127.0.0.1:1", TokenEnv: "A", TokenFile: "/f"},
		{Name: "x", Gateway: "ws://127.0.0.1:1", TokenEnv: "1BAD"},
		{Name: "x", Gateway: "wss://h", Fingerprint: "zz"},
	} {
		if err := c.Add(bad, false); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
	must(c.Use("b"))
	if err := c.Use("zzz"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("use unknown: %v", err)
	}
	must(c.Save(path))
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	back, err := LoadContexts(path)
	must(err)
	if back.Current != "b" || len(back.Contexts) != 2 || back.Contexts[0].Name != "a" || back.Contexts[0].Gateway != "wss://a2.example.com" {
		t.Fatalf("reloaded %+v", back)
	}
	must(back.Remove("b"))
	if back.Current != "" {
		t.Fatal("removing the current context kept it current")
	}
	if err := back.Remove("b"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("remove twice: %v", err)
	}
	must(os.WriteFile(path, []byte("{not json"), 0o600))
	if _, err := LoadContexts(path); apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("corrupt: %v", err)
	}
}

func TestIdentityFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", IdentityFile)
	a, err := LoadOrCreateIdentity(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	b, err := LoadOrCreateIdentity(path, time.Now())
	if err != nil || b.DeviceID != a.DeviceID || len(a.DeviceID) != 64 {
		t.Fatalf("reload: %v %v", b, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateIdentity(path, time.Now()); apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("readable by others: %v", err)
	}
	// The v2 payload has the documented shape.
	p := a.Payload(SignInput{ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: []string{"operator.read", "operator.write"}, SignedAt: time.UnixMilli(1795446199565), Token: "tok", Nonce: "n"})
	if p != "v2|"+a.DeviceID+"|cli|cli|operator|operator.read,operator.write|1795446199565|tok|n" {
		t.Fatalf("payload %s", p)
	}
}

func TestTokenKey(t *testing.T) {
	if TokenKey("wss://GW.example.com:443/path?x=1", "operator") != "operator wss://gw.example.com:443" {
		t.Fatal(TokenKey("wss://GW.example.com:443/path?x=1", "operator"))
	}
}

func TestDetectLocal(t *testing.T) {
	state := t.TempDir()
	tmp := t.TempDir()
	cfgPath := filepath.Join(state, "openclaw.json")
	in := DetectInput{StateDir: state, ConfigPath: cfgPath, TmpDir: tmp}
	if DetectLocal(in) != nil {
		t.Fatal("nothing running, yet detected")
	}
	paths := GatewayLockPaths(in)
	if len(paths) != 2 || !strings.HasSuffix(paths[0], filepath.Join("tmp", "openclaw-"+strconv.Itoa(os.Getuid()), "gateway.state.lock")) {
		t.Fatalf("paths %v", paths)
	}
	write := func(p string, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A 9.x lock of a dead pid (and 9.x's padding after the JSON).
	write(paths[0], `{"pid": 999999999, "port": 1234}`+"\n\t\t  \t")
	if DetectLocal(in) != nil {
		t.Fatal("dead pid detected")
	}
	// A live pid (ours) whose recorded start time is not its own: pid reused.
	st, ok := procStartTime(os.Getpid())
	if ok {
		write(paths[0], `{"pid": `+strconv.Itoa(os.Getpid())+`, "startTime": `+strconv.FormatInt(st+7, 10)+`}`)
		if DetectLocal(in) != nil {
			t.Fatal("reused pid detected")
		}
	}
	write(paths[0], `{"pid": `+strconv.Itoa(os.Getpid())+`, "port": 1234, "startTime": `+strconv.FormatInt(st, 10)+`}`+"\n\t \t")
	got := DetectLocal(in)
	if got == nil || got.Via != "lock" || got.PID != os.Getpid() || got.Port != 1234 {
		t.Fatalf("9.x lock: %+v", got)
	}
	// The same lock of `openclaw agent --local` (role agent-embedded) or of
	// doctor's maintenance: no gateway.
	for _, role := range []string{"agent-embedded", "sqlite-maintenance"} {
		write(paths[0], `{"pid": `+strconv.Itoa(os.Getpid())+`, "role": "`+role+`", "startTime": `+strconv.FormatInt(st, 10)+`}`)
		if got := DetectLocal(in); got != nil {
			t.Fatalf("a %s lock detected as a gateway: %+v", role, got)
		}
	}
	// The 1.30 lock in the tmp dir, named after the config path.
	must := os.Remove(paths[0])
	if must != nil {
		t.Fatal(must)
	}
	write(paths[1], `{"pid":`+strconv.Itoa(os.Getpid())+`,"createdAt":"x","configPath":"`+cfgPath+`"}`)
	if got := DetectLocal(in); got == nil || got.LockPath != paths[1] {
		t.Fatalf("1.30 lock: %+v", got)
	}
	_ = os.Remove(paths[1])
	// No lock, but the port answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	in.Port = port
	if got := DetectLocal(in); got == nil || got.Via != "port" || got.Port != port {
		t.Fatalf("port: %+v", got)
	}
	ln.Close()
	if got := DetectLocal(in); got != nil {
		t.Fatalf("closed port: %+v", got)
	}
	_ = errors.New
}
