package sqlitewrite

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// Turn is what AppendTurn appends to a session's transcript.
type Turn struct {
	SessionKey string
	// SessionID, when set, must be the session's current generation
	// (current_session_id): a session reset since the caller looked is
	// refused rather than written into the new generation.
	SessionID string
	// Messages are message objects (role user, assistant, toolResult …) in
	// order; each becomes a `message` event, the first parented on the
	// transcript's leaf, each next one on the one before.
	Messages []json.RawMessage
	// IdempotencyKey is stored as message.idempotencyKey of the first
	// message (OpenClaw's transcript_event_identities key): a turn whose key
	// the session already has was committed before (a retry after a crash)
	// and is not appended again.
	IdempotencyKey string
	// Cwd is the header's cwd when the transcript has no events yet.
	Cwd string
	// Interaction records the turn as a user interaction and completed
	// activity (lastInteractionAt, lastActivityAt = now), as a user turn does.
	Interaction bool
	// Touch, when set, changes further entry fields (model, token counts) in
	// the same transaction; updatedAt is managed here.
	Touch func(e *jsonx.Object)
}

// AppendResult says what AppendTurn did.
type AppendResult struct {
	SessionID string
	EventIDs  []string // the message events' ids, in order
	FirstSeq  int64    // seq of the first event written (the header when one was)
	LastSeq   int64
	Header    bool // a transcript header was written first
	Already   bool // the idempotency key was there: nothing appended
	Indexed   bool // the projection (FTS, active events) was kept current; false: marked for rebuild
	UpdatedAt int64
}

// preparedEvent is one message event, serialised before the transaction.
type preparedEvent struct {
	id        string
	head      []byte // {"type":"message","id":"…","parentId":
	tail      []byte // ,"timestamp":"…","message":{…}}
	role      string
	text      string // FTS text, "" when none
	hasText   bool
	ctxElig   int64
	idemKey   any
	createdAt int64
}

func (p *preparedEvent) json(parent string) []byte {
	var b bytes.Buffer
	b.Write(p.head)
	if parent == "" {
		b.WriteString("null")
	} else {
		pj, _ := jsonx.Marshal(parent)
		b.Write(pj)
	}
	b.Write(p.tail)
	return b.Bytes()
}

// isoMillis is JavaScript's Date.prototype.toISOString.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (w *Writer) prepareTurn(t Turn, now time.Time) ([]*preparedEvent, error) {
	if len(t.Messages) == 0 {
		return nil, apperr.Usagef("nothing to append")
	}
	if strings.TrimSpace(t.IdempotencyKey) == "" {
		return nil, apperr.Usagef("an appended turn needs an idempotency key")
	}
	ts := isoMillis(now)
	var out []*preparedEvent
	for i, m := range t.Messages {
		msg := jsonx.NewObject()
		if err := msg.UnmarshalJSON(m); err != nil {
			return nil, apperr.Errorf("message %d is not a JSON object: %v", i, err)
		}
		role, _ := msg.String("role")
		if role == "" {
			return nil, apperr.Errorf("message %d has no role", i)
		}
		var idem any
		if i == 0 {
			k := strings.TrimSpace(t.IdempotencyKey)
			if err := msg.Set("idempotencyKey", k); err != nil {
				return nil, err
			}
			idem = k
		} else if k, ok := msg.String("idempotencyKey"); ok && strings.TrimSpace(k) != "" {
			return nil, apperr.Errorf("message %d carries its own idempotencyKey; only the turn's key is written", i)
		}
		mj, err := msg.MarshalJSON()
		if err != nil {
			return nil, err
		}
		id := uuid.NewString()
		head := []byte(`{"type":"message","id":"` + id + `","parentId":`)
		var tail bytes.Buffer
		tail.WriteString(`,"timestamp":"` + ts + `","message":`)
		tail.Write(mj)
		tail.WriteByte('}')
		text, hasText := indexText(mj)
		elig := int64(1)
		if gjson.GetBytes(mj, "excludeFromContext").Type == gjson.True {
			elig = 0
		}
		out = append(out, &preparedEvent{id: id, head: head, tail: tail.Bytes(), role: role, text: text, hasText: hasText,
			ctxElig: elig, idemKey: idem, createdAt: now.UnixMilli()})
	}
	return out, nil
}

// indexText is extractTranscriptIndexEntry's text of a user/assistant
// message: a trimmed string content, else a trimmed message.text, else the
// text/input_text/output_text blocks with non-blank text joined by "\n".
func indexText(msg []byte) (string, bool) {
	m := gjson.ParseBytes(msg)
	role := m.Get("role").String()
	if role != "user" && role != "assistant" {
		return "", false
	}
	c := m.Get("content")
	if c.Type == gjson.String {
		s := strings.TrimSpace(c.String())
		return s, s != ""
	}
	if t := m.Get("text"); t.Type == gjson.String {
		s := strings.TrimSpace(t.String())
		return s, s != ""
	}
	if !c.IsArray() {
		return "", false
	}
	var parts []string
	c.ForEach(func(_, b gjson.Result) bool {
		typ := b.Get("type").String()
		if typ != "text" && typ != "input_text" && typ != "output_text" {
			return true
		}
		if t := b.Get("text"); t.Type == gjson.String && strings.TrimSpace(t.String()) != "" {
			parts = append(parts, t.String())
		}
		return true
	})
	return strings.Join(parts, "\n"), len(parts) > 0
}

