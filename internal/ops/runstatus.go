package ops

import "github.com/openclaw/sessions/internal/runs"

// The statuses a run goes through (RunRecord.Status).
const (
	RunAccepted = runs.StatusAccepted
	RunRunning  = runs.StatusRunning
	RunOK       = runs.StatusOK
	RunError    = runs.StatusError
	RunTimeout  = runs.StatusTimeout
)

// RunStatuses are the values of RunsQuery.Status: the statuses a run
// goes through.
var RunStatuses = []string{RunAccepted, RunRunning, RunOK, RunError, RunTimeout}

// RunSummary is a one-line description of a run for people: its error,
// its spawn's outcome, or the first line of its reply.
func RunSummary(r *RunRecord) string {
	rec := runs.Record{Error: r.Error, Reply: r.Reply}
	if r.Spawn != nil {
		rec.Spawn = &runs.Spawn{Outcome: r.Spawn.Outcome}
	}
	return runs.Summary(&rec)
}
