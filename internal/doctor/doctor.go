// Package doctor finds what is wrong with an OpenClaw state dir and with our
// own state beside it, and repairs what is safe to repair without OpenClaw.
//
// It works in three steps, each in its own file:
//
//   - Collect (collect.go, collect_sqlite.go) reads the state — stores,
//     transcripts, lock files, SQLite stores (their -wal and size, inline
//     media, legacy files beside them), runs, the outbox and the archive
//     index — into a Snapshot of plain facts. It never writes, never takes a
//     lock, never opens a lock path that is not a regular file, and opens
//     SQLite read-only; the one exception is the write-lock probe of a
//     database another process has open (BEGIN IMMEDIATE without waiting,
//     rolled back at once), which writes nothing.
//   - Check (checks.go) turns a Snapshot into Findings: pure functions, no I/O.
//   - Fix (fix.go) repairs the findings marked Fixable, each under OpenClaw's
//     own lock: stale locks of dead holders removed, orphan transcripts
//     renamed <file>.deleted.<ts> (never deleted), runs whose runner died
//     ended, due sub-agents archived, a legacy sessions.json whose every
//     entry the 2026.8+ SQLite store beside it holds moved aside to
//     <file>.migrated-<ts>.bak. It never rewrites a corrupt store and never
//     writes a 2026.8+ SQLite store.
package doctor

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/openclaw/sessions/internal/era"
)

// Severities, most serious first.
const (
	SevError   = "error"   // OpenClaw or sessions misbehaves because of it
	SevWarning = "warning" // works, but something was lost or will go wrong
	SevInfo    = "info"    // worth knowing (a live lock holder, leftovers)
)

// Finding is one problem found.
type Finding struct {
	Severity   string `json:"severity"`
	Check      string `json:"check"` // stable identifier, e.g. "lock.dead"
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	// Message says what it is and what it means.
	Message string `json:"message"`
	// Fix is the exact command that repairs it: ours (`sessions doctor
	// --fix`) when Fixable, else OpenClaw's own or a shell command.
	Fix string `json:"fix"`
	// Fixable: `sessions doctor --fix` repairs it.
	Fixable bool `json:"fixable"`
	// Fixed is set by Fix: what was done.
	Fixed string `json:"fixed,omitempty"`
	// FixError is set by Fix when the repair failed or was deferred.
	FixError string `json:"fixError,omitempty"`

	// What Fix needs (not part of the JSON).
	action action
}

// action is the repair Fix applies to a fixable finding.
type action struct {
	kind      string // actRemoveLock, actRenameOrphan, actReapRun, actArchive
	storePath string // actRemoveLock (store lock), actRenameOrphan: the store that must not point at it
	sessionID string // actRenameOrphan
	runID     string // actReapRun, actArchive
	lockKind  string // actRemoveLock: "store" | "transcript"
	path      string // the lock file or the orphan transcript
}

const (
	actRemoveLock   = "remove-lock"
	actRenameOrphan = "rename-orphan"
	actReapRun      = "end-run"
	actArchive      = "archive"
	// actMoveLegacyStore: storePath is the sessions.json, path the SQLite
	// store beside it.
	actMoveLegacyStore = "move-legacy-store"
)

// FixCommand is the command that repairs every Fixable finding.
const FixCommand = "sessions doctor --fix"

func sevRank(s string) int {
	switch s {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// Sort orders findings: most serious first, then by check, path and key.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(sevRank(a.Severity), sevRank(b.Severity)),
			cmp.Compare(a.Check, b.Check), cmp.Compare(a.Path, b.Path), cmp.Compare(a.SessionKey, b.SessionKey))
	})
}

// Counts are the findings by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Fixable  int `json:"fixable"`
}

// Count tallies the findings that are still open (not Fixed).
func Count(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		if f.Fixed != "" {
			continue
		}
		switch f.Severity {
		case SevError:
			c.Errors++
		case SevWarning:
			c.Warnings++
		default:
			c.Infos++
		}
		if f.Fixable {
			c.Fixable++
		}
	}
	return c
}

// Open reports whether any finding is left that needs action: an error or a
// warning not fixed. Info findings (a live holder, leftovers) do not count.
func Open(fs []Finding) bool {
	c := Count(fs)
	return c.Errors+c.Warnings > 0
}

// Size says what was checked: agents, session entries and transcripts of
// each agent's store in its era — a JSON-era agent's sessions.json entries
// and the files scanned, a SQLite-era agent's rows and the sessionIds it
// holds events of (a store that cannot be read counts none: its finding
// says why) — and, on a half-migrated host, the other era's beside them.
func Size(snap *Snapshot) string {
	sessions, files := 0, 0
	otherSessions, otherFiles := 0, 0
	for _, a := range snap.Agents {
		if a.Store != nil {
			sessions += len(a.Store.Entries)
		}
		files += len(a.Transcripts)
		db := a.SQLite
		if db == nil || db.Err != "" {
			continue
		}
		if a.Era == era.SQLite {
			// SQLite era: its rows; the JSON files beside it are the other era.
			sessions += db.Sessions
			files += db.Transcripts
			if ls := a.LegacyStore; ls != nil {
				otherSessions += ls.Entries
			}
			otherFiles += len(a.LegacyBeside)
		} else {
			// JSON era with a database beside it.
			otherSessions += db.Sessions
			otherFiles += db.Transcripts
		}
	}
	s := fmt.Sprintf("%d agent(s), %d session entries, %d transcript(s)", len(snap.Agents), sessions, files)
	if otherSessions+otherFiles > 0 {
		s += fmt.Sprintf("; beside them, of the other era: %d session entries, %d transcript(s)", otherSessions, otherFiles)
	}
	return s
}
