package sqlitestore

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sort"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/lazyre"
)

// maxColdArchiveBytes bounds a cold archive, compressed and decompressed
// (OpenClaw 2026.9.6 MAX_COLD_ARCHIVE_BYTES: 64 MiB).
const maxColdArchiveBytes = 64 << 20

// coldArchiveName is the only name OpenClaw gives a cold archive
// (resolveSessionColdArchivePath); anything else is never opened.
var coldArchiveName = lazyre.New(`^[a-f0-9]{64}\.jsonl\.zst$`)

// ColdDir is where the cold archives of the database at dbPath live:
// <agents>/<id>/sessions/cold when the database is in an "agent" dir (the
// default layout), else <dir of the database>/cold (OpenClaw 2026.9.6
// resolveSessionArtifactDirectory).
func ColdDir(dbPath string) string {
	dir := filepath.Dir(dbPath)
	if filepath.Base(dir) == "agent" {
		return filepath.Join(filepath.Dir(dir), "sessions", "cold")
	}
	return filepath.Join(dir, "cold")
}

// coldEvents returns the events of sessionID's cold archive in seq order, or
// nil when the transcript is not in cold storage.
//
// Archive format (OpenClaw 2026.9.6 session-cold-storage-worker): zstd of
// JSONL records; first {"kind":"header","version":1,"sessionId","generation"},
// then {"kind":"event","row":{"seq","event_json","created_at"}} per event
// (event_json as a JSON string), then identity/active/index/fts records
// (ignored here). The archive must match the row's archive_bytes and
// archive_sha256, and hold event_count events ending at last_seq.
func (db *DB) coldEvents(tx *sql.Tx, sessionID string) ([]event, error) {
	if !db.hasCold {
		return nil, nil
	}
	var (
		name, sum, storage, generation string
		size, count, lastSeq           int64
		blob                           []byte
	)
	err := tx.QueryRow(`SELECT archive_name, archive_sha256, archive_bytes, event_count, last_seq, storage, archive_blob, generation
		FROM session_transcript_cold_archives WHERE session_id = ?`, sessionID).
		Scan(&name, &sum, &size, &count, &lastSeq, &storage, &blob, &generation)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	where := "embedded in " + db.path
	var data []byte
	switch storage {
	case "sqlite":
		data = blob
	case "file":
		if !coldArchiveName.MatchString(name) {
			return nil, apperr.Statef("OpenClaw SQLite store %s: cold archive of session %s has an invalid name %q", db.path, sessionID, name)
		}
		where = filepath.Join(ColdDir(db.path), name)
		if data, err = readBounded(where, maxColdArchiveBytes); err != nil {
			return nil, apperr.Statef("cold transcript archive %s of session %s is missing or unreadable: %v", where, sessionID, err)
		}
	default:
		return nil, apperr.Statef("OpenClaw SQLite store %s: cold archive of session %s has unknown storage %q", db.path, sessionID, storage)
	}
	h := sha256.Sum256(data)
	if int64(len(data)) != size || hex.EncodeToString(h[:]) != sum {
		return nil, apperr.Statef("cold transcript archive %s of session %s failed verification (size or SHA-256 differs from the database's record)", where, sessionID)
	}
	d, err := db.decoder()
	if err != nil {
		return nil, err
	}
	raw, err := d.DecodeAll(data, nil)
	if err != nil {
		return nil, apperr.Statef("cold transcript archive %s of session %s does not decompress: %v", where, sessionID, err)
	}
	evs, err := parseCold(raw, sessionID, generation)
	if err != nil {
		return nil, apperr.Statef("cold transcript archive %s of session %s is corrupt: %v", where, sessionID, err)
	}
	got := int64(-1)
	if len(evs) > 0 {
		got = evs[len(evs)-1].seq
	}
	if int64(len(evs)) != count || got != lastSeq {
		return nil, apperr.Statef("cold transcript archive %s of session %s does not match its database record (%d events ending at seq %d; recorded: %d ending at %d)",
			where, sessionID, len(evs), got, count, lastSeq)
	}
	return evs, nil
}

// parseCold reads the records of a decompressed archive.
func parseCold(raw []byte, sessionID, generation string) ([]event, error) {
	var evs []event
	first := true
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return nil, errors.New("a record is not JSON")
		}
		kind := gjson.GetBytes(line, "kind").Str
		if first {
			first = false
			h := gjson.GetManyBytes(line, "sessionId", "generation")
			if kind != "header" || h[0].Str != sessionID || h[1].Str != generation {
				return nil, errors.New("its header does not name this session and generation")
			}
			continue
		}
		switch kind {
		case "header":
			return nil, errors.New("a second header")
		case "event":
			var rec struct {
				Row struct {
					Seq       *int64  `json:"seq"`
					EventJSON *string `json:"event_json"`
				} `json:"row"`
			}
			if err := json.Unmarshal(line, &rec); err != nil || rec.Row.Seq == nil || rec.Row.EventJSON == nil {
				return nil, errors.New("an event record without seq or event_json")
			}
			b := []byte(*rec.Row.EventJSON)
			evs = append(evs, event{seq: *rec.Row.Seq, body: b, n: int64(len(b))})
		}
	}
	if first {
		return nil, errors.New("it is empty")
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].seq < evs[j].seq })
	return evs, nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > limit {
		return nil, errors.New("larger than 64 MiB")
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}
