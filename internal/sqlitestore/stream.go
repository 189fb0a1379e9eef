package sqlitestore

import (
	"database/sql"
	"fmt"

	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// Stream calls fn with every transcript event of sessionID from seq from
// on, in seq order (hot rows merged with a cold archive's events, as
// Messages reads them), one at a time: the export of a whole
// conversation. Each event is classified as Messages classifies it (tool
// results included); Line.Raw is the event's JSON (decompressed), Pos its
// seq. A session without any event or window is fs.ErrNotExist; fn's error
// stops the read and is returned as is.
func (db *DB) Stream(sessionID string, from int64, opts transcript.Options, fn func(transcript.Line) error) error {
	if err := store.ValidSessionID(sessionID); err != nil {
		return err
	}
	maxLine := opts.MaxLine()
	var fnErr error
	seen := false
	// A read redone (a checkpoint under an immutable read) starts again
	// from the first seq not given to fn yet.
	next := from
	sk := transcript.Skips{MaxLine: maxLine}
	err := db.read("read transcript "+sessionID, func(tx *sql.Tx) error {
		pre := db.eventsSnapshot() // before the first statement: events_direct.go
		cold, err := db.coldEvents(tx, sessionID)
		if err != nil {
			closeSnap(pre)
			return err
		}
		src := &events{db: db, tx: tx, sessionID: sessionID, from: next, cold: cold, newest: -1, pre: pre}
		defer src.close()
		for {
			ev, ok, err := src.next()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			seen, next = true, ev.seq+1
			l := transcript.Line{Pos: ev.seq, Newline: true}
			if ev.n > maxLine {
				l.Status = transcript.StatusOversize
			} else if data, ok := db.eventData(ev); !ok {
				l.Status = transcript.StatusCorrupt
			} else {
				l.Raw = data
				l.Message, l.Status = transcript.Classify(data, true)
				if l.Status == transcript.StatusMessage {
					l.Check = transcript.Fingerprint(data)
				}
			}
			sk.Add(l.Status)
			if fnErr = fn(l); fnErr != nil {
				return fnErr
			}
		}
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return err
	}
	if !seen && from == 0 {
		if _, err := db.Messages(sessionID, transcript.Options{Limit: 1}); err != nil {
			return err
		}
	}
	if msg := sk.Summary("event", "corrupt JSON, invalid UTF-8 or an undecodable zstd payload", "corrupt, undecodable"); opts.Warn != nil && msg != "" {
		opts.Warn(fmt.Sprintf("transcript of session %s in %s: %s", sessionID, db.path, msg))
	}
	return nil
}
