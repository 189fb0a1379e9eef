// Package hostread holds the reads that only this host can answer, because
// they read its state dir's files themselves: no gateway RPC of OpenClaw
// 2026.1.30 or 2026.9.x gives them (the transcripts' full text, the usage
// lines, lock files, what doctor checks, OpenClaw's own sub-agent
// registry). Each is an engine over one opened state (internal/state):
// search's sources and scan (Search), usage's listing and roll-up (Usage),
// doctor's check and safe fixes (Doctor), the locks held (Locks) and the
// runs recorded (Runs).
//
// local.Local implements backend's optional host-only interfaces
// (Searcher, UsageReader, Doctor, LockLister, RunLister) with these; the
// operations layer asks a host whether it implements one and composes the
// answer into its documents. The answers are this package's plain values,
// never an ops document.
package hostread