// AppendTurn appends a turn's message events to a session, in one
// BEGIN IMMEDIATE transaction, as OpenClaw 2026.9.6's appendTranscriptEvent
// does, then touches the entry (touchTranscriptTurnSessionEntry). See the
// package comment for what is refused.
func (w *Writer) AppendTurn(t Turn) (*AppendResult, error) {
	now := w.opts.Now()
	events, err := w.prepareTurn(t, now)
	if err != nil {
		return nil, err
	}
	cwd := t.Cwd
	if cwd == "" {
		cwd = "/"
	}
	res := &AppendResult{}
	already, err := w.write("append a turn", func(tx dbtx) error {
		*res = AppendResult{}
		n, err := readNode(tx, w.path, t.SessionKey)
		if err != nil {
			return err
		}
		if err := n.checkValid(w.path); err != nil {
			return err
		}
		if t.SessionID != "" && t.SessionID != n.sid {
			return apperr.Statef("session %s was reset meanwhile (now %s, expected %s): refusing to append", t.SessionKey, n.sid, t.SessionID)
		}
		res.SessionID = n.sid
		var one int
		err = tx.QueryRow(`SELECT 1 FROM transcript_event_identities WHERE session_id = ? AND message_idempotency_key = ?`, n.sid, events[0].idemKey).Scan(&one)
		if err == nil {
			return errAlreadyDone
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := w.checkIdle(tx, n); err != nil {
			return err
		}
		if err := n.checkOwners(w.path); err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT 1 FROM session_transcript_cold_archives WHERE session_id = ?`, n.sid).Scan(&one); err == nil {
			return apperr.Statef("the transcript of session %s is in cold storage; OpenClaw restores it on its next read of the session: refusing to append", t.SessionKey)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var winKey string
		if err := tx.QueryRow(`SELECT session_key FROM session_windows WHERE session_id = ?`, n.sid).Scan(&winKey); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return apperr.Statef("session %s has no session_windows row for %s: refusing to append", t.SessionKey, n.sid)
			}
			return err
		}
		if winKey != t.SessionKey {
			return apperr.Statef("transcript %s is owned by %s, not %s: refusing to append", n.sid, winKey, t.SessionKey)
		}
		var maxSeq sql.NullInt64
		if err := tx.QueryRow(`SELECT max(seq) FROM transcript_events WHERE session_id = ?`, n.sid).Scan(&maxSeq); err != nil {
			return err
		}
		parent := ""
		if maxSeq.Valid {
			if parent, err = appendParent(tx, w.path, t.SessionKey, n.sid, maxSeq.Int64); err != nil {
				return err
			}
		}
		createdAt := now.UnixMilli()
		// ensureTranscriptSessionRoot + ensureTranscriptGenerationInTransaction
		if _, err := tx.Exec(`UPDATE session_windows SET updated_at = ? WHERE session_id = ?`, createdAt, n.sid); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO transcript_rewrite_watermarks(session_id, generation, updated_at) VALUES (?, ?, ?) ON CONFLICT(session_id) DO NOTHING`,
			n.sid, strings.ReplaceAll(uuid.NewString(), "-", ""), createdAt); err != nil {
			return err
		}
		idx, err := newIndexer(tx, n.sid, now)
		if err != nil {
			return err
		}
		seq := int64(0)
		if maxSeq.Valid {
			seq = maxSeq.Int64 + 1
		}
		res.FirstSeq = seq
		if !maxSeq.Valid {
			header, _ := jsonx.Marshal(struct {
				Type      string `json:"type"`
				Version   int    `json:"version"`
				ID        string `json:"id"`
				Timestamp string `json:"timestamp"`
				Cwd       string `json:"cwd"`
			}{"session", 4, n.sid, isoMillis(now), cwd})
			if err := insertEvent(tx, n.sid, seq, header, createdAt); err != nil {
				return err
			}
			if err := idx.header(seq, createdAt); err != nil {
				return err
			}
			if err := insertIdentity(tx, n.sid, n.sid, seq, "session", nil, nil, createdAt); err != nil {
				return err
			}
			res.Header = true
			seq++
		}
		for _, ev := range events {
			body := ev.json(parent)
			if err := insertEvent(tx, n.sid, seq, body, ev.createdAt); err != nil {
				return err
			}
			if err := idx.message(seq, ev, parent); err != nil {
				return err
			}
			var par any
			if parent != "" {
				par = parent
			}
			if err := insertIdentity(tx, n.sid, ev.id, seq, "message", par, ev.idemKey, ev.createdAt); err != nil {
				return err
			}
			res.EventIDs = append(res.EventIDs, ev.id)
			parent = ev.id
			res.LastSeq = seq
			seq++
		}
		// touchTranscriptMutationInTransaction: strictly increasing.
		if _, err := tx.Exec(`UPDATE session_windows SET transcript_updated_at = max(?, coalesce(transcript_updated_at, -1) + 1, coalesce(transcript_observed_at, -1) + 1)
			WHERE session_id = ?`, createdAt, n.sid); err != nil {
			return err
		}
		res.Indexed = !idx.dirty
		e := n.entry.Clone()
		if t.Touch != nil {
			t.Touch(e)
		}
		updated := maxMillis(n.entry, createdAt)
		_ = e.Set("updatedAt", updated)
		if t.Interaction {
			_ = e.Set("lastInteractionAt", createdAt)
			_ = e.Set("lastActivityAt", createdAt)
		}
		res.UpdatedAt = updated
		if err := writeEntry(tx, n, e); err != nil {
			return err
		}
		return w.remember(tx, t.SessionKey)
	})
	if err != nil {
		return nil, err
	}
	res.Already = already
	return res, nil
}

