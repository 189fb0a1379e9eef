package hostread

import (
	"time"

	"github.com/openclaw/sessions/internal/runs"
)

// OurRuns are the records of a runs store, newest first, a dead runner's
// run ended as it is seen.
func OurRuns(rs *runs.Store, now time.Time) ([]*runs.Record, error) {
	out, err := rs.List()
	if err != nil {
		return nil, err
	}
	for i, r := range out {
		if out[i], err = rs.Reap(r, now); err != nil {
			return nil, err
		}
		out[i].Source = runs.SourceSessions
	}
	return out, nil
}
