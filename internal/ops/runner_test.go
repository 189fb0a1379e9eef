package ops

import (
	"testing"

	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/runs"
)

// A run's runner resolves its gateway from the selector the run records
// (serialised once when it was launched), not from flags of its own
// command line; a run that records none works on the runner's invocation.
func TestRunnerResolvesTheRecordedGateway(t *testing.T) {
	o, _ := fixtureOps(t, "state-2026.1.30", map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"}, Config{})
	through := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusAccepted, Engine: "gateway",
		Gateway: &gatewaysel.Selector{URL: "ws://127.0.0.1:9"}}
	here := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusAccepted, Engine: "provider"}
	set, err := o.runHosts(through)
	if err != nil {
		t.Fatal(err)
	}
	if hs := set.Hosts(); len(hs) != 1 || hs[0].URL() != "ws://127.0.0.1:9" || hs[0].Endpoint().Token != "tok" {
		t.Errorf("the runner of a run through a gateway resolves %v", hs)
	}
	for _, rec := range []*runs.Record{here, nil} {
		set, err = o.runHosts(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !set.Local() {
			t.Errorf("a run recording no gateway (%v): the runner resolves %v, want this host", rec, set.Hosts())
		}
	}
}