// canonicalTypes are OpenClaw's canonical transcript entry types
// (transcript-tree isCanonicalSessionEntryType).
var canonicalTypes = map[string]bool{
	"message": true, "thinking_level_change": true, "model_change": true, "compaction": true, "reset": true,
	"branch_summary": true, "custom": true, "custom_message": true, "label": true, "session_info": true,
}

// appendParent resolves the parent of the next append the way
// readActiveTranscriptAppendParentId does for the cases that need no tree
// walk: the latest identity row is a canonical entry with a parentId key
// (not a side append) → its id; only the header → null. Anything else (a
// leaf control, a side append, events without identities) is refused:
// only OpenClaw's navigation scan resolves those.
func appendParent(tx dbtx, path, key, sid string, maxSeq int64) (string, error) {
	var eventID string
	var typ sql.NullString
	var seq int64
	var eventJSON, nav sql.NullString
	err := tx.QueryRow(`SELECT ti.event_id, ti.event_type, ti.seq, te.event_json, te.navigation_json
		FROM transcript_event_identities ti JOIN transcript_events te ON te.session_id = ti.session_id AND te.seq = ti.seq
		WHERE ti.session_id = ? ORDER BY ti.seq DESC LIMIT 1`, sid).Scan(&eventID, &typ, &seq, &eventJSON, &nav)
	refuse := func(why string) error {
		return apperr.Statef("the transcript of session %s does not end in a canonical event (%s); only OpenClaw can resolve where the next event goes: refusing to append", key, why)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", refuse("it has events but no identity rows")
	}
	if err != nil {
		return "", err
	}
	var ev gjson.Result
	switch {
	case eventJSON.Valid:
		ev = gjson.Parse(eventJSON.String)
	case nav.Valid:
		ev = gjson.Get(nav.String, "navigation") // zstd rows keep their navigation keys here
	default:
		return "", refuse("its last event has no readable payload")
	}
	evType := ev.Get("type").String()
	switch {
	case evType == "session" && typ.String == "session":
		if seq != maxSeq {
			return "", refuse("events without identities follow the header")
		}
		return "", nil
	case !canonicalTypes[evType]:
		return "", refuse("the last identified event is a " + evType)
	case ev.Get("appendMode").String() == "side":
		return "", refuse("the last event is a side append")
	case !ev.Get("parentId").Exists():
		return "", refuse("the last event has no parentId")
	case ev.Get("id").String() != eventID:
		return "", refuse("the last event's id differs from its identity row")
	}
	// Cross-check: a current projection names the same leaf.
	var leaf sql.NullString
	var indexed, rebuild int64
	err = tx.QueryRow(`SELECT leaf_event_id, indexed_seq, needs_rebuild FROM session_transcript_index_state WHERE session_id = ?`, sid).Scan(&leaf, &indexed, &rebuild)
	if err == nil && rebuild == 0 && indexed == maxSeq && leaf.Valid && leaf.String != eventID {
		return "", refuse(fmt.Sprintf("the projection's leaf %s is not the last event %s", leaf.String, eventID))
	} else if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	return eventID, nil
}

// insertEvent writes identity storage (event_json, no zstd, no
// navigation_json), valid for any size; OpenClaw reads it like its own.
func insertEvent(tx dbtx, sid string, seq int64, body []byte, createdAt int64) error {
	if !utf8.Valid(body) {
		return apperr.Errorf("event %d is not valid UTF-8", seq)
	}
	_, err := tx.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at)
		VALUES (?, ?, ?, NULL, ?, NULL, ?)`, sid, seq, string(body), len(body), createdAt)
	return err
}

func insertIdentity(tx dbtx, sid, id string, seq int64, typ string, parent, idem any, createdAt int64) error {
	_, err := tx.Exec(`INSERT INTO transcript_event_identities(session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id, event_id) DO NOTHING`, sid, id, seq, typ, parent, idem, createdAt)
	return err
}
