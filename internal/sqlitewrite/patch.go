package sqlitewrite

import (
	"database/sql"
	"errors"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// MaxLabelLen is 2026.9.6's label limit (parseSessionLabel: JS length,
// after trimming). 2026.1.30 allowed 64.
const MaxLabelLen = 512

// ParseLabel is parseSessionLabel: trimmed as JavaScript's String.trim
// trims, not empty, at most 512 UTF-16 code units, any characters.
func ParseLabel(raw string) (string, error) {
	l := jsTrim(raw)
	if l == "" {
		return "", apperr.Usagef("invalid label: empty")
	}
	if len(utf16.Encode([]rune(l))) > MaxLabelLen {
		return "", apperr.Usagef("invalid label: too long (max %d)", MaxLabelLen)
	}
	return l, nil
}

// jsTrim is String.prototype.trim: WhiteSpace (TAB, VT, FF, SP, NBSP,
// ZWNBSP U+FEFF, the Zs space separators) and LineTerminators (LF, CR,
// U+2028, U+2029) at both ends — not U+0085, which Go's TrimSpace trims.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\ufeff', '\u2028', '\u2029':
			return true
		}
		return unicode.Is(unicode.Zs, r)
	})
}

// Patch is a sessions.patch of the fields sessions sets. A nil pointer
// leaves the field alone.
type Patch struct {
	Label      *string // "" removes the label
	SendPolicy *string // "allow" | "deny"; "" removes the override
	Archived   *bool   // true: archivedAt = now, archiveReason manual, pin dropped; false: restored
}

// PatchResult is the entry as written.
type PatchResult struct {
	Entry     []byte
	UpdatedAt int64
}

// PatchEntry applies p to key's entry in one BEGIN IMMEDIATE transaction,
// validated as sessions.patch 2026.9.6 validates it (label trimmed, 1-512,
// unique by exact match among the other sessions of the database;
// sendPolicy allow|deny, case-insensitive, stored lowercase), with
// updatedAt = max(updatedAt, now), and persisted as writeSessionEntry does.
// A session with an active run is refused (its run would drop its own
// entry update).
func (w *Writer) PatchEntry(key string, p Patch) (*PatchResult, error) {
	var label, policy string
	if p.Label != nil && *p.Label != "" {
		l, err := ParseLabel(*p.Label)
		if err != nil {
			return nil, err
		}
		label = l
	}
	if p.SendPolicy != nil && *p.SendPolicy != "" {
		policy = strings.ToLower(strings.TrimSpace(*p.SendPolicy))
		if policy != "allow" && policy != "deny" {
			return nil, apperr.Usagef("invalid sendPolicy (use \"allow\"|\"deny\")")
		}
	}
	return w.updateEntry("patch a session", key, func(tx dbtx, n *node, e *jsonx.Object, now int64) error {
		if p.Label != nil {
			if label == "" {
				e.Delete("label")
			} else {
				var one int
				err := tx.QueryRow(`SELECT 1 FROM session_nodes WHERE label = ? AND session_key <> ?`, label, key).Scan(&one)
				if err == nil {
					return apperr.Statef("label already in use: %s", label)
				} else if !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				_ = e.Set("label", label)
			}
		}
		if p.SendPolicy != nil {
			if policy == "" {
				e.Delete("sendPolicy")
			} else {
				_ = e.Set("sendPolicy", policy)
			}
		}
		if p.Archived != nil {
			if *p.Archived {
				if !e.Has("archivedAt") {
					_ = e.Set("archivedAt", now)
					_ = e.Set("archiveReason", "manual")
					e.Delete("archivedBy")
				}
				e.Delete("pinnedAt")
			} else {
				e.Delete("archivedAt")
				e.Delete("archivedBy")
				e.Delete("archiveReason")
			}
		}
		return nil
	})
}

// Entry reads key's entry (the raw entry_json) in a read transaction.
func (w *Writer) Entry(key string) (*jsonx.Object, error) {
	var e *jsonx.Object
	err := w.read(func(tx dbtx) error {
		n, err := readNode(tx, w.path, key)
		if err != nil {
			return err
		}
		if err := n.checkValid(w.path); err != nil {
			return err
		}
		e = n.entry
		return nil
	})
	return e, err
}

// CheckIdle tells, before a turn is run for key, whether a write to it
// would be refused now for an OpenClaw process running beside us (a
// gateway, maintenance, or an embedded agent turn on this session) or an
// entry OpenClaw has not certified: the refusal comes before the model is
// called. Every write step checks it all again inside its transaction.
func (w *Writer) CheckIdle(key string) error {
	if err := w.admit(); err != nil {
		return err
	}
	return w.read(func(tx dbtx) error {
		n, err := readNode(tx, w.path, key)
		if err != nil {
			return err
		}
		if err := n.checkValid(w.path); err != nil {
			return err
		}
		return w.checkIdle(tx, n)
	})
}

// TouchEntry changes key's entry with fn (fields other than updatedAt, which
// becomes max(updatedAt, now)) in one BEGIN IMMEDIATE transaction, as
// OpenClaw's updateSessionStoreAfterAgentRun does after a turn whose
// transcript is already written. A session with an active run is refused.
func (w *Writer) TouchEntry(key string, fn func(e *jsonx.Object)) (*PatchResult, error) {
	return w.updateEntry("update a session", key, func(_ dbtx, _ *node, e *jsonx.Object, _ int64) error {
		fn(e)
		return nil
	})
}

// updateEntry is one entry change in one BEGIN IMMEDIATE transaction: the
// row read and checked (valid, no active run), fn applied to a copy of its
// entry (with now), updatedAt = max(updatedAt, now), the row written back.
func (w *Writer) updateEntry(what, key string, fn func(tx dbtx, n *node, e *jsonx.Object, now int64) error) (*PatchResult, error) {
	now := w.opts.Now().UnixMilli()
	res := &PatchResult{}
	_, err := w.write(what, func(tx dbtx) error {
		n, err := w.readIdleNode(tx, key)
		if err != nil {
			return err
		}
		e := n.entry.Clone()
		if err := fn(tx, n, e, now); err != nil {
			return err
		}
		updated := maxMillis(n.entry, now)
		_ = e.Set("updatedAt", updated)
		if err := writeEntry(tx, n, e); err != nil {
			return err
		}
		if err := w.remember(tx, key); err != nil {
			return err
		}
		raw, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		res.Entry, res.UpdatedAt = raw, updated
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
