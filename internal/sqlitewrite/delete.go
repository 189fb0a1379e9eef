package sqlitewrite

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
)

// ErrChanged is wrapped by DeleteEntry's refusal of a session that changed
// since the caller read it.
var ErrChanged = errors.New("session changed since it was read")

// DeleteResult is what DeleteEntry removed.
type DeleteResult struct {
	SessionID string
	UpdatedAt int64
	// Placeholder: the row stays as OpenClaw's placeholder (entry_json {},
	// entry_valid -1) because transcript windows are kept under the key;
	// false when the row itself went (no window left).
	Placeholder bool
	// Windows is the number of transcript windows kept (their events
	// stay in the database).
	Windows int
}

// nodeArtifactTables are the per-key tables 2026.9.6's
// deleteSessionNodeArtifacts clears, board_widgets before board_tabs.
var nodeArtifactTables = []string{"session_pending_inputs", "board_widgets", "board_tabs", "heartbeat_outcomes",
	"session_participants", "session_progress_cards", "session_members", "session_suggestions"}

// DeleteEntry removes key's entry in one BEGIN IMMEDIATE transaction as
// 2026.9.6's sessions.delete does with deleteTranscript false
// (deleteSessionEntryRows without deleteOwnedWindows): the session's
// per-key artifacts (pending inputs, board tabs and widgets, heartbeat
// outcomes, participants, progress cards, members, suggestions) are
// deleted; a transcript window whose session id another row still points
// at moves to that row; when windows remain under the key the row becomes
// OpenClaw's placeholder (clearSqliteSessionEntryPreservingWindows:
// entry_json {}, entry_valid -1, current_session_id and updated_at of the
// newest remaining window, every promoted column NULL) which no OpenClaw
// listing shows, else the row is deleted. Transcript events are kept: the
// archive OpenClaw writes when it also deletes the transcript (a zstd file
// written by its reclamation worker plus session_transcript_archives) is
// not something this package writes.
//
// expectSessionID, when not empty, must still be the entry's sessionId
// (compared case-insensitively), and updatedBefore, when not 0, must still
// be above the entry's updatedAt (prune's age, checked again under the
// lock); else an error wrapping ErrChanged and nothing is written. The preconditions are PatchEntry's: a valid row, no active run,
// not owned by ACP, a plugin, a CLI backend, another harness or incognito.
func (w *Writer) DeleteEntry(key, expectSessionID string, updatedBefore int64) (*DeleteResult, error) {
	res := &DeleteResult{}
	_, err := w.write("delete a session", func(tx dbtx) error {
		n, err := w.readIdleNode(tx, key)
		if err != nil {
			return err
		}
		if err := n.checkOwners(w.path); err != nil {
			return err
		}
		if expectSessionID != "" && !strings.EqualFold(n.sid, expectSessionID) {
			return apperr.Errorf("session %s changed since it was read (sessionId %s); nothing deleted", key, n.sid).With("sessionKey", key).Wrap(ErrChanged)
		}
		if updatedBefore != 0 && n.updatedAt >= updatedBefore {
			return apperr.Errorf("session %s was updated since it was read; nothing deleted", key).With("sessionKey", key).Wrap(ErrChanged)
		}
		if isTrue(n.entry.Raw("modelSelectionLocked")) {
			return apperr.Errorf("This session cannot be deleted while model selection is locked.").With("sessionKey", key)
		}
		var legacy sql.NullString
		if err := tx.QueryRow(`SELECT legacy_acp_migration_json FROM session_nodes WHERE session_key = ?`, key).Scan(&legacy); err != nil {
			return err
		}
		if legacy.Valid && strings.TrimSpace(legacy.String) != "" && strings.TrimSpace(legacy.String) != "[]" {
			return apperr.Statef("session %s in %s carries legacy ACP migration sources: sessions does not delete it", key, w.path)
		}
		res.SessionID, res.UpdatedAt = n.sid, n.updatedAt
		// Windows another row still points at move to it (the first by key).
		wins, err := stringsOf(tx, `SELECT session_id FROM session_windows WHERE session_key = ?`, key)
		if err != nil {
			return err
		}
		for _, sid := range wins {
			var other string
			err := tx.QueryRow(`SELECT session_key FROM session_nodes WHERE session_key <> ? AND current_session_id = ? ORDER BY session_key LIMIT 1`, key, sid).Scan(&other)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE session_windows SET session_key = ? WHERE session_id = ?`, other, sid); err != nil {
				return err
			}
		}
		for _, t := range nodeArtifactTables {
			if _, err := tx.Exec(`DELETE FROM "`+t+`" WHERE session_key = ?`, key); err != nil {
				return err
			}
		}
		var sid string
		var updated int64
		err = tx.QueryRow(`SELECT session_id, updated_at FROM session_windows WHERE session_key = ? ORDER BY updated_at DESC, session_id ASC LIMIT 1`, key).Scan(&sid, &updated)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.Exec(`DELETE FROM session_nodes WHERE session_key = ?`, key)
			return err
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT count(*) FROM session_windows WHERE session_key = ?`, key).Scan(&res.Windows); err != nil {
			return err
		}
		res.Placeholder = true
		if _, err := tx.Exec(`UPDATE session_nodes SET current_session_id = ?, entry_json = '{}', entry_valid = -1, updated_at = ?,
			status = NULL, created_at = NULL, created_via = NULL, created_actor_type = NULL, created_actor_id = NULL,
			project_id = NULL, parent_session_key = NULL, spawned_by = NULL, fork_source_session_key = NULL,
			fork_source_session_id = NULL, fork_source_entry_id = NULL, label = NULL, display_name = NULL,
			category = NULL, icon = NULL, pinned_at = NULL, archived_at = NULL, last_read_at = NULL,
			last_interaction_at = NULL, last_activity_at = NULL,
			owner_actor_type = NULL, owner_actor_id = NULL, owner_assigned_by_type = NULL, owner_assigned_by_id = NULL,
			owner_assigned_at = NULL WHERE session_key = ?`, sid, updated, key); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE session_nodes SET entry_valid = -1 WHERE session_key = ?`, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func stringsOf(tx dbtx, q string, args ...any) ([]string, error) {
	rows, err := tx.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
