//go:build interop

// A real Prometheus scrapes `sessions metrics --listen` on copies of the
// 2026.1.30 and 2026.9.6 fixture states: the series it stores equal what
// `sessions list --json` and `sessions usage --json` print, and a planted
// stuck session (a turn lock a live process has held for two minutes)
// makes the shipped OpenClawSessionStuck alert fire, with the shipped
// rules and the shipped thresholds but the stuck one (params.yml's
// openclaw:stuck_after_seconds, set to 60 s here). Prometheus is built
// once from its Go module at the pinned version (internal/testutil/
// promtest); the test skips with one line when it cannot be built.
// Needs no OpenClaw peer.

package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/promtest"
)

func TestInteropMetricsPrometheus(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	prom := promtest.Tool(t, "prometheus")
	bin := testutil.SessionsBinary(t)
	root := testutil.Root(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"), "XDG_STATE_HOME="+filepath.Join(tmp, "xdg-state"),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "xdg-config"), "OPENCLAW_GATEWAY_URL=", "OPENCLAW_SESSION_KEY=")

	states := map[string]string{}
	targets := map[string]string{}
	for job, fx := range map[string]string{"s130": "state-2026.1.30", "s96": "state-2026.9.6"} {
		dir := filepath.Join(tmp, job)
		if err := testutil.CopyTree(filepath.Join(root, "testdata", fx), dir); err != nil {
			t.Fatal(err)
		}
		states[job] = dir
		targets[job] = startMetrics(t, bin, env, dir)
	}

	// the shipped rules; the shipped thresholds with a stuck session after 60 s
	params, err := os.ReadFile(filepath.Join(root, "monitoring", "params.yml"))
	if err != nil {
		t.Fatal(err)
	}
	testParams := strings.Replace(string(params), "record: openclaw:stuck_after_seconds\n        expr: vector(1800)", "record: openclaw:stuck_after_seconds\n        expr: vector(60)", 1)
	if testParams == string(params) {
		t.Fatal("params.yml: openclaw:stuck_after_seconds is no longer vector(1800); update the test")
	}
	paramsPath := filepath.Join(tmp, "params.yml")
	writeFile(t, paramsPath, testParams)
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q, %q]
scrape_configs:
  - job_name: s130
    static_configs: [{targets: [%q]}]
  - job_name: s96
    static_configs: [{targets: [%q]}]
`, filepath.Join(root, "monitoring", "alerts.yml"), paramsPath, targets["s130"], targets["s96"])
	cfgPath := filepath.Join(tmp, "prometheus.yml")
	writeFile(t, cfgPath, cfg)
	api := startPrometheus(t, prom, cfgPath, filepath.Join(tmp, "tsdb"))

	// both targets up
	waitFor(t, 60*time.Second, "both targets up", func() (bool, string) {
		r := query(t, api, `up == 1`)
		return len(r) == 2, fmt.Sprint(r)
	})

	for job, dir := range states {
		// sessions: list --all-agents --json, counted by agent, kind, channel
		var list struct {
			Sessions []struct{ AgentID, Kind, Channel string } `json:"sessions"`
		}
		runJSON(t, bin, env, dir, &list, "list", "--all-agents", "--limit", "all", "--json")
		want := map[string]float64{}
		for _, s := range list.Sessions {
			want[s.AgentID+"/"+s.Kind+"/"+s.Channel]++
		}
		got := map[string]float64{}
		for _, s := range query(t, api, fmt.Sprintf(`openclaw_sessions{job=%q,archived="false"}`, job)) {
			got[s.Metric["agent"]+"/"+s.Metric["kind"]+"/"+s.Metric["channel"]] = s.Value
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Errorf("%s: openclaw_sessions %v, list --json %v", job, got, want)
		}

		// usage: usage --all-agents --by agent,provider,model --json
		var usage struct {
			Rows []struct {
				Agent, Provider, Model                                                 string
				Messages, InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
				CostMicroUsd                                                           int64
			} `json:"rows"`
		}
		runJSON(t, bin, env, dir, &usage, "usage", "--all-agents", "--by", "agent,provider,model", "--json")
		wantTok := map[string]float64{}
		wantMsgs := map[string]float64{}
		for _, r := range usage.Rows {
			k := r.Agent + "/" + r.Provider + "/" + r.Model
			wantTok[k+"/input"] = float64(r.InputTokens)
			wantTok[k+"/output"] = float64(r.OutputTokens)
			wantTok[k+"/cache_read"] = float64(r.CacheReadTokens)
			wantTok[k+"/cache_write"] = float64(r.CacheWriteTokens)
			wantMsgs[r.Agent] += float64(r.Messages)
		}
		gotTok := map[string]float64{}
		for _, s := range query(t, api, fmt.Sprintf(`openclaw_tokens_total{job=%q}`, job)) {
			gotTok[s.Metric["agent"]+"/"+s.Metric["provider"]+"/"+s.Metric["model"]+"/"+s.Metric["type"]] = s.Value
		}
		if fmt.Sprint(gotTok) != fmt.Sprint(wantTok) || len(wantTok) == 0 {
			t.Errorf("%s: openclaw_tokens_total %v, usage --json %v", job, gotTok, wantTok)
		}
		gotMsgs := map[string]float64{}
		for _, s := range query(t, api, fmt.Sprintf(`openclaw_messages_total{job=%q,role="assistant"}`, job)) {
			gotMsgs[s.Metric["agent"]] = s.Value
		}
		if fmt.Sprint(gotMsgs) != fmt.Sprint(wantMsgs) {
			t.Errorf("%s: openclaw_messages_total %v, usage --json %v", job, gotMsgs, wantMsgs)
		}
		if r := query(t, api, fmt.Sprintf(`sessions_scrape_errors_total{job=%q}`, job)); len(r) != 1 || r[0].Value != 0 {
			t.Errorf("%s: scrape errors %v", job, r)
		}
	}
	if r := query(t, api, `openclaw_store_schema_version{job="s96",agent="main"}`); len(r) != 1 || r[0].Value != 23 {
		t.Errorf("s96: schema version %v", r)
	}

	// nothing is stuck yet
	if a := firing(t, api, "OpenClawSessionStuck"); len(a) != 0 {
		t.Fatalf("OpenClawSessionStuck before any lock: %v", a)
	}
	// a turn lock this (live) process has held for two minutes
	lock := filepath.Join(states["s130"], "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl.lock")
	writeFile(t, lock, fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", os.Getpid(),
		time.Now().Add(-2*time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")))
	waitFor(t, 60*time.Second, "OpenClawSessionStuck firing for s130/main", func() (bool, string) {
		a := firing(t, api, "OpenClawSessionStuck")
		return len(a) == 1 && a[0]["job"] == "s130" && a[0]["agent"] == "main", fmt.Sprint(a)
	})
	// released: the alert ends
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "OpenClawSessionStuck resolved", func() (bool, string) {
		a := firing(t, api, "OpenClawSessionStuck")
		return len(a) == 0, fmt.Sprint(a)
	})
}

var metricsURL = regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/metrics`)

