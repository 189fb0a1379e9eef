// Package sqlitestore reads the per-agent SQLite store of OpenClaw 2026.8
// and later (<state>/agents/<id>/agent/openclaw-agent.sqlite; format §9),
// strictly read-only, and hands its sessions and transcripts over in the
// shapes the sessions.json-era readers produce (store.Store,
// transcript.Result), so list, history and agents work on both eras alike.
//
// # Reading without writing
//
// Open never writes: every connection is SQLITE_OPEN_READONLY with
// query_only=1 and trusted_schema=0, and reads run in read transactions.
// A WAL database whose -wal is absent or empty has every committed page in
// its main file: it is opened with immutable=1, so no -wal or -shm is
// created, touched or left behind, and each read is checked afterwards
// against the main file's size/mtime/ctime/inode — a writer that
// checkpointed meanwhile makes the read run again. A database whose -wal
// holds frames (a live writer) is opened mode=ro and shares the writer's
// -wal/-shm like any OpenClaw reader. Reads wait for a writer's lock at most
// Options.BusyTimeout, then fail with apperr.Lockf (exit 11); a missing,
// unreadable, non-SQLite, corrupt or unknown-schema file is apperr.Statef
// (exit 10). Only session tables are read, never auth_profile_* or other
// credential tables.
//
// # Field mapping (Store)
//
// A session is a session_nodes row; Entry.Key is session_key, Entry.Raw is
// entry_json byte for byte — the SessionEntry JSON, the same object a
// sessions.json holds under the key — and Entry.Meta is extracted from it
// by the sessions.json reader itself (store.EntryMeta), then completed:
//
//	row field / Meta            sessions.json era          SQLite era (2026.8+)
//	key                         object key                 session_nodes.session_key
//	sessionId                   entry.sessionId            entry_json.sessionId (= current_session_id)
//	updatedAt                   entry.updatedAt            entry_json.updatedAt; must equal session_nodes.updated_at
//	label, displayName,         same name in the entry     same name in entry_json
//	spawnedBy, model,
//	modelProvider, model/
//	providerOverride,
//	contextTokens, totalTokens,
//	inputTokens, outputTokens,
//	thinkingLevel, verboseLevel,
//	sendPolicy, systemSent,
//	abortedLastRun
//	deliveryContext             entry.deliveryContext      entry_json.deliveryContext, else delivery.context
//	lastChannel                 entry.lastChannel          entry_json.lastChannel, else delivery.context.channel
//	lastTo                      entry.lastTo               entry_json.lastTo, else delivery.context.to
//	lastAccountId               entry.lastAccountId        entry_json.lastAccountId, else delivery.context.accountId
//	channel                     entry.channel (provider)   entry_json.channel, else delivery.context.channel,
//	                                                       else delivery.origin.provider
//	chatType                    entry.chatType             entry_json.chatType, else delivery.origin.chatType,
//	                                                       else delivery.route.target.chatType
//	sessionFile                 JSONL path                 cleared: a retired locator in 2026.8+
//	transcript                  JSONL file                 transcript_events rows (Messages)
//
// 2026.8+ keeps delivery state as one canonical object, delivery =
// {kind:"none"} | {kind:"internal"} | {kind:"external", route, context,
// origin}; the else-branches above are OpenClaw's own compatibility
// projection (projectSessionDeliveryFields), applied only where the entry
// lacks the sessions.json-era field. kind "none"/"internal" project nothing.
//
// Only in the sessions.json era: sessionFile (and so transcriptPath), the
// legacy provider/lastProvider names, JSON5 stores.
//
// Only in the SQLite era (kept in Entry.Raw, not in Meta): sessionStartedAt,
// lastInteractionAt, lastActivityAt, archivedAt/archiveReason, pinnedAt,
// lastReadAt/markedUnreadAt, autoLabel, delivery, activeWriterRunId,
// agentHarnessId, contextTokensSource, totalTokensFresh/totalTokensVersion,
// estimatedCostUsd, cacheRead/cacheWrite, skillsSnapshot,
// systemPromptReport, contextBudgetStatus; chatType may be "room". The
// columns that duplicate entry fields (label, display_name, spawned_by,
// parent_session_key, status, owner_*, …) and session_windows are not read:
// like OpenClaw's listing, entry_json is the source of truth.
//
// Agent schema 24 (OpenClaw 2026.9.8 to 2026.10.x) keeps sessionDiffBaseline,
// skillsSnapshot and systemPromptReport out of entry_json, one row each in
// session_entry_snapshots; Store and EntryRaw put them back into Entry.Raw
// as OpenClaw's attachSessionEntrySnapshots does (a member the entry still
// has takes the snapshot's value in place, the others come last), so an
// entry reads the same on 23 and 24. StoreMeta needs none of them.
//
// Rows left out, as OpenClaw's listing leaves them out: the hidden
// agent:<id>:internal-session-effects:… rows (silently), and rows whose
// entry_json is not an object with a string sessionId and a numeric
// updatedAt equal to the updated_at column (counted in Store.Skipped,
// warned once). Archived sessions (archivedAt) are listed, as
// `openclaw sessions` 2026.9.6 lists them.
//
// # Transcripts (Messages)
//
// Each transcript_events row is one former JSONL line (format §4.2): the
// header (type "session") at the lowest seq, then entries with id/parentId
// (UUIDs in 2026.9, 8-hex in 2026.1). The text is event_json, or event_zstd
// (a zstd frame OpenClaw writes for events of 1 KiB and more) decompressed
// to exactly event_utf8_bytes bytes. Messages returns the `message` of every
// event in seq order, as transcript.ReadMessages does for a JSONL file —
// chat.history semantics, which ignore the tree and also 2026.8+'s new
// `reset` entries (OpenClaw 2026.9's own history readers hide what precedes
// the latest reset; here every message is returned, as for JSONL).
// Transcripts moved to cold storage (session_transcript_cold_archives;
// <agents>/<id>/sessions/cold/<sha256>.jsonl.zst or embedded) are read from
// the verified archive and merged with any events still hot.
//
// # The direct read of session_nodes (Store)
//
// Store reads session_nodes' rows straight from the database
// file (internal/sqlitefile: b-tree, records, overflow chains, committed
// WAL frames) inside the SQL read transaction, on every CPU, each row parsed
// right after it is copied out — where the result is provably the SQL
// path's: a WAL database, the table's definition and root page as SQLite's
// own sqlite_master has them, plain stored columns, and values of the types
// the SQL path would hand over unconverted; the files unchanged afterwards.
// Otherwise, and on any error of the file reader, the SQL path reads. See
// direct.go.
//
// # Which era is read
//
// Detect decides per agent, and says why: see its comment.
package sqlitestore
