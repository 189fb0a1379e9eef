package hostset

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/state"
)

// contexts writes a contexts file with the named contexts (the first one
// current when current is set) into a fresh user config dir.
func contexts(t *testing.T, current bool, names ...string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	path, err := gateway.ContextsPath()
	if err != nil {
		t.Fatal(err)
	}
	c := &gateway.Contexts{}
	for i, n := range names {
		if err := c.Add(gateway.Context{Name: n, Gateway: "ws://127.0.0.1:" + string(rune('1'+i)) + "9", TokenEnv: "T"}, false); err != nil {
			t.Fatal(err)
		}
	}
	if current && len(names) > 0 {
		if err := c.Use(names[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// token is an environment with the contexts' token ($T).
var token = env(map[string]string{"T": "x"})

func TestResolveLocal(t *testing.T) {
	contexts(t, false, "a")
	tg, err := Resolve(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	if !tg.Local() || tg.Fleet() || len(tg.Hosts()) != 0 {
		t.Fatalf("no flags, no current context: want this host's state dir, got %d hosts, fleet %v", len(tg.Hosts()), tg.Fleet())
	}
	h, err := tg.OneHost("x works on one host")
	if h != nil || err != nil {
		t.Fatalf("OneHost of the state dir: %v, %v", h, err)
	}
}

func TestResolveOneGateway(t *testing.T) {
	for name, in := range map[string]Inputs{
		"flag":            {Gateway: gatewaysel.Selector{URL: "ws://127.0.0.1:18789"}},
		"environment":     {Getenv: env(map[string]string{"OPENCLAW_GATEWAY_URL": "ws://127.0.0.1:18789", "T": "x"})},
		"named context":   {Gateway: gatewaysel.Selector{Contexts: []string{"a"}}},
		"current context": {},
	} {
		t.Run(name, func(t *testing.T) {
			contexts(t, name == "current context", "a", "b")
			if in.Getenv == nil {
				in.Getenv = token
			}
			tg, err := Resolve(in)
			if err != nil {
				t.Fatal(err)
			}
			if tg.Local() || tg.Fleet() || len(tg.Hosts()) != 1 {
				t.Fatalf("want one host, got %d (fleet %v)", len(tg.Hosts()), tg.Fleet())
			}
			h, err := tg.OneHost("x works on one host")
			if err != nil || h == nil || h.URL() != tg.Hosts()[0].URL() {
				t.Fatalf("OneHost: %v, %v", h, err)
			}
			w, err := tg.Writes(nil, "x works on one host", time.Second, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			// its host (gatewayhost.Gateway) writes through itself; no live
			// gateway of this host is looked for
			if w.Host == nil || w.Host.URL() != h.URL() || w.Options.Gateways == nil || w.Options.Gateways.Local != nil {
				t.Fatalf("a named gateway takes every write: %+v", w)
			}
			// and a run's writes are routed through it, for any agent
			for _, agent := range []string{"main", "other"} {
				r, err := w.Route(agent)
				if err != nil || !r.ThroughGateway() || r.Gateway.URL != h.URL() {
					t.Fatalf("Route(%s) through a named gateway: %+v, %v", agent, r, err)
				}
			}
		})
	}
}

// The one-host rule is one place: --context all (even with one context)
// and several contexts refuse every one-host operation with a usage error
// that says what was selected.
func TestOneHostRefusals(t *testing.T) {
	for _, c := range []struct {
		ctxs []string
		says string
	}{
		{[]string{"all"}, "not --context all"},
		{[]string{"a", "b"}, "not 2 contexts"},
	} {
		n := 1
		if c.ctxs[0] != "all" {
			n = 2
		}
		names := []string{"a", "b"}[:n]
		contexts(t, false, names...)
		tg, err := Resolve(Inputs{Gateway: gatewaysel.Selector{Contexts: c.ctxs}, Getenv: token})
		if err != nil {
			t.Fatal(err)
		}
		if !tg.Fleet() {
			t.Fatalf("%v: want a fleet", c.ctxs)
		}
		_, err = tg.Writes(nil, "send, spawn and wait work on one host", 0, time.Now)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.CodeUsage {
			t.Fatalf("%v: want a usage error, got %v", c.ctxs, err)
		}
		want := "send, spawn and wait work on one host: give one --context (or --gateway URL), " + c.says
		if err.Error() != want {
			t.Errorf("%v: %q, want %q", c.ctxs, err.Error(), want)
		}
		if _, err := tg.TurnGateway(nil); err == nil || !strings.Contains(err.Error(), "the gateway engine runs a turn in one gateway") {
			t.Errorf("%v: TurnGateway: %v", c.ctxs, err)
		}
	}
}

func TestResolveRefusesContradictions(t *testing.T) {
	contexts(t, false, "a")
	if _, err := Resolve(Inputs{Gateway: gatewaysel.Selector{URL: "ws://127.0.0.1:1", Contexts: []string{"a"}}}); err == nil {
		t.Fatal("--gateway and --context together: want an error")
	}
	_, err := Resolve(Inputs{Gateway: gatewaysel.Selector{Contexts: []string{"nope"}}})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeNotFound {
		t.Fatalf("an unknown context: want exit 4, got %v", err)
	}
}

// This host's live gateway is looked for once per Set and state dir,
// however many writes, probes and capability checks ask.
func TestLiveGatewayLookedForOnce(t *testing.T) {
	contexts(t, false)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: dir, Cwd: dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var looks atomic.Int32
	tg, err := Resolve(Inputs{Debug: func(msg string, _ ...any) {
		if strings.HasPrefix(msg, "no live gateway holds the state dir") {
			looks.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := tg.LiveGateway(s); err == nil {
			t.Fatal("no gateway runs here: want an error")
		}
		if _, err := tg.ProbeLive(s); err == nil {
			t.Fatal("ProbeLive: want an error")
		}
		w, err := tg.Writes(s, "x", 0, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.Options.Gateways.Local(); err == nil {
			t.Fatal("Local: want an error")
		}
	}
	if n := looks.Load(); n != 1 {
		t.Fatalf("the live gateway was looked for %d times, want once", n)
	}
}

// A gateway-engine run records the selector its runner resolves its
// gateway with: a gateway of the current context by that context's name,
// a token file's path made absolute; other engines record none. The
// runner gets --lock-timeout as a flag, no gateway flag.
func TestRunnerGateway(t *testing.T) {
	contexts(t, true, "a")
	tg, err := Resolve(Inputs{Getenv: token})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := tg.OneHost("x")
	got := tg.runnerGateway(engine.SpecGateway, h)
	if got == nil || !slices.Equal(got.Contexts, []string{"a"}) || got.URL != "" {
		t.Errorf("current context: recorded %+v, want context a", got)
	}
	if got := tg.runnerGateway("provider", h); got != nil {
		t.Errorf("a provider-engine run records no gateway: %+v", got)
	}
	if got := runnerFlags(2 * time.Second); !slices.Equal(got, []string{"--lock-timeout", "2s"}) {
		t.Errorf("runner flags %q", got)
	}
	if got := runnerFlags(0); len(got) != 0 {
		t.Errorf("no lock timeout: runner flags %q", got)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tok"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tg, err = Resolve(Inputs{Gateway: gatewaysel.Selector{URL: "wss://127.0.0.1:1", TokenFile: "tok", Fingerprint: strings.Repeat("ab", 32)}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ = tg.OneHost("x")
	got = tg.runnerGateway(engine.SpecGateway, h)
	want := gatewaysel.Selector{URL: "wss://127.0.0.1:1", TokenFile: filepath.Join(dir, "tok"), Fingerprint: strings.Repeat("ab", 32)}
	if got == nil || got.URL != want.URL || got.TokenFile != want.TokenFile || got.Fingerprint != want.Fingerprint || got.Insecure || len(got.Contexts) != 0 {
		t.Errorf("flag URL: recorded %+v, want %+v", got, want)
	}
	// the recorded selector resolves to the same gateway in the runner
	again, err := Resolve(Inputs{Gateway: *got})
	if err != nil {
		t.Fatal(err)
	}
	if hs := again.Hosts(); len(hs) != 1 || hs[0].URL() != h.URL() || hs[0].Endpoint().Token != "secret" || hs[0].Endpoint().Fingerprint != h.Endpoint().Fingerprint {
		t.Errorf("the runner resolves %v, want %v with the token file's token", hs, h.Endpoint())
	}
}

// A run's writes on this host's state dir are routed by the agent's era
// (its JSON files here); with neither a state dir nor a named gateway
// there is nowhere to write, and Route says so.
func TestWritesRouteOnThisHost(t *testing.T) {
	contexts(t, false)
	tg, err := Resolve(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := tg.Writes(nil, "x works on one host", time.Second, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Route("main"); err == nil || !strings.Contains(err.Error(), "nowhere to write") {
		t.Fatalf("Route with no state dir and no gateway: %v", err)
	}
	s, err := state.Open(state.Options{StateDir: filepath.Join("..", "..", "testdata", "state-2026.1.30"), Env: config.Env{Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	if w, err = tg.Writes(s, "x works on one host", time.Second, time.Now); err != nil {
		t.Fatal(err)
	}
	r, err := w.Route("main")
	if err != nil || r.ThroughGateway() {
		t.Fatalf("Route(main) of a JSON-era state dir: %+v, %v (want its files)", r, err)
	}
}
