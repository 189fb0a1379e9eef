// Package sqlitewrite writes the per-agent SQLite store of OpenClaw 2026.8+
// (<state>/agents/<id>/agent/openclaw-agent.sqlite) the way OpenClaw 2026.9.6
// writes it, for hosts where no OpenClaw process runs: it appends a turn's
// transcript events, creates a spawned child session, patches an entry's
// label/sendPolicy, and archives or deletes a session row.
//
// # Preconditions (Open)
//
//   - No OpenClaw gateway or maintenance holds the state dir: no gateway*.lock
//     in <state>/tmp/openclaw-<uid>/ naming a live pid with role gateway,
//     skill-workshop-apply or sqlite-maintenance, no live maintenance lease
//     (state_leases scope core:agent-database-maintenance) and no live
//     agent_database_leases row for this database of a process that holds no
//     lock, in <state>/state/openclaw.sqlite. An embedded agent turn (role
//     agent-embedded: `openclaw agent --local`) is allowed beside us: its
//     session — named by its command line, or written since it took the
//     lock — is refused (checkIdle). Checked at Open and before every write
//     step. Those files and rows are only read, never created, changed or
//     removed.
//   - The database is exactly agent schema 23: PRAGMA user_version = 23, the
//     schema_meta 'primary' row (role agent, schema_version 23, agent_id =
//     the agent), encoding UTF-8, and every table, index and trigger a write
//     reaches (directly, through a trigger or through ON DELETE CASCADE) has
//     byte-for-byte the definition OpenClaw 2026.9.6 creates (whitespace
//     aside). No other object hangs off those tables.
//
// Anything else is apperr.Statef (exit 10) and no byte of the database is
// written: the checks run on a connection that has not written anything yet.
//
// # Writing
//
// The file is opened mode=rw (never created), foreign_keys=ON,
// synchronous=NORMAL, with one connection; journal_mode and locking_mode are
// left as found, -wal/-shm are never deleted, renamed or copied (Close
// keeps a -wal/-shm that was there at Open, emptied by the checkpoint, and
// leaves none where there was none). Each
// logical step (append a turn, create a child, update an entry, archive,
// delete) is one BEGIN IMMEDIATE transaction: the JSON is prepared before,
// and inside everything is read again and checked (schema cookie, node
// validity, running state, owners, leaf of the transcript tree, label
// uniqueness). A lock still busy after Options.LockTimeout is apperr.Lockf
// (exit 11). No table, index or trigger is ever created; no sessions.json
// or JSONL file is ever written.
//
// What OpenClaw keeps and this package does not write: the subagent_runs
// registry and thread bindings of the shared state database, run ids,
// usage accounting beyond what the caller supplies, session_participants,
// and the certification of session_canonical_validation_pending markers
// (the triggers leave them; OpenClaw's validator certifies them on its
// next read, as it does after any older same-version writer).
package sqlitewrite
