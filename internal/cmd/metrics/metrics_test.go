package metrics

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

func testFactory(t testing.TB, fixture string) *cmdutil.Factory {
	t.Helper()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": tmp, "XDG_STATE_HOME": filepath.Join(tmp, "xdg-state"),
		"XDG_CONFIG_HOME": filepath.Join(tmp, "xdg-config"), "XDG_CACHE_HOME": filepath.Join(tmp, "xdg-cache")}
	ios, _, _, _ := iostreams.Test()
	getenv := func(k string) string { return env[k] }
	return &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: getenv, Home: tmp}, Flags: &cmdutil.GlobalFlags{StateDir: dir},
		Now: time.Now, Getenv: getenv, Log: log.New(io.Discard)}
}

// testToken is a bearer token of the 32 bytes a token file must hold.
const testToken = "tok-metrics-0123456789abcdef0123"

func TestFlags(t *testing.T) {
	f := testFactory(t, "state-2026.1.30")
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--listen", "127.0.0.1:9464", "--token-file", "/t", "--active", "10m", "--per-session-top", "3", "--doctor-every", "1m"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Listen != "127.0.0.1:9464" || got.TokenFile != "/t" || got.Active != 10*time.Minute || got.PerSessionTop != 3 || got.DoctorEvery != time.Minute {
		t.Errorf("options: %+v", got)
	}
}

// serve runs the command with args until the test ends and returns its
// address.
func serveCmd(t *testing.T, f *cmdutil.Factory, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	cmd := NewCmd(f, func(o *Options) error {
		o.Context, o.Ready = ctx, func(addr string) { ready <- addr }
		return run(o)
	})
	cmd.SetArgs(args)
	go func() { done <- cmd.Execute() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the server ended with %v", err)
		}
	})
	select {
	case addr := <-ready:
		return addr
	case err := <-done:
		t.Fatalf("the server ended: %v", err)
		return ""
	}
}

func get(t *testing.T, url, token, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// --listen with a token: 401 without it, the text format with it, and
// OpenMetrics when the scraper asks for it.
func TestListenToken(t *testing.T) {
	f := testFactory(t, "state-2026.1.30")
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := serveCmd(t, f, "--listen", "127.0.0.1:0", "--token-file", tok)
	url := "http://" + addr + Path
	if res, _ := get(t, url, "", ""); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %s", res.Status)
	}
	if res, _ := get(t, url, "wrong", ""); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %s", res.Status)
	}
	res, body := get(t, url, testToken, "")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(body, "openclaw_messages_total{agent=\"main\",role=\"assistant\"} 23\n") {
		t.Fatalf("scrape: %s %s\n%s", res.Status, res.Header.Get("Content-Type"), body)
	}
	res, body = get(t, url, testToken, "application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(body, "# EOF\n") {
		t.Errorf("OpenMetrics: %s\n%s", res.Header.Get("Content-Type"), body)
	}
	// the second scrape is served from what the first read
	if !strings.Contains(body, "sessions_scrape_errors_total 0") {
		t.Errorf("errors: %s", body)
	}
}

// Without a token on loopback every local scraper is answered.
func TestListenNoToken(t *testing.T) {
	f := testFactory(t, "state-2026.9.6")
	addr := serveCmd(t, f, "--listen", "127.0.0.1:0")
	res, body := get(t, "http://"+addr+Path, "", "")
	if res.StatusCode != 200 || !strings.Contains(body, "openclaw_store_schema_version{agent=\"main\"} 23\n") {
		t.Fatalf("scrape: %s\n%s", res.Status, body)
	}
	if res, _ := get(t, "http://"+addr+"/other", "", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("/other: %s", res.Status)
	}
	// scrapes leave no file open behind them (the SQLite handles of each
	// scrape are closed)
	fds := func() int { ents, _ := os.ReadDir("/proc/self/fd"); return len(ents) }
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return
	}
	get(t, "http://"+addr+Path, "", "")
	before := fds()
	for range 20 {
		get(t, "http://"+addr+Path, "", "")
	}
	if after := fds(); after > before+2 {
		t.Errorf("open files: %d before 20 scrapes, %d after", before, after)
	}
}

// A listen address already taken is an error, not a hang.
func TestListenBusy(t *testing.T) {
	f := testFactory(t, "state-2026.1.30")
	addr := serveCmd(t, f, "--listen", "127.0.0.1:0")
	cmd := NewCmd(f, nil)
	cmd.SetArgs([]string{"--listen", addr})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "listen on "+addr) {
		t.Errorf("second listener: %v", err)
	}
}

// BenchmarkMetricsScrape is a warm scrape of the 1.30 fixture as a
// --listen server answers it (the stores and usage cached).
func BenchmarkMetricsScrape(b *testing.B) {
	benchScrape(b, "state-2026.1.30")
}

func benchScrape(b *testing.B, fixture string) {
	f := testFactory(b, fixture)
	m, err := newMetrics(f, &Options{Active: time.Hour, Listen: "x", DoctorEvery: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Write(io.Discard, false); err != nil { // cold
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := m.Write(io.Discard, false); err != nil {
			b.Fatal(err)
		}
	}
}

// A page elsewhere that rebinds its own name to 127.0.0.1 (DNS
// rebinding) reaches a loopback listener with its own name in Host, and
// a page's fetch carries its Origin: both are refused 403 with none of
// the metrics (session keys with --per-session-top), with and without a
// token; a loopback name is served.
func TestListenHostOrigin(t *testing.T) {
	f := testFactory(t, "state-2026.1.30")
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--listen", "127.0.0.1:0", "--per-session-top", "2"},
		{"--listen", "127.0.0.1:0", "--per-session-top", "2", "--token-file", tok},
	} {
		addr := serveCmd(t, f, args...)
		url := "http://" + addr + Path
		for _, c := range []struct{ host, origin string }{
			{"evil.example", ""},
			{"evil.example:" + strings.Split(addr, ":")[1], ""},
			{"", "http://evil.example"},
		} {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden || strings.Contains(string(b), "openclaw_") {
				t.Errorf("%v: Host %q Origin %q: %s, want 403 without the metrics\n%s", args, c.host, c.origin, res.Status, b)
			}
		}
		req, _ := http.NewRequest("GET", url, nil)
		req.Host = "localhost:9464"
		req.Header.Set("Authorization", "Bearer "+testToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(b), "openclaw_session_tokens{") {
			t.Errorf("%v: Host localhost: %s\n%s", args, res.Status, b)
		}
	}
}
