package ops

import (
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// What the external tests (package ops_test: the conformance suite) reach
// that front-ends may not.

// OpenStateForTest is this host's state, as the operations open it.
func (o *Ops) OpenStateForTest() (*state.State, error) { return o.where.State() }

// RunStoreForTest is runStore.
func (o *Ops) RunStoreForTest() (*runs.Store, error) { return o.runStore() }
