package e2e_test

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/searchindex"
)

// waitindex STATE SECONDS [masked]: poll `sessions --state-dir STATE index
// --json` (every 200 ms, at most SECONDS) until the index of STATE is
// built and fresh — a build started in the background has finished; fail
// with its last status when it is not by then. With masked: until a
// masked index (an agent's) is built and no process holds its lock (a
// masked index has no freshness of its own to show).
func waitIndex(ts *testscript.TestScript, neg bool, args []string) {
	if (len(args) != 2 && (len(args) != 3 || args[2] != "masked")) || neg {
		ts.Fatalf("usage: waitindex STATE SECONDS [masked]")
	}
	secs, err := strconv.Atoi(args[1])
	ts.Check(err)
	masked := len(args) == 3
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for {
		ts.Check(ts.Exec("sessions", "--state-dir", args[0], "index", "--json"))
		out := ts.ReadFile("stdout")
		var doc struct {
			Index *struct {
				Built bool  `json:"built"`
				Fresh *bool `json:"fresh"`
			} `json:"index"`
			Masked []struct {
				Dir   string `json:"dir"`
				Built bool   `json:"built"`
			} `json:"masked"`
		}
		ts.Check(json.Unmarshal([]byte(out), &doc))
		if x := doc.Index; !masked && x != nil && x.Built && x.Fresh != nil && *x.Fresh {
			return
		}
		if masked && len(doc.Masked) > 0 && doc.Masked[0].Built && !searchindex.Updating(doc.Masked[0].Dir) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the index of %s is not built and fresh after %ds:\n%s", args[0], secs, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
