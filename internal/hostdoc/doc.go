// Package hostdoc is the documents of what a host answers beside a
// session's row (sessionrow) and a run (rundoc), as front-ends get them:
// its agents, a completion's hints, and the host-only reads — search's
// hits, usage, the search index's status, the locks held, doctor's
// findings. They hold the fields and JSON of what the host and
// internal/hostread answer (hostread converts its answers into them,
// beside the engines that read the files) and nothing of those files;
// the operations layer hands them out as its own (ops.AgentRow,
// ops.SearchHit, ops.UsageResult, ops.IndexResult, ops.LocksResult,
// ops.DoctorResult). A leaf: it imports nothing of the module.
package hostdoc
