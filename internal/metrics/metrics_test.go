package metrics_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/metrics"
	"github.com/openclaw/sessions/internal/testutil/promtest"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func snap() *metrics.Snapshot {
	return &metrics.Snapshot{
		Sessions: []metrics.SessionCount{
			{Agent: "main", Kind: "main", Channel: "signal", N: 1},
			{Agent: "main", Kind: "group", Channel: "telegram", N: 1},
			{Agent: "main", Kind: "group", Channel: "telegram", N: 1}, // same labels: summed
			{Agent: "main", Kind: "unknown", Channel: "unknown", Archived: true, N: 1},
		},
		Active: []metrics.AgentCount{{Agent: "main", N: 2}},
		Busy:   []metrics.AgentCount{{Agent: "main", N: 1}},
		Locks: []metrics.LockStat{
			{Agent: "main", Kind: "transcript", Stale: 1, OldestAge: 30},
			{Agent: "main", Kind: "transcript", OldestAge: 90}, // the oldest wins
		},
		Tokens:      []metrics.TokenSum{{Agent: "main", Provider: "mock", Model: "m1", Input: 100, Output: 7, CacheRead: 3, CacheWrite: 1, CostMicroUSD: 1_250_000}},
		Messages:    []metrics.MessageCount{{Agent: "main", Role: "assistant", N: 4}},
		Runs:        []metrics.RunCount{{Source: "sessions", Status: "ok", N: 1}, {Source: "sessions", Status: "ok", N: 1}, {Source: "openclaw", Status: "error", N: 1}},
		Store:       []metrics.StoreFile{{Agent: "main", File: "db", Bytes: 4096}, {Agent: "main", File: "wal", Bytes: 0}},
		Schema:      []metrics.AgentCount{{Agent: "main", N: 23}},
		Doctor:      []metrics.SeverityCount{{Severity: "error", N: 2}, {Severity: "warning", N: 0}},
		TopSessions: []metrics.SessionTokens{{Agent: "main", Key: "agent:main:main", Tokens: 1234}},
	}
}

func TestExposition(t *testing.T) {
	s := snap()
	reg := metrics.Registry(metrics.NewCollector(metrics.Build{Version: "v1.2.3", Commit: "abc"}, func() *metrics.Snapshot { return s }))
	want := `
# HELP openclaw_sessions Sessions in the agents' stores by kind and channel (archived="true": archived copies).
# TYPE openclaw_sessions gauge
openclaw_sessions{agent="main",archived="false",channel="signal",kind="main"} 1
openclaw_sessions{agent="main",archived="false",channel="telegram",kind="group"} 2
openclaw_sessions{agent="main",archived="true",channel="unknown",kind="unknown"} 1
# HELP openclaw_lock_oldest_age_seconds Age of the oldest lock a live process holds, by agent and kind.
# TYPE openclaw_lock_oldest_age_seconds gauge
openclaw_lock_oldest_age_seconds{agent="main",kind="transcript"} 90
# HELP openclaw_locks_stale Locks held by a dead process or past OpenClaw's stale age.
# TYPE openclaw_locks_stale gauge
openclaw_locks_stale{agent="main",kind="transcript"} 1
# HELP openclaw_cost_usd_total Cost in USD of the assistant messages (the sums of sessions usage).
# TYPE openclaw_cost_usd_total counter
openclaw_cost_usd_total{agent="main",model="m1",provider="mock"} 1.25
# HELP openclaw_tokens_total Tokens OpenClaw recorded on assistant messages (the sums of sessions usage).
# TYPE openclaw_tokens_total counter
openclaw_tokens_total{agent="main",model="m1",provider="mock",type="cache_read"} 3
openclaw_tokens_total{agent="main",model="m1",provider="mock",type="cache_write"} 1
openclaw_tokens_total{agent="main",model="m1",provider="mock",type="input"} 100
openclaw_tokens_total{agent="main",model="m1",provider="mock",type="output"} 7
# HELP openclaw_runs Runs by source (sessions: ours, openclaw: OpenClaw's sub-agent runs) and status.
# TYPE openclaw_runs gauge
openclaw_runs{source="openclaw",status="error"} 1
openclaw_runs{source="sessions",status="ok"} 2
# HELP openclaw_store_schema_version Schema version (user_version) of an agent's 2026.8+ database.
# TYPE openclaw_store_schema_version gauge
openclaw_store_schema_version{agent="main"} 23
# HELP openclaw_doctor_findings Findings of sessions doctor still open, by severity.
# TYPE openclaw_doctor_findings gauge
openclaw_doctor_findings{severity="error"} 2
openclaw_doctor_findings{severity="warning"} 0
# HELP openclaw_session_tokens Tokens of the largest sessions (--per-session-top).
# TYPE openclaw_session_tokens gauge
openclaw_session_tokens{agent="main",key="agent:main:main"} 1234
# HELP sessions_build_info The build of sessions that answers the scrape.
# TYPE sessions_build_info gauge
sessions_build_info{commit="abc",version="v1.2.3"} 1
`
	names := []string{"openclaw_sessions", "openclaw_lock_oldest_age_seconds", "openclaw_locks_stale", "openclaw_cost_usd_total",
		"openclaw_tokens_total", "openclaw_runs", "openclaw_store_schema_version", "openclaw_doctor_findings", "openclaw_session_tokens", "sessions_build_info"}
	if err := testutil.GatherAndCompare(promtest.Gatherer(reg), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	// every family passes the linter promtool check metrics runs
	probs, err := testutil.GatherAndLint(promtest.Gatherer(reg))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// The errors of every scrape add up: a counter over the process's life.
func TestScrapeErrorsAccumulate(t *testing.T) {
	n := 0
	reg := metrics.Registry(metrics.NewCollector(metrics.Build{Version: "dev"}, func() *metrics.Snapshot {
		n++
		return &metrics.Snapshot{Errors: 2}
	}))
	for want := 2; want <= 6; want += 2 {
		var b bytes.Buffer
		if err := metrics.Write(&b, reg, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "sessions_scrape_errors_total "+string(rune('0'+want))+"\n") {
			t.Fatalf("scrape %d: want errors %d in\n%s", n, want, b.String())
		}
	}
}

// A nil snapshot (nothing could be read) is one error and still a scrape.
func TestNilSnapshot(t *testing.T) {
	reg := metrics.Registry(metrics.NewCollector(metrics.Build{Version: "dev"}, func() *metrics.Snapshot { return nil }))
	var b bytes.Buffer
	if err := metrics.Write(&b, reg, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"sessions_scrape_errors_total 1.0\n", "sessions_build_info{commit=\"\",version=\"dev\"} 1.0\n", "# EOF\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
