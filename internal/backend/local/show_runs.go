package local

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// showRuns lists the runs of t, newest first: our run records that
// target it or that it requested, and OpenClaw's sub-agent runs it is the
// child or the requester of. Unreadable sources are skipped: they are
// details of the view, not the session.
func showRuns(s *state.State, t *state.Target) []backend.ShowRun {
	out := []backend.ShowRun{}
	rs := runs.Open(s.Dir.Path)
	if recs, err := rs.List(); err == nil {
		for _, r := range recs {
			role, peer := "", ""
			switch {
			case r.Target.Key == t.Key:
				role = backend.ShowRoleTarget
				if r.Requester != nil {
					peer = cmp.Or(r.Requester.DisplayKey, r.Requester.Key)
				}
			case r.Requester != nil && r.Requester.Key == t.Key:
				role, peer = backend.ShowRoleRequester, cmp.Or(r.Target.DisplayKey, r.Target.Key)
			default:
				continue
			}
			run := backend.ShowRun{Source: backend.ShowRunSessions, RunID: r.RunID, Kind: r.Kind, Role: role, Status: r.Status, Peer: peer,
				Task: r.Message, CreatedAt: r.CreatedAt, EndedAt: r.EndedAt, Summary: runs.Summary(r)}
			if r.Spawn != nil {
				run.Label, run.Task = r.Spawn.Label, r.Spawn.Task
			}
			if !runs.Terminal(r.Status) {
				alive := rs.RunnerAlive(r.RunID)
				run.RunnerAlive = &alive
			}
			out = append(out, run)
		}
	}
	for _, r := range openclawRuns(s.Dir.Path) {
		child := runKey(s, r.ChildSessionKey)
		req := runKey(s, r.RequesterSessionKey)
		role, peer := "", ""
		switch t.Key {
		case child:
			role, peer = backend.ShowRoleTarget, s.DisplayKey(req)
		case req:
			role, peer = backend.ShowRoleRequester, s.DisplayKey(child)
		default:
			continue
		}
		run := backend.ShowRun{Source: backend.ShowRunOpenClaw, RunID: r.RunID, Kind: "subagent", Role: role, Peer: peer, Label: r.Label,
			Task: r.Task, CreatedAt: r.CreatedAt, EndedAt: r.EndedAt, Status: "running"}
		if r.Outcome != nil && r.Outcome.Status != "" {
			run.Status = r.Outcome.Status
			run.Summary = r.Outcome.Error
		} else if r.EndedAt > 0 {
			run.Status = "ended"
		}
		out = append(out, run)
	}
	slices.SortStableFunc(out, func(a, b backend.ShowRun) int { return cmp.Compare(b.CreatedAt, a.CreatedAt) })
	return out
}

func runKey(s *state.State, key string) string {
	if key == "" {
		return ""
	}
	return keys.Canonical(key, s.Default, config.NormalizeAgentID)
}

// openclawRun is one entry of OpenClaw's sub-agent registry (format §6.6).
type openclawRun struct {
	RunID               string `json:"runId"`
	ChildSessionKey     string `json:"childSessionKey"`
	RequesterSessionKey string `json:"requesterSessionKey"`
	Task                string `json:"task"`
	Label               string `json:"label"`
	CreatedAt           int64  `json:"createdAt"`
	EndedAt             int64  `json:"endedAt"`
	Outcome             *struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	} `json:"outcome"`
}

// openclawRuns reads <state>/subagents/runs.json (versions 1 and 2, as
// OpenClaw loads it); nothing when it is missing or unreadable.
func openclawRuns(stateDir string) []openclawRun {
	data, err := fsutil.ReadFileRegular(filepath.Join(stateDir, "subagents", "runs.json"))
	if err != nil {
		return nil
	}
	var doc struct {
		Version int                        `json:"version"`
		Runs    map[string]json.RawMessage `json:"runs"`
	}
	if json.Unmarshal(data, &doc) != nil || (doc.Version != 1 && doc.Version != 2) {
		return nil
	}
	var out []openclawRun
	for _, raw := range doc.Runs {
		var r openclawRun
		if json.Unmarshal(raw, &r) != nil || r.RunID == "" {
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b openclawRun) int { return cmp.Compare(a.RunID, b.RunID) })
	return out
}
