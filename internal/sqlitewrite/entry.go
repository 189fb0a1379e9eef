package sqlitewrite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// node is a session_nodes row with its parsed entry.
type node struct {
	key       string
	sid       string
	entryJSON string
	valid     int64
	updatedAt int64
	status    sql.NullString
	entry     *jsonx.Object
}

// readNode reads key's row; a missing row is apperr.NotFoundf.
func readNode(tx dbtx, path, key string) (*node, error) {
	n := &node{key: key}
	err := tx.QueryRow(`SELECT current_session_id, entry_json, entry_valid, updated_at, status FROM session_nodes WHERE session_key = ?`, key).
		Scan(&n.sid, &n.entryJSON, &n.valid, &n.updatedAt, &n.status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("session %s does not exist in %s", key, path)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// readIdleNode reads key's row and checks it is valid and has no active run:
// the preconditions of every change to an entry.
func (w *Writer) readIdleNode(tx dbtx, key string) (*node, error) {
	n, err := readNode(tx, w.path, key)
	if err != nil {
		return nil, err
	}
	if err := n.checkValid(w.path); err != nil {
		return nil, err
	}
	if err := w.checkIdle(tx, n); err != nil {
		return nil, err
	}
	return n, nil
}

// checkValid requires what OpenClaw's readers require of every row
// (parseSqliteSessionEntryRecord) plus entry_valid = 1: a row OpenClaw
// itself has not certified is left for `openclaw doctor --fix`.
func (n *node) checkValid(path string) error {
	bad := func(why string) error {
		return apperr.Statef("session %s in %s is not a valid OpenClaw entry (%s); run openclaw doctor --fix first: refusing to write", n.key, path, why)
	}
	if n.valid != 1 {
		return bad("entry_valid is not 1")
	}
	e := jsonx.NewObject()
	if err := e.UnmarshalJSON([]byte(n.entryJSON)); err != nil {
		return bad("entry_json is not a JSON object")
	}
	sid, ok := e.String("sessionId")
	if !ok || sid != n.sid {
		return bad("entry_json.sessionId differs from current_session_id")
	}
	u, ok := e.Number("updatedAt")
	if !ok || math.IsInf(u, 0) || math.IsNaN(u) || u != float64(n.updatedAt) {
		return bad("entry_json.updatedAt differs from updated_at")
	}
	n.entry = e
	return nil
}

// checkIdle refuses a session with an active run: status running or a
// lifecycleRunId (a gateway run), or the session of an embedded agent turn
// that runs beside us (`openclaw agent --local`, see Holder.Shared): the
// session its command line names, and every session it has written since
// it took the state lock (2026.9.6 marks its run only by a new
// activeWriterRunId, which stays after the run, and by touching updatedAt
// and the transcript). OpenClaw's run would lose its own appends or entry
// update to ours (SqliteTranscriptMutationConflictError,
// SqliteSessionMutationConflictError).
func (w *Writer) checkIdle(tx dbtx, n *node) error {
	st, _ := n.entry.String("status")
	if n.status.String == "running" || st == "running" || n.entry.Has("lifecycleRunId") {
		return apperr.Statef("session %s in %s has an active OpenClaw run: refusing to write beside it", n.key, w.path)
	}
	if len(w.embedded) == 0 {
		return nil
	}
	var touched sql.NullInt64
	if err := tx.QueryRow(`SELECT max(coalesce(transcript_updated_at, 0), updated_at) FROM session_windows WHERE session_id = ?`, n.sid).Scan(&touched); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if left, ok := w.left[n.key]; ok && left == [2]int64{n.updatedAt, touched.Int64} {
		return nil // nobody but us has written it since our last step
	}
	for _, h := range w.embedded {
		why := ""
		switch {
		case h.SessionKey != "" && h.SessionKey == n.key:
			why = "it runs this session"
		case h.SessionID != "" && h.SessionID == n.sid:
			why = "it runs this session's transcript"
		case n.updatedAt >= h.Since.UnixMilli() || touched.Int64 >= h.Since.UnixMilli():
			why = "it has written this session since it started"
		}
		if why != "" {
			return apperr.Statef("session %s in %s is in use by %s (%s): refusing to write beside it; retry when it has finished",
				n.key, w.path, h, why).With("holders", []int{h.PID})
		}
	}
	return nil
}

// checkOwners refuses sessions that another owner writes with its own
// invariants: ACP, a plugin, a CLI backend, an agent harness other than
// OpenClaw's own, incognito sessions.
func (n *node) checkOwners(path string) error {
	owner := ""
	switch {
	case truthy(n.entry.Raw("acp")):
		owner = "ACP (entry.acp)"
	case nonBlank(n.entry, "pluginOwnerId"):
		owner = "a plugin (entry.pluginOwnerId)"
	case n.entry.Has("cliHistoryBoundary"):
		owner = "a CLI backend (entry.cliHistoryBoundary)"
	case isTrue(n.entry.Raw("incognito")):
		owner = "incognito mode (entry.incognito)"
	}
	if h, ok := n.entry.String("agentHarnessId"); owner == "" && ok && strings.TrimSpace(h) != "" && strings.TrimSpace(h) != "openclaw" {
		owner = "agent harness " + h + " (entry.agentHarnessId)"
	}
	if owner != "" {
		return apperr.Statef("session %s in %s is owned by %s: sessions does not write it", n.key, path, owner)
	}
	return nil
}

// remember notes, inside our transaction, the row stamps our write leaves
// on key while an embedded agent runs beside us: our next step on the same
// session (the entry touch after a turn, the first turn of a child we
// created) is ours, not the agent's.
func (w *Writer) remember(tx dbtx, key string) error {
	if len(w.embedded) == 0 {
		return nil
	}
	var u, touched sql.NullInt64
	err := tx.QueryRow(`SELECT n.updated_at, max(coalesce(sw.transcript_updated_at, 0), sw.updated_at) FROM session_nodes n
		JOIN session_windows sw ON sw.session_id = n.current_session_id WHERE n.session_key = ?`, key).Scan(&u, &touched)
	if err != nil {
		return err
	}
	if w.left == nil {
		w.left = map[string][2]int64{}
	}
	w.left[key] = [2]int64{u.Int64, touched.Int64}
	return nil
}

func truthy(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "false" && s != "0" && s != `""`
}

func isTrue(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "true" }

func nonBlank(e *jsonx.Object, k string) bool {
	s, ok := e.String(k)
	return ok && strings.TrimSpace(s) != ""
}

// normText is OpenClaw's normalizeText: a trimmed non-blank string, else NULL.
func normText(e *jsonx.Object, k string) any {
	if s, ok := e.String(k); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	return nil
}

// finite is finiteSqliteNumber: a finite number, else NULL. Integral
// numbers bind as INTEGER (the columns are STRICT INTEGER).
func finite(e *jsonx.Object, k string) any {
	v, ok := e.Number(k)
	if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return v
}

// displayName is resolveSqliteSessionDisplayName (session_windows.display_name).
func displayName(e *jsonx.Object) any {
	for _, k := range []string{"displayName", "label", "subject", "groupId"} {
		if v := normText(e, k); v != nil {
			return v
		}
	}
	return nil
}

// maxMillis is max(old entry updatedAt, now) as OpenClaw's touches compute it.
func maxMillis(e *jsonx.Object, now int64) int64 {
	if v, ok := e.Number("updatedAt"); ok && int64(v) > now {
		return int64(v)
	}
	return now
}

// writeEntry persists a changed entry of an existing node the way
// writeSessionEntry does for the fields sessions changes: entry_json (key
// order and every unknown field kept), the promoted columns that derive
// from them, entry_valid restored to 1, and the retained window's
// updated_at, display_name and transcript_observed_at.
func writeEntry(tx dbtx, n *node, e *jsonx.Object) error {
	raw, err := e.MarshalJSON()
	if err != nil {
		return err
	}
	u, _ := e.Number("updatedAt")
	updatedAt := int64(u)
	if _, err := tx.Exec(`UPDATE session_nodes SET entry_json = ?, updated_at = ?, label = ?, display_name = ?,
		pinned_at = ?, archived_at = ?, last_interaction_at = ?, last_activity_at = ? WHERE session_key = ?`,
		string(raw), updatedAt, normText(e, "label"), normText(e, "displayName"),
		finite(e, "pinnedAt"), finite(e, "archivedAt"), finite(e, "lastInteractionAt"), finite(e, "lastActivityAt"), n.key); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?`, n.key); err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE session_windows SET updated_at = ?, display_name = ?,
		transcript_observed_at = coalesce(transcript_updated_at, ?) WHERE session_id = ? AND session_key = ?`,
		updatedAt, displayName(e), updatedAt, n.sid, n.key)
	return err
}
