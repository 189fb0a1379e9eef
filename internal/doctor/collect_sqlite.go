package doctor

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sqlitedb"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/store"
)

// importedTranscripts are the JSONL files (named <sessionId>.jsonl) whose
// sessionId the SQLite store holds events of.
func importedTranscripts(db *sqlitestore.DB, files []string) map[string]bool {
	if len(files) == 0 {
		return nil
	}
	ts, err := db.Transcripts()
	if err != nil {
		return nil
	}
	have := make(map[string]bool, len(ts))
	for _, t := range ts {
		have[t.SessionID] = true
	}
	out := map[string]bool{}
	for _, f := range files {
		if have[strings.TrimSuffix(filepath.Base(f), ".jsonl")] {
			out[f] = true
		}
	}
	return out
}

// compareLegacyStore reads a sessions.json beside a SQLite store and finds
// the entries the store does not have as they are in the file. db is nil
// when the store could not be read (nothing is compared then).
func compareLegacyStore(path string, db *sqlitestore.DB) *LegacyStoreFact {
	f := &LegacyStoreFact{Path: path}
	if err := fsutil.CheckRegular(path); err != nil {
		f.Err = err.Error()
		return f
	}
	js, err := store.LoadMeta(path)
	if err != nil {
		f.Err = err.Error()
		return f
	}
	f.Entries = len(js.Entries)
	if db == nil {
		return f
	}
	ss, err := db.StoreMeta()
	if err != nil {
		return f
	}
	f.Compared = true
	f.Missing = missingFromSQLite(js, ss, agentOfStore(path))
	return f
}

// agentOfStore is the agent of <state>/agents/<id>/sessions/sessions.json.
func agentOfStore(path string) string {
	return filepath.Base(filepath.Dir(filepath.Dir(path)))
}

// missingFromSQLite are the keys of js that ss lacks, holds under another
// sessionId, or holds with an older updatedAt: an entry the SQLite store
// does not have as the file has it.
func missingFromSQLite(js, ss *store.Store, agent string) []string {
	byKey := make(map[string]*store.Entry, len(ss.Entries))
	for i := range ss.Entries {
		byKey[ss.Entries[i].Key] = &ss.Entries[i]
	}
	var out []string
	for i := range js.Entries {
		e := &js.Entries[i]
		s := byKey[e.Key]
		if s == nil {
			s = byKey[keys.Canonical(e.Key, agent, config.NormalizeAgentID)]
		}
		switch {
		case s == nil,
			e.SessionID != "" && s.SessionID != e.SessionID,
			e.UpdatedAt != nil && (s.UpdatedAt == nil || *s.UpdatedAt < *e.UpdatedAt):
			out = append(out, e.Key)
		}
	}
	sort.Strings(out)
	return out
}

// base64Byte: the alphabet of standard and URL-safe base64, with padding.
func base64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

var (
	dataURIMark = []byte(";base64,")
	imageMark   = []byte(`"type":"image"`)
	dataKey     = []byte(`"data":"`)
)

// inlineMedia measures the base64 media inlined in one event: the payloads
// of data: URIs and the data of image blocks, each at least min bytes.
func inlineMedia(body []byte, min int64) (n int64) {
	run := func(b []byte) int64 {
		i := 0
		for i < len(b) && base64Byte(b[i]) {
			i++
		}
		return int64(i)
	}
	for rest := body; ; {
		i := bytes.Index(rest, dataURIMark)
		if i < 0 {
			break
		}
		rest = rest[i+len(dataURIMark):]
		if l := run(rest); l >= min {
			n += l
		}
	}
	if bytes.Contains(body, imageMark) {
		for rest := body; ; {
			i := bytes.Index(rest, dataKey)
			if i < 0 {
				break
			}
			rest = rest[i+len(dataKey):]
			if bytes.HasPrefix(rest, []byte("data:")) {
				continue // a data: URI, counted above
			}
			if l := run(rest); l >= min {
				n += l
			}
		}
	}
	return n
}

// scanMedia counts the transcript events of db that carry inline base64
// media (ts names the sessions by key where a window has one).
func scanMedia(db *sqlitestore.DB, ts []sqlitestore.StoredTranscript, min int64) MediaFact {
	var m MediaFact
	per := map[string]int64{}
	keep := func(b []byte) bool { return bytes.Contains(b, dataURIMark) || bytes.Contains(b, imageMark) }
	_, err := db.ScanEvents(keep, func(sid string, body []byte) {
		if n := inlineMedia(body, min); n > 0 {
			m.Events++
			m.Bytes += n
			per[sid] += n
		}
	})
	if err != nil {
		return MediaFact{}
	}
	keyOf := map[string]string{}
	for _, t := range ts {
		keyOf[t.SessionID] = t.Key
	}
	m.Sessions = len(per)
	for sid, n := range per {
		name := keyOf[sid]
		if name == "" {
			name = sid
		}
		if n > m.LargestBytes || n == m.LargestBytes && name < m.Largest {
			m.Largest, m.LargestBytes = name, n
		}
	}
	return m
}

// lockProbes is how often, lockProbeGap apart, the write lock must be found
// held before a database is reported locked: OpenClaw's own writes hold it
// for milliseconds.
const (
	lockProbes   = 3
	lockProbeGap = 250 * time.Millisecond
)

// probeWriteLock asks whether another connection holds the database's
// write lock right now (sqlitedb.ProbeWriteLock: BEGIN IMMEDIATE without
// waiting, rolled back at once) and names who holds it open when it is.
// It probes only a database another process has open (on Linux, from
// /proc; elsewhere, one whose -wal holds frames or that has a -journal):
// a quiescent database is never opened for writing, and nobody can hold
// its lock.
func probeWriteLock(f *SQLiteFact) {
	if f == nil || f.Err != "" {
		return
	}
	if procFDs {
		if len(openers(f.Path, f.Path+"-wal")) == 0 {
			return
		}
	} else if f.WALSize == 0 && !fileExists(f.Path+"-journal") {
		return
	}
	if err := sqlitedb.CheckFiles(f.Path); err != nil {
		return
	}
	for i := range lockProbes {
		if i > 0 {
			time.Sleep(lockProbeGap)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		locked, err := sqlitedb.ProbeWriteLock(ctx, f.Path)
		cancel()
		if err != nil {
			f.LockErr = err.Error()
			return
		}
		if !locked {
			return
		}
	}
	f.Locked = true
	f.LockOpeners = openers(f.Path, f.Path+"-wal")
}
