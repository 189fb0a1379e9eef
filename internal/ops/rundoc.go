package ops

import "github.com/openclaw/sessions/internal/rundoc"

// The documents of runs (internal/rundoc: the fields and JSON of the run
// store's records, nothing of the store; internal/runs converts its
// records into them): a listing's run (RunsResult), the spawn lineage
// tree, and the result of a send or a wait.
type (
	RunRecord     = rundoc.Record        // one run
	RunSession    = rundoc.Session       // a session taking part in a run
	RunStep       = rundoc.Step          // one agent turn of a run
	RunUsage      = rundoc.Usage         // the token usage of a step
	RunDelivery   = rundoc.Delivery      // the outcome of delivering an announce
	RunSpawn      = rundoc.Spawn         // what only a spawn run has
	RunSettings   = rundoc.Settings      // what the runner otherwise reads from its state's config
	RunNode       = rundoc.Node          // one session of the spawn lineage tree
	RunResult     = rundoc.Result        // the document of `send` and `wait`
	DeliveryState = rundoc.DeliveryState // the announce's delivery as a result shows it
)
