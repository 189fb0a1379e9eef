package sqlitestore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/transcript"
)

const mainSession = "8000a7c0-cc69-4a7f-82ba-219f4a789783"

// navigationJSON satisfies transcript_events' CHECK for compressed rows.
const navigationJSON = `{"version":1,"report":{"kind":"ignored"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`

func zstdOf(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// TestZstdEvents: events stored as event_zstd (as OpenClaw stores events of
// 1 KiB and more; here every message event of the main session, whatever its
// size) read exactly like their JSON; a payload that does not decode, or
// decodes to another length than event_utf8_bytes, is skipped, counted and
// warned once — like a corrupt JSONL line.
func TestZstdEvents(t *testing.T) {
	dir := copyFixture(t)
	ref := copyFixture(t)
	p := Path(dir, "main")
	seqs, lines := rawEvents(t, Path(ref, "main"), mainSession)

	w := rw(t, p)
	for i, s := range seqs {
		if !strings.Contains(lines[i], `"type":"message"`) {
			continue
		}
		mustExec(t, w, `UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ?
			WHERE session_id = ? AND seq = ?`, zstdOf(t, []byte(lines[i])), len(lines[i]), navigationJSON, mainSession, s)
	}
	var compressed int
	if err := w.QueryRow("SELECT count(*) FROM transcript_events WHERE session_id = ? AND event_json IS NULL", mainSession).Scan(&compressed); err != nil || compressed != 6 {
		t.Fatalf("compressed %d events: %v", compressed, err)
	}
	w.Close()

	before := snapshot(t, dir)
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	compareWithJSONL(t, db, mainSession, lines)
	db.Close()
	assertUnchanged(t, dir, before)

	// Now damage two payloads: garbage bytes (seq 4, a user message) and a
	// wrong recorded length (seq 11, the last assistant message).
	w = rw(t, p)
	mustExec(t, w, `UPDATE transcript_events SET event_zstd = X'28B52FFD00DEADBEEF' WHERE session_id = ? AND seq = 4`, mainSession)
	mustExec(t, w, `UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 WHERE session_id = ? AND seq = 11`, mainSession)
	w.Close()
	var warns []string
	db, err = Open(p, Options{Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var kept []string
	for i, s := range seqs {
		if s != 4 && s != 11 {
			kept = append(kept, lines[i])
		}
	}
	ref2 := jsonlOf(t, kept)
	for _, o := range optionCases {
		warns = nil
		o.Warn = func(m string) { warns = append(warns, m) }
		want, _ := transcript.ReadMessages(ref2, transcript.Options{Limit: o.Limit, IncludeTools: o.IncludeTools})
		got, err := db.Messages(mainSession, o)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMessages(got.Messages, want.Messages) {
			t.Errorf("%+v: got %d messages, want %d", o, len(got.Messages), len(want.Messages))
		}
		if o.Limit == 0 && (got.Skipped != 2 || len(warns) != 1 || !strings.Contains(warns[0], "skipped 2 unreadable events")) {
			t.Errorf("skipped=%d warns=%q", got.Skipped, warns)
		}
	}
}

// coldArchive builds a cold archive of events exactly as OpenClaw 2026.9.6's
// cold-storage worker writes one.
func coldArchive(t testing.TB, sessionID, generation string, seqs []int64, lines []string) []byte {
	t.Helper()
	var b strings.Builder
	rec := func(v any) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	rec(map[string]any{"kind": "header", "version": 1, "sessionId": sessionID, "generation": generation})
	for i, s := range seqs {
		rec(map[string]any{"kind": "event", "row": map[string]any{"seq": s, "event_json": lines[i], "created_at": 1795238200000 + s}})
	}
	for _, s := range seqs {
		rec(map[string]any{"kind": "identity", "row": map[string]any{"event_id": "x", "seq": s, "event_type": nil, "parent_id": nil, "message_idempotency_key": nil, "created_at": 1}})
	}
	return zstdOf(t, []byte(b.String()))
}

// archive moves the events with seq <= upTo of sessionID into a cold archive
// (file or embedded), as OpenClaw's cold storage does.
func archive(t testing.TB, dbPath, sessionID string, seqs []int64, lines []string, upTo int64, storage string) string {
	t.Helper()
	var cs []int64
	var cl []string
	for i, s := range seqs {
		if s <= upTo {
			cs, cl = append(cs, s), append(cl, lines[i])
		}
	}
	data := coldArchive(t, sessionID, "gen-1", cs, cl)
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:]) + ".jsonl.zst"
	var blob any
	file := ""
	if storage == "file" {
		file = filepath.Join(ColdDir(dbPath), name)
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		blob = data
	}
	raw := 0
	for _, l := range cl {
		raw += len(l)
	}
	w := rw(t, dbPath)
	defer w.Close()
	mustExec(t, w, `INSERT INTO session_transcript_cold_archives
		(session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage, archive_blob)
		VALUES (?, 'gen-1', ?, ?, ?, ?, ?, ?, 1795238300000, ?, ?)`,
		sessionID, name, hex.EncodeToString(sum[:]), len(cs), raw+len(cs)-1, len(data), cs[len(cs)-1], storage, blob)
	mustExec(t, w, `DELETE FROM transcript_events WHERE session_id = ? AND seq <= ?`, sessionID, upTo)
	var hot int
	if err := w.QueryRow("SELECT count(*) FROM transcript_events WHERE session_id = ?", sessionID).Scan(&hot); err != nil || hot != len(seqs)-len(cs) {
		t.Fatalf("%d hot events left: %v", hot, err)
	}
	return file
}

// coldCase is one way a transcript's events are archived cold: up to
// which seq, in a file under sessions/cold/ or embedded in the database.
type coldCase struct {
	name    string
	upTo    int64
	storage string
}

// coldCases are the ways TestColdArchives and TestColdArchivesStream
// archive a transcript whose last event is last.
func coldCases(last int64) []coldCase {
	return []coldCase{
		{"whole transcript in a file", last, "file"},
		{"older events in a file, newest hot", 8, "file"},
		{"embedded archive", last, "sqlite"},
	}
}

// TestColdArchives: a transcript whose events were moved to a cold archive
// (a file under sessions/cold/, or embedded in the database) reads exactly
// as before, also when its newest events are still hot; a tampered or
// missing archive is exit 10.
func TestColdArchives(t *testing.T) {
	ref := copyFixture(t)
	seqs, lines := rawEvents(t, Path(ref, "main"), mainSession)
	last := seqs[len(seqs)-1]
	for _, c := range coldCases(last) {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			file := archive(t, p, mainSession, seqs, lines, c.upTo, c.storage)
			if c.storage == "file" && !strings.HasSuffix(filepath.Dir(file), filepath.Join("agents", "main", "sessions", "cold")) {
				t.Errorf("archive at %s", file)
			}
			before := snapshot(t, dir)
			db, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			compareWithJSONL(t, db, mainSession, lines)
			res, err := db.Messages(mainSession, transcript.Options{})
			if err != nil || res.Size != last+1 {
				t.Errorf("size %d: %v", res.Size, err)
			}
			db.Close()
			assertUnchanged(t, dir, before)
			if c.storage != "file" {
				return
			}
			// Tampered: one byte changed → verification fails, exit 10.
			data, _ := os.ReadFile(file)
			data[len(data)-1] ^= 0xff
			os.WriteFile(file, data, 0o600)
			db, _ = Open(p, Options{})
			_, err = db.Messages(mainSession, transcript.Options{Limit: 2})
			if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "failed verification") {
				t.Errorf("tampered archive: %v", err)
			}
			// Missing → exit 10 naming the file.
			os.Remove(file)
			_, err = db.Messages(mainSession, transcript.Options{})
			if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), file) {
				t.Errorf("missing archive: %v", err)
			}
			db.Close()
		})
	}
}

