package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryRunRecord(t *testing.T) {
	cases := []struct {
		name, json           string
		status, outcome, err string
		delivery             string
	}{
		{"1.30 ended ok", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"agent:main:main","createdAt":1,"endedAt":2,"outcome":{"status":"ok"}}`, "ok", "ok", "", ""},
		{"1.30 running", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"agent:main:main","createdAt":1,"startedAt":1}`, "running", "", "", ""},
		{"1.30 error", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","endedAt":2,"outcome":{"status":"error","error":"boom"}}`, "error", "error", "boom", ""},
		{"1.30 timeout", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","endedAt":2,"outcome":{"status":"timeout"}}`, "timeout", "timeout", "", ""},
		{"1.30 ended without outcome", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","endedAt":2}`, "error", "error", "ended without an outcome", ""},
		{"9.6 queued", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","execution":{"status":"queued"},"delivery":{"status":"pending"}}`, "accepted", "", "", "pending"},
		{"9.6 running", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","execution":{"status":"running","startedAt":5}}`, "running", "", "", ""},
		{"9.6 terminal ok", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","execution":{"status":"terminal","endedAt":9,"outcome":{"status":"ok"}},"delivery":{"status":"delivered"}}`, "ok", "ok", "", "delivered"},
		{"9.6 terminal aborted", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","execution":{"status":"terminal","endedAt":9,"outcome":{"status":"aborted"}},"delivery":{"status":"failed","lastError":"no route"}}`, "error", "error", "aborted", "failed"},
		{"9.6 interrupted", `{"runId":"r","childSessionKey":"agent:ops:subagent:x","requesterSessionKey":"k","endedReason":"subagent-error","execution":{"status":"interrupted"}}`, "error", "error", "interrupted: subagent-error", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "subagents"), 0o755); err != nil {
				t.Fatal(err)
			}
			doc := `{"version":2,"runs":{"r":` + c.json + `}}`
			if err := os.WriteFile(RegistryPath(dir), []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			var warns []string
			recs := OpenClawRuns(dir, 0, func(m string) { warns = append(warns, m) })
			if len(warns) > 0 || len(recs) != 1 {
				t.Fatalf("records %v, warnings %v", recs, warns)
			}
			r := recs[0]
			if r.Status != c.status || r.Spawn.Outcome != c.outcome || r.Error != c.err {
				t.Errorf("status %q outcome %q error %q, want %q %q %q", r.Status, r.Spawn.Outcome, r.Error, c.status, c.outcome, c.err)
			}
			got := ""
			if r.Delivery != nil {
				got = r.Delivery.Status
			}
			if got != c.delivery {
				t.Errorf("delivery %q, want %q", got, c.delivery)
			}
			if r.Source != SourceOpenClaw || r.Kind != KindSpawn || r.Target.AgentID != "ops" || r.Steps == nil {
				t.Errorf("record %+v", r)
			}
		})
	}
}

func TestOpenClawRunsMissingAndBadEntries(t *testing.T) {
	dir := t.TempDir()
	var warns []string
	warn := func(m string) { warns = append(warns, m) }
	if recs := OpenClawRuns(dir, 0, warn); len(recs) != 0 || len(warns) != 0 {
		t.Fatalf("no registry: %v %v", recs, warns)
	}
	if err := os.MkdirAll(filepath.Join(dir, "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"version":1,"runs":{"a":{"runId":"a","childSessionKey":"agent:main:subagent:a","requesterSessionKey":"agent:main:main","createdAt":1},
		"b":{"childSessionKey":"agent:main:subagent:b"},"c":"nope","d":{"runId":"d","childSessionKey":"agent:main:subagent:d","createdAt":3}}}`
	if err := os.WriteFile(RegistryPath(dir), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	recs := OpenClawRuns(dir, 0, warn)
	if len(recs) != 2 || recs[0].RunID != "d" || recs[1].RunID != "a" {
		t.Fatalf("want d, a newest first: %+v", recs)
	}
	if len(warns) != 2 || !strings.Contains(strings.Join(warns, "\n"), "run b in") || !strings.Contains(strings.Join(warns, "\n"), "run c in") {
		t.Errorf("warnings %q", warns)
	}
	if recs[0].Requester != nil {
		t.Errorf("a run without a requester has none: %+v", recs[0].Requester)
	}
}
