package ops_test

import (
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/ops"
)

// TestConformanceHostOnly: search, usage, locks and doctor read this host's
// state dir; on a state dir they answer, through a gateway every one of them
// is refused the same way (exit 2, the same sentence), before anything is
// read.
func TestConformanceHostOnly(t *testing.T) { each(t, checkHostOnly) }

func checkHostOnly(t *testing.T, fx *fixture) {
	c := ctx(t)
	search := func() error {
		res, err := fx.ops().Search(c, ops.SearchQuery{Pattern: ops.SearchPattern{Pattern: "mock", IgnoreCase: true}, AllAgents: true})
		if err == nil && res.Count == 0 {
			t.Errorf("search: no hits")
		}
		return err
	}
	usage := func() error {
		res, err := fx.ops().Usage(c, ops.UsageQuery{By: []string{"agent"}, AllAgents: true})
		if err == nil && (res.Count == 0 || res.Totals.Messages == 0) {
			t.Errorf("usage: nothing counted: %+v", res)
		}
		return err
	}
	locks := func() error {
		res, err := fx.ops().Locks(c)
		if err == nil && (res.Count != 0 || res.Locks == nil) {
			t.Errorf("locks: %+v", res)
		}
		return err
	}
	doctor := func() error {
		res, err := fx.ops().Doctor(c, ops.DoctorRequest{})
		if err == nil && (res.StateDir == "" || res.Findings == nil) {
			t.Errorf("doctor: %+v", res)
		}
		return err
	}
	for _, op := range []struct {
		name *ops.HostRead
		call func() error
	}{{ops.ReadSearch, search}, {ops.ReadUsage, usage}, {ops.ReadLocks, locks}, {ops.ReadDoctor, doctor}} {
		err := op.call()
		if fx.remote {
			wantCode(t, err, apperr.CodeUsage, op.name.String()+" reads this host's state dir only and does not work through a gateway")
			wantCode(t, fx.ops().CanRead(op.name), apperr.CodeUsage, op.name.String()+" reads this host's state dir only")
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if err := fx.ops().CanRead(op.name); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
	}
}
