package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// Sources of a listed run.
const (
	SourceSessions = "sessions" // started by this tool (send, spawn)
	SourceOpenClaw = "openclaw" // OpenClaw's own sub-agent registry
)

// EngineOpenClaw is the Engine of a run read from OpenClaw's registry.
const EngineOpenClaw = "openclaw"

// RegistryPath is OpenClaw's persisted sub-agent registry of the JSON era
// (format §6.6): <state>/subagents/runs.json.
func RegistryPath(stateDir string) string {
	return filepath.Join(stateDir, "subagents", "runs.json")
}

// registryRun is one run of OpenClaw's sub-agent registry: the fields of
// the 2026.1.30 runs.json record (§6.6) and of the 2026.9.6 subagent_runs
// payload, which nests the lifecycle under execution and delivery.
type registryRun struct {
	RunID               string `json:"runId"`
	ChildSessionKey     string `json:"childSessionKey"`
	RequesterSessionKey string `json:"requesterSessionKey"`
	RequesterDisplayKey string `json:"requesterDisplayKey"`
	RequesterOrigin     *struct {
		Channel string `json:"channel"`
	} `json:"requesterOrigin"`
	Task              string   `json:"task"`
	Label             string   `json:"label"`
	Model             string   `json:"model"`
	Cleanup           string   `json:"cleanup"`
	RunTimeoutSeconds *float64 `json:"runTimeoutSeconds"`
	CreatedAt         float64  `json:"createdAt"`
	StartedAt         float64  `json:"startedAt"`
	EndedAt           float64  `json:"endedAt"`
	ArchiveAtMs       float64  `json:"archiveAtMs"`
	EndedReason       string   `json:"endedReason"`
	Outcome           *outcome `json:"outcome"`
	// 2026.9.6 (subagent_runs.payload_json).
	Execution *struct {
		Status    string   `json:"status"` // queued | running | interrupted | terminal
		StartedAt float64  `json:"startedAt"`
		EndedAt   float64  `json:"endedAt"`
		Outcome   *outcome `json:"outcome"`
	} `json:"execution"`
	Delivery *struct {
		Status    string `json:"status"` // not_required | pending | in_progress | delivered | failed | suspended | discarded
		LastError string `json:"lastError"`
	} `json:"delivery"`
	ParentCompletion *registryRun `json:"parentCompletion"`
}

type outcome struct {
	Status string `json:"status"` // ok | error | timeout | …
	Error  string `json:"error"`
}

// OpenClawRuns returns the sub-agent runs of OpenClaw's own registry, as
// records (Source "openclaw", Kind "spawn"), newest first: the JSON-era
// <state>/subagents/runs.json and the 2026.8+ state database's
// subagent_runs table, both read without a lock and never written. A run
// in both is listed once (the database's). A registry that cannot be read
// is reported through warn and left out; a missing one is simply empty.
func OpenClawRuns(stateDir string, busyTimeout time.Duration, warn func(string)) []*Record {
	opts := sqlitestore.Options{BusyTimeout: busyTimeout}
	seen := map[string]bool{}
	var out []*Record
	rows, err := sqlitestore.SubagentRuns(sqlitestore.StateDBPath(stateDir), opts)
	if err != nil {
		warn(fmt.Sprintf("OpenClaw sub-agent runs left out: %v", err))
	}
	for _, row := range rows {
		var rr registryRun
		if row.PayloadJSON != "" {
			if err := json.Unmarshal([]byte(row.PayloadJSON), &rr); err != nil {
				warn(fmt.Sprintf("OpenClaw sub-agent run %s in %s left out: unreadable payload: %v", row.RunID, sqlitestore.StateDBPath(stateDir), err))
				continue
			}
		}
		if rr.ParentCompletion != nil {
			rr = *rr.ParentCompletion
		}
		// The columns are what OpenClaw's own reader trusts over the payload.
		rr.RunID, rr.ChildSessionKey, rr.RequesterSessionKey = row.RunID, row.ChildSessionKey, row.RequesterSessionKey
		if rr.CreatedAt == 0 {
			rr.CreatedAt = float64(row.CreatedAt)
		}
		if rec := rr.record(); rec != nil && !seen[rec.RunID] {
			seen[rec.RunID] = true
			out = append(out, rec)
		}
	}
	for _, rec := range registryFile(RegistryPath(stateDir), warn) {
		if !seen[rec.RunID] {
			seen[rec.RunID] = true
			out = append(out, rec)
		}
	}
	sortNewestFirst(out)
	return out
}

