package backend

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/openclaw/sessions/internal/state"
)

// HostError is one host of a fleet that failed; the others' rows stand.
type HostError struct {
	Context string `json:"context"`
	Error   string `json:"error"`
	Err     error  `json:"-"`
}

// Each runs fn on every reader (or host) concurrently and returns the
// answers and the errors in reader order (a fleet command's fan-out).
func Each[R Reader, T any](readers []R, fn func(R) (T, error)) ([]T, []error) {
	res := make([]T, len(readers))
	errs := make([]error, len(readers))
	var wg sync.WaitGroup
	for i, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = fn(r)
		}()
	}
	wg.Wait()
	return res, errs
}

// ListFleet runs q on every reader concurrently and merges the answers:
// rows newest first (ties in reader order), each carrying its reader's
// context, cut to q.Limit; Total is the sum of the hosts' totals, so
// "count < total" stays true exactly when rows were left out. Hosts that
// failed are in the errors, in reader order.
func ListFleet(ctx context.Context, readers []Reader, q ListQuery) (*ListResult, []HostError) {
	res, errs := Each(readers, func(r Reader) (*ListResult, error) { return r.List(ctx, q) })
	out := &ListResult{Rows: []state.Row{}}
	var failed []HostError
	agents := map[string]bool{}
	for i, r := range res {
		if errs[i] != nil {
			failed = append(failed, HostError{Context: readers[i].Where(), Error: errs[i].Error(), Err: errs[i]})
			continue
		}
		out.Total += r.Total
		out.MultiAgent = out.MultiAgent || r.MultiAgent
		for _, row := range r.Rows {
			row.Context = readers[i].Where()
			agents[row.AgentID] = true
			out.Rows = append(out.Rows, row)
		}
	}
	out.MultiAgent = out.MultiAgent || len(agents) > 1
	slices.SortStableFunc(out.Rows, func(a, b state.Row) int { return cmp.Compare(Updated(&b), Updated(&a)) })
	out.Rows = Limited(out.Rows, q.Limit)
	return out, failed
}

// Updated is a row's updatedAt, 0 when it has none: what listings sort by,
// newest first.
func Updated(r *state.Row) float64 {
	if r.UpdatedAt == nil {
		return 0
	}
	return *r.UpdatedAt
}
