// Package hostdoc is the documents of the host-only reads — search's
// hits, usage, the search index's status, the locks held, doctor's
// findings — as front-ends get them: the fields and JSON of what
// internal/hostread answers (which converts its answers into them, beside
// the engines that read the files) and nothing of those files; the
// operations layer hands them out as its own (ops.SearchHit,
// ops.UsageResult, ops.IndexResult, ops.LocksResult, ops.DoctorResult). A
// leaf: it imports nothing of the module.
package hostdoc