// registryFile reads <state>/subagents/runs.json (version 1 or 2; OpenClaw
// treats any other version as empty, and so does this).
func registryFile(path string, warn func(string)) []*Record {
	data, err := fsutil.ReadFileRegular(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("OpenClaw sub-agent registry %s left out: %v", path, err))
		}
		return nil
	}
	var doc struct {
		Version int                        `json:"version"`
		Runs    map[string]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		warn(fmt.Sprintf("OpenClaw sub-agent registry %s left out: not valid JSON: %v", path, err))
		return nil
	}
	if doc.Version != 1 && doc.Version != 2 {
		return nil
	}
	var out []*Record
	for id, raw := range doc.Runs {
		var rr registryRun
		if err := json.Unmarshal(raw, &rr); err != nil || rr.RunID == "" {
			warn(fmt.Sprintf("OpenClaw sub-agent run %s in %s left out: not a run record", id, path))
			continue
		}
		if rec := rr.record(); rec != nil {
			out = append(out, rec)
		}
	}
	return out
}

// record maps a registry run onto a run record: status from the lifecycle
// (queued → accepted; running; ended → its outcome: ok, error, timeout),
// the child as target, the requester, the task as message and spawn part.
func (rr *registryRun) record() *Record {
	if rr.RunID == "" || rr.ChildSessionKey == "" {
		return nil
	}
	r := &Record{
		RunID:     rr.RunID,
		Kind:      KindSpawn,
		Source:    SourceOpenClaw,
		CreatedAt: int64(rr.CreatedAt),
		StartedAt: int64(rr.StartedAt),
		EndedAt:   int64(rr.EndedAt),
		Target:    Session{Key: rr.ChildSessionKey, AgentID: agentOf(rr.ChildSessionKey)},
		Message:   rr.Task,
		Engine:    EngineOpenClaw,
		Steps:     []Step{},
		Spawn: &Spawn{
			Task: rr.Task, Label: rr.Label, Model: rr.Model, Cleanup: rr.Cleanup,
			ArchiveAtMs: int64(rr.ArchiveAtMs),
		},
	}
	if rr.RunTimeoutSeconds != nil {
		r.Spawn.RunTimeoutSeconds = int(*rr.RunTimeoutSeconds)
	}
	if rr.RequesterSessionKey != "" {
		req := &Session{Key: rr.RequesterSessionKey, AgentID: agentOf(rr.RequesterSessionKey)}
		if rr.RequesterDisplayKey != rr.RequesterSessionKey {
			req.DisplayKey = rr.RequesterDisplayKey
		}
		if rr.RequesterOrigin != nil {
			req.Channel = rr.RequesterOrigin.Channel
		}
		r.Requester = req
	}
	oc, lifecycle := rr.Outcome, ""
	if ex := rr.Execution; ex != nil {
		lifecycle = ex.Status
		if ex.StartedAt != 0 {
			r.StartedAt = int64(ex.StartedAt)
		}
		if ex.EndedAt != 0 {
			r.EndedAt = int64(ex.EndedAt)
		}
		if ex.Outcome != nil {
			oc = ex.Outcome
		}
	}
	switch {
	case lifecycle == "queued":
		r.Status = StatusAccepted
	case lifecycle == "interrupted":
		r.Status, r.Error = StatusError, "interrupted"
		r.Spawn.Outcome = StatusError
		if rr.EndedReason != "" {
			r.Error = "interrupted: " + rr.EndedReason
		}
	case lifecycle == "running" || lifecycle == "" && r.EndedAt == 0 && oc == nil:
		r.Status = StatusRunning
	default: // ended
		r.ReplyDone = true
		st := ""
		if oc != nil {
			st = oc.Status
		}
		switch st {
		case StatusOK, StatusTimeout:
			r.Status = st
		case "":
			r.Status, r.Error = StatusError, "ended without an outcome"
		default:
			r.Status = StatusError
			r.Error = st
			if oc.Error != "" {
				r.Error = oc.Error
			}
		}
		r.Spawn.Outcome = r.Status
		if oc != nil && oc.Error != "" {
			r.Spawn.OutcomeError, r.Error = oc.Error, oc.Error
		}
	}
	// 2026.9.6 records the announce's delivery; 2026.1.30 only that its
	// cleanup was handled, which is not a delivery status.
	if d := rr.Delivery; d != nil && d.Status != "" {
		r.Delivery = &Delivery{Status: d.Status, Mode: "announce", Error: d.LastError}
	}
	return r
}

// agentOf is the agent id of an agent:<id>:… key ("" for another form).
func agentOf(key string) string {
	if agent, _, ok := keys.Parse(key); ok {
		return agent
	}
	return ""
}