// TestBusy: a database a writer holds locked is exit 11 once the bound has
// passed, not before and not much after — in rollback-journal mode (an
// EXCLUSIVE write transaction) and in WAL mode (a writer in exclusive
// locking mode, the one WAL configuration that shuts readers out).
func TestBusy(t *testing.T) {
	for _, mode := range []string{"delete", "wal-exclusive"} {
		t.Run(mode, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			w := rw(t, p)
			defer w.Close()
			if mode == "delete" {
				mustExec(t, w, "PRAGMA journal_mode = DELETE")
				mustExec(t, w, "BEGIN EXCLUSIVE")
			} else {
				mustExec(t, w, "PRAGMA locking_mode = EXCLUSIVE")
				mustExec(t, w, "BEGIN IMMEDIATE")
			}
			mustExec(t, w, "UPDATE session_nodes SET updated_at = updated_at WHERE session_key = 'agent:main:main'")
			if mode != "delete" {
				mustExec(t, w, "COMMIT") // exclusive locking mode keeps the lock after the commit
				mustExec(t, w, "SELECT 1")
			}
			const bound = 400 * time.Millisecond
			start := time.Now()
			db, err := Open(p, Options{BusyTimeout: bound})
			if err == nil {
				_, err = db.Store()
				db.Close()
			}
			el := time.Since(start)
			if apperr.CodeOf(err) != apperr.CodeLock {
				t.Fatalf("exit %d, want 11: %v", apperr.CodeOf(err), err)
			}
			if el < bound || el > bound+2*time.Second {
				t.Errorf("gave up after %s, bound %s", el, bound)
			}
			t.Logf("%s after %s", err, el.Round(time.Millisecond))
		})
	}
}