// startMetrics runs `sessions metrics --listen 127.0.0.1:0` on state until
// the test ends and returns the address it serves.
func startMetrics(t *testing.T, bin string, env []string, state string) string {
	t.Helper()
	cmd := exec.Command(bin, "--state-dir", state, "--log-level", "info", "metrics", "--listen", "127.0.0.1:0")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		b := make([]byte, 0, 4096)
		buf := make([]byte, 512)
		for {
			n, err := stderr.Read(buf)
			b = append(b, buf[:n]...)
			if m := metricsURL.FindSubmatch(b); m != nil {
				addr <- string(m[1])
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
			if err != nil {
				addr <- "error: " + string(b)
				return
			}
		}
	}()
	select {
	case a := <-addr:
		if strings.HasPrefix(a, "error: ") {
			t.Fatalf("sessions metrics --listen: %s", a)
		}
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("sessions metrics --listen did not say where it serves in 30 s")
		return ""
	}
}

// startPrometheus runs the Prometheus server on cfg until the test ends
// and returns its API's base URL.
func startPrometheus(t *testing.T, prom, cfg, tsdb string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logPath := filepath.Join(filepath.Dir(cfg), "prometheus.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+tsdb, "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("prometheus log:\n%.6000s", b)
		}
	})
	base := "http://" + addr
	waitFor(t, 60*time.Second, "prometheus ready", func() (bool, string) {
		res, err := http.Get(base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		res.Body.Close()
		return res.StatusCode == 200, res.Status
	})
	return base
}

type sample struct {
	Metric map[string]string
	Value  float64
}

// query runs an instant PromQL query through the HTTP API.
func query(t *testing.T, api, q string) []sample {
	t.Helper()
	var doc struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	apiGet(t, api+"/api/v1/query?query="+url.QueryEscape(q), &doc)
	var out []sample
	for _, r := range doc.Data.Result {
		v, _ := strconv.ParseFloat(fmt.Sprint(r.Value[1]), 64)
		out = append(out, sample{r.Metric, v})
	}
	return out
}

// firing is the labels of the firing alerts named name.
func firing(t *testing.T, api, name string) []map[string]string {
	t.Helper()
	var doc struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		} `json:"data"`
	}
	apiGet(t, api+"/api/v1/alerts", &doc)
	var out []map[string]string
	for _, a := range doc.Data.Alerts {
		if a.Labels["alertname"] == name && a.State == "firing" {
			out = append(out, a.Labels)
		}
	}
	return out
}

func apiGet(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", u, res.Status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// runJSON runs sessions on state and decodes its JSON output.
func runJSON(t *testing.T, bin string, env []string, state string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", state}, args...)...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %v: %v", args, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("sessions %v: %v", args, err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls ok every 250 ms until it holds or d has passed.
func waitFor(t *testing.T, d time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	end := time.Now().Add(d)
	last := ""
	for time.Now().Before(end) {
		var done bool
		if done, last = ok(); done {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last: %s)", what, d, last)
}
