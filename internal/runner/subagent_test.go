package runner

import (
	"encoding/json"
	"os"
	"testing"
)

// The goldens below were produced by OpenClaw 2026.1.30's own code
// (dist/agents/subagent-announce.js buildSubagentSystemPrompt and the
// module's formatDurationShort, formatTokenCount, formatUsd, run under
// Node 24); testdata/subagent-prompts-1.30.json holds its prompts.

func TestSubagentSystemPromptMatches130(t *testing.T) {
	data, err := os.ReadFile("testdata/subagent-prompts-1.30.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ Prompts []string }
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	cases := []SubagentContext{
		{RequesterKey: "main", RequesterChannel: "signal", ChildKey: "agent:main:subagent:abc", Label: "build-stats", Task: "  Collect\n\tbuild\u00a0stats\u2003 for the last 3 CI runs  "},
		{ChildKey: "agent:ops:subagent:x", Task: "   "},
		{RequesterKey: "agent:main:telegram:group:-100", ChildKey: "agent:ops:subagent:y", Task: "a\ufeffb\u0085c"},
	}
	if len(cases) != len(g.Prompts) {
		t.Fatalf("%d cases, %d goldens", len(cases), len(g.Prompts))
	}
	for i, c := range cases {
		if got := SubagentSystemPrompt(c); got != g.Prompts[i] {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, g.Prompts[i])
		}
	}
}

func TestStatsFormatting130(t *testing.T) {
	durs := []struct {
		ms   int64
		want string
	}{{0, ""}, {-5, ""}, {1, "0s"}, {499, "0s"}, {500, "1s"}, {1499, "1s"}, {1500, "2s"}, {59499, "59s"}, {59500, "1m0s"}, {61000, "1m1s"}, {3599499, "59m59s"}, {3599500, "1h0m"}, {3600000, "1h0m"}, {7322000, "2h2m"}, {86400000, "24h0m"}}
	for _, c := range durs {
		if got := formatDurationShort(c.ms); got != c.want {
			t.Errorf("formatDurationShort(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
	toks := []struct {
		v    float64
		want string
	}{{0, "0"}, {1, "1"}, {999.5, "1000"}, {999, "999"}, {1000, "1.0k"}, {1049, "1.0k"}, {1050, "1.1k"}, {1250, "1.3k"}, {1350, "1.4k"}, {1450, "1.4k"}, {12345, "12.3k"}, {999949, "999.9k"}, {999950, "1000.0k"}, {1000000, "1.0m"}, {1250000, "1.3m"}, {1050000, "1.1m"}, {123456789, "123.5m"}}
	for _, c := range toks {
		if got := formatTokenCount(c.v); got != c.want {
			t.Errorf("formatTokenCount(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	usd := []struct {
		v    float64
		want string
	}{{0, "$0.0000"}, {0.00005, "$0.0001"}, {0.000125, "$0.0001"}, {0.0045, "$0.0045"}, {0.00995, "$0.0100"}, {0.01, "$0.01"}, {0.015, "$0.01"}, {0.125, "$0.13"}, {0.0125, "$0.01"}, {1.005, "$1.00"}, {2.675, "$2.67"}, {12.345, "$12.35"}}
	for _, c := range usd {
		if got := formatUSD(c.v); got != c.want {
			t.Errorf("formatUSD(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestFormatStats(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	in := StatsInput{SessionKey: "agent:main:subagent:k", SessionID: "sid", Transcript: "/s/sid.jsonl", StartedAt: 1000, EndedAt: 63500,
		Input: f(1250), Output: f(50), Total: f(1250), HasCost: true, CostInput: 3, CostOutput: 15}
	want := "Stats: runtime 1m3s • tokens 1.3k (in 1.3k / out 50) • est $0.0045 • sessionKey agent:main:subagent:k • sessionId sid • transcript /s/sid.jsonl"
	if got := FormatStats(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// no tokens, no times, no cost, no session id: 1.30's fallbacks
	if got, want := FormatStats(StatsInput{SessionKey: "k"}), "Stats: runtime n/a • tokens n/a • sessionKey k"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	// total from in+out when totalTokens is missing; n/a for a missing side
	if got, want := FormatStats(StatsInput{SessionKey: "k", Input: f(10), Output: f(5)}), "Stats: runtime n/a • tokens 15 (in 10 / out 5) • sessionKey k"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if got, want := FormatStats(StatsInput{SessionKey: "k", Total: f(7), HasCost: true, CostInput: 1}), "Stats: runtime n/a • tokens 7 (in n/a / out n/a) • sessionKey k"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestAnnounceText(t *testing.T) {
	if got, want := StatusLabel("error", ""), "failed: unknown error"; got != want {
		t.Errorf("%q", got)
	}
	if got, want := StatusLabel("weird", ""), "finished with unknown status"; got != want {
		t.Errorf("%q", got)
	}
	got := FormatSubagentAnnounce("timed out", "  ", "", "Stats: x")
	if want := "Status: timed out\nResult: (no output)\nStats: x"; got != want {
		t.Errorf("got %q", got)
	}
	ctx := SubagentAnnounceContext(SubagentContext{RequesterKey: "main", RequesterChannel: "signal", ChildKey: "agent:main:subagent:c", Task: "t"}, "completed successfully", "r")
	want := "Sub-agent announce step:\nRequester session: main.\nRequester channel: signal.\nSub-agent session: agent:main:subagent:c.\nTask: t\nStatus: completed successfully\nSub-agent reply: r\n" +
		"If you want to remain silent, reply exactly \"ANNOUNCE_SKIP\".\nAny other reply is posted to the requester channel as notes below the sub-agent's result.\nAfter this reply, the sub-agent run is over."
	if ctx != want {
		t.Errorf("got %q", ctx)
	}
}
