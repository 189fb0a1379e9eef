package sqlitestore

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// ScanEvents calls fn with the text of every transcript event of every
// session in the database — the hot transcript_events rows (event_json, or
// event_zstd decoded) and the events of verified cold archives — session by
// session, in seq order within each source. keep, when set, is asked first
// about an uncompressed row (a cheap byte pre-filter: fn only sees events it
// keeps); compressed rows are decoded before it is asked. An event whose
// compressed payload does not decode is counted in the returned bad count
// and skipped. body is only valid during the call. It is one read
// transaction: a consistent snapshot.
func (db *DB) ScanEvents(keep func(body []byte) bool, fn func(sessionID string, body []byte)) (bad int, err error) {
	err = db.read("scan transcript events", func(tx *sql.Tx) error {
		bad = 0
		rows, err := tx.Query(`SELECT session_id, event_json, event_zstd, event_utf8_bytes FROM transcript_events ORDER BY session_id, seq`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var sid string
		var js, zs []byte
		var n sql.NullInt64
		var out []byte
		for rows.Next() {
			if err := rows.Scan(&sid, &js, &zs, &n); err != nil {
				return err
			}
			switch {
			case js != nil:
				if keep == nil || keep(js) {
					fn(sid, js)
				}
			case zs != nil && n.Valid && n.Int64 >= 1 && n.Int64 <= maxEventBytes:
				d, err := db.decoder()
				if err != nil {
					return err
				}
				out, err = d.DecodeAll(zs, out[:0])
				if err != nil || int64(len(out)) != n.Int64 {
					bad++
					continue
				}
				if keep == nil || keep(out) {
					fn(sid, out)
				}
			default:
				bad++
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !db.hasCold {
			return nil
		}
		crows, err := tx.Query(`SELECT session_id FROM session_transcript_cold_archives ORDER BY session_id`)
		if err != nil {
			return err
		}
		var cold []string
		for crows.Next() {
			if err := crows.Scan(&sid); err != nil {
				crows.Close()
				return err
			}
			cold = append(cold, sid)
		}
		crows.Close()
		for _, s := range cold {
			evs, err := db.coldEvents(tx, s)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				if keep == nil || keep(ev.body) {
					fn(s, ev.body)
				}
			}
		}
		return nil
	})
	return bad, err
}

// ScanArchives calls fn with every transcript archive of the database and
// its JSONL text (decompressed when its encoding is zstd, after the blob's
// SHA-256 was checked against archive_sha256). An archive that fails its
// check or does not decode is reported through Options.Warn and skipped. A
// database without the table has no archives.
func (db *DB) ScanArchives(fn func(a Archive, jsonl []byte)) error {
	return db.read("scan transcript archives", func(tx *sql.Tx) error {
		var ok bool
		if err := tx.QueryRow("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'").Scan(&ok); err != nil || !ok {
			return err
		}
		rows, err := tx.Query(`SELECT session_id, generation, session_key, reason, encoding, archive_name, archive_sha256, archive_blob
			FROM session_transcript_archives ORDER BY session_id, created_at`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a Archive
			var sum string
			var blob []byte
			if err := rows.Scan(&a.SessionID, &a.Generation, &a.SessionKey, &a.Reason, &a.Encoding, &a.Name, &sum, &blob); err != nil {
				return err
			}
			a.Bytes = int64(len(blob))
			data, err := db.archiveText(a.Encoding, sum, blob)
			if err != nil {
				if db.opts.Warn != nil {
					db.opts.Warn(fmt.Sprintf("OpenClaw SQLite store %s: transcript archive %s of session %s skipped: %v", db.path, a.Name, a.SessionID, err))
				}
				continue
			}
			fn(a, data)
		}
		return rows.Err()
	})
}

func (db *DB) archiveText(enc, sum string, blob []byte) ([]byte, error) {
	if !sha256Matches(blob, sum) {
		return nil, errors.New("its SHA-256 differs from the database's record")
	}
	switch enc {
	case "identity":
		return blob, nil
	case "zstd":
		d, err := db.decoder()
		if err != nil {
			return nil, err
		}
		out, err := d.DecodeAll(blob, nil)
		if err != nil {
			return nil, fmt.Errorf("does not decompress: %v", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown encoding %q", enc)
}

func sha256Matches(data []byte, sum string) bool {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]) == sum
}
