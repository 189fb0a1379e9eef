package ops

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/runs"
)

// The texts of runs — a wait's reply and failed step, the runs listing,
// show's runs, a spawn's task — reach an agent masked on both eras; the
// operator reads them as stored, and the records stay as stored.
func TestRunTextsMasked(t *testing.T) {
	const masked = "sk-abc…1234"
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		for _, agent := range []bool{false, true} {
			name := fixture + "/operator"
			if agent {
				name = fixture + "/agent"
			}
			t.Run(name, func(t *testing.T) {
				c := Config{}
				if agent {
					c.As = "agent:main:main"
				}
				o, dir := fixtureOps(t, fixture, nil, c)
				ctx := context.Background()
				target := runs.Session{Key: "agent:main:main", DisplayKey: "main"}
				ok := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusOK, CreatedAt: 3, Target: target,
					Message: "msg " + plantedSecret, Reply: "reply " + plantedSecret, ReplyDone: true,
					Steps: []runs.Step{{Name: "turn", Status: runs.StatusOK, Reply: "reply " + plantedSecret}}}
				failed := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusError, CreatedAt: 2, Target: target,
					Message: "m", ReplyDone: true, Steps: []runs.Step{{Name: "turn", Status: runs.StatusError, Error: "bad key " + plantedSecret}}}
				spawn := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSpawn, Status: runs.StatusOK, CreatedAt: 1,
					Target: runs.Session{Key: "agent:main:subagent:x"}, Requester: &runs.Session{Key: "agent:main:main"},
					Message: "task " + plantedSecret, Spawn: &runs.Spawn{Task: "task " + plantedSecret, Cleanup: "keep"}, Steps: []runs.Step{}}
				rs := runs.Open(dir)
				saveRuns(t, rs, ok, failed, spawn)
				shows := func(what string, v any, text string) {
					t.Helper()
					b, _ := json.Marshal(v)
					if strings.Contains(string(b), plantedSecret) == agent || strings.Contains(string(b), masked) != agent {
						t.Errorf("%s (agent %v): %s", what, agent, b)
					}
					if !strings.Contains(string(b), text) {
						t.Errorf("%s: no %q in %s", what, text, b)
					}
				}
				res, err := o.Wait(ctx, WaitRequest{RunID: ok.RunID, Timeout: time.Second})
				if err != nil {
					t.Fatal(err)
				}
				shows("wait", res, "reply ")
				_, err = o.Wait(ctx, WaitRequest{RunID: failed.RunID, Timeout: time.Second})
				var e *apperr.Error
				if !errors.As(err, &e) || e.Extra["runId"] != failed.RunID || apperr.CodeOf(err) != apperr.CodeError {
					t.Fatalf("failed step: %v", err)
				}
				shows("wait's error", err.Error(), "bad key ")
				list, err := o.Runs(ctx, RunsQuery{Limit: -1})
				if err != nil {
					t.Fatal(err)
				}
				shows("runs", list, "task ")
				if b, _ := json.Marshal(list); !strings.Contains(string(b), `"steps":[]`) {
					t.Errorf("an empty steps list is no longer []: %s", b)
				}
				shown, err := o.Show(ctx, ShowQuery{Ref: "main"})
				if err != nil {
					t.Fatal(err)
				}
				shows("show", shown.Session.Runs, "msg ")
				if stored, err := rs.Load(ok.RunID); err != nil || stored.Reply != "reply "+plantedSecret {
					t.Errorf("the record changed: %+v %v", stored, err)
				}
			})
		}
	}
}