// TestBusyThenFree: a reader opened while the database was free sees the
// lock later (exit 11), and reads again once the writer is gone.
func TestBusyThenFree(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	w := rw(t, p)
	mustExec(t, w, "PRAGMA journal_mode = DELETE")
	db, err := Open(p, Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, w, "BEGIN EXCLUSIVE")
	mustExec(t, w, "UPDATE session_nodes SET updated_at = updated_at")
	if _, err := db.Store(); apperr.CodeOf(err) != apperr.CodeLock {
		t.Fatalf("want exit 11, got %v", err)
	}
	mustExec(t, w, "COMMIT")
	w.Close()
	if st, err := db.Store(); err != nil || len(st.Entries) != 4 {
		t.Fatalf("after the writer left: %v", err)
	}
}

// TestImmutableReread: a read of a quiescent database whose file a writer
// then changes (write + checkpoint on close) sees the new content: the
// changed stamp forces a fresh connection instead of trusting stale pages.
func TestImmutableReread(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Store()
	if err != nil || len(st.Entries) != 4 {
		t.Fatal(err)
	}
	w := rw(t, p)
	mustExec(t, w, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
		SELECT 'agent:main:new', current_session_id, entry_json, updated_at FROM session_nodes WHERE session_key = 'agent:main:main'`)
	w.Close()
	if _, err := os.Stat(p + "-wal"); err == nil {
		t.Fatal("the writer left a -wal behind")
	}
	st, err = db.Store()
	if err != nil || len(st.Entries) != 5 {
		t.Fatalf("entries=%d err=%v: stale read", len(st.Entries), err)
	}
	if db.mode != modeImmutable {
		t.Errorf("mode %s", db.mode)
	}
}

// TestLiveWAL: with a live writer (its -wal and -shm exist), the reader
// shares them like any OpenClaw reader and sees uncheckpointed commits;
// the main file and the -wal are left byte-identical.
func TestLiveWAL(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	w := liveWriter(t, p)
	mustExec(t, w, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
		SELECT 'agent:main:new', current_session_id, entry_json, updated_at FROM session_nodes WHERE session_key = 'agent:main:main'`)
	main0, _ := os.ReadFile(p)
	wal0, err := os.ReadFile(p + "-wal")
	if err != nil || len(wal0) == 0 {
		t.Fatalf("no live -wal: %v", err)
	}
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if db.mode != modeReadOnly {
		t.Errorf("mode %s with a live -wal", db.mode)
	}
	st, err := db.Store()
	db.Close()
	if err != nil || len(st.Entries) != 5 {
		t.Fatalf("entries=%d err=%v", len(st.Entries), err)
	}
	main1, _ := os.ReadFile(p)
	wal1, _ := os.ReadFile(p + "-wal")
	if string(main0) != string(main1) || string(wal0) != string(wal1) {
		t.Error("the reader changed the database or its -wal")
	}
}

// TestLeftoverSidecars: an empty -wal and a -shm left behind (as the real
// `openclaw sessions` 2026.9.6 leaves them after a read) mean a quiescent
// database: read immutable, both files untouched.
func TestLeftoverSidecars(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	os.WriteFile(p+"-wal", nil, 0o644)
	os.WriteFile(p+"-shm", make([]byte, 32768), 0o644)
	before := snapshot(t, dir)
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if db.mode != modeImmutable {
		t.Errorf("mode %s", db.mode)
	}
	if st, err := db.Store(); err != nil || len(st.Entries) != 4 {
		t.Fatal(err)
	}
	if _, err := db.Messages(mainSession, transcript.Options{Limit: 3}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	assertUnchanged(t, dir, before)
}
