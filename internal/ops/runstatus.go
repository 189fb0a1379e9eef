package ops

import "github.com/openclaw/sessions/internal/runs"

// RunStatuses are the values of RunsQuery.Status: the statuses a run
// goes through.
var RunStatuses = []string{runs.StatusAccepted, runs.StatusRunning, runs.StatusOK, runs.StatusError, runs.StatusTimeout}
