package doctor

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/delivery"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// Limits are the sizes past which a transcript is reported as oversized.
type Limits struct {
	// FileBytes: OpenClaw reads a whole transcript into memory on every turn
	// (pi's SessionManager.open), so very large files slow every turn.
	FileBytes int64
	// LineBytes: one entry this long is usually an inlined image or tool
	// dump; readers skip lines past transcript.DefaultMaxLineBytes.
	LineBytes int64
	// WALBytes: a -wal larger than its database and than this has not been
	// checkpointed for long (OpenClaw's journal_size_limit is 64 MiB).
	WALBytes int64
	// DBBytes: a database larger than this is reported with the tables
	// that take the space.
	DBBytes int64
	// MediaBytes: a base64 payload (data: URI, image data) at least this
	// long is counted as inline media.
	MediaBytes int64
}

// DefaultLimits are the reporting thresholds.
var DefaultLimits = Limits{FileBytes: 64 << 20, LineBytes: 8 << 20, WALBytes: 64 << 20, DBBytes: 1 << 30, MediaBytes: 1 << 10}

// Collect reads everything the checks look at. It never writes, never takes
// a lock and opens SQLite read-only, but for the write-lock probe of a
// database another process has open (probeWriteLock: BEGIN IMMEDIATE
// without waiting, rolled back at once). Agents the state lists are all
// read (the operator's view).
func Collect(s *state.State, now time.Time, lim Limits, cache *ScanCache) *Snapshot {
	if lim.FileBytes <= 0 {
		lim.FileBytes = DefaultLimits.FileBytes
	}
	if lim.LineBytes <= 0 {
		lim.LineBytes = DefaultLimits.LineBytes
	}
	if lim.WALBytes <= 0 {
		lim.WALBytes = DefaultLimits.WALBytes
	}
	if lim.DBBytes <= 0 {
		lim.DBBytes = DefaultLimits.DBBytes
	}
	if lim.MediaBytes <= 0 {
		lim.MediaBytes = DefaultLimits.MediaBytes
	}
	if cache != nil && cache.lineBytes != lim.LineBytes {
		cache = nil // kept for another limit: every transcript is scanned
	}
	snap := &Snapshot{StateDir: s.Dir.Path, Now: now, Limits: lim, OwnErrors: map[string]string{}}
	seenStore := map[string]bool{}
	seenDir := map[string]bool{}
	dirs := dirNames{}
	var scans []*TranscriptFact
	for _, agent := range s.AgentIDs() {
		storePath, shared := s.StorePath(agent)
		af := AgentFacts{ID: agent, Era: s.Era(agent), StorePath: storePath}
		sqlPath := s.SQLitePath(agent)
		sessDir := s.SessionsDir(agent)
		if _, err := os.Stat(sqlPath); err == nil {
			var sdb *sqlitestore.DB
			af.SQLite, sdb = collectSQLite(sqlPath, lim)
			js := dirs.glob(sessDir, "*.jsonl")
			af.LegacyBeside = append(af.LegacyBeside, js...)
			if sdb != nil {
				af.LegacyImported = importedTranscripts(sdb, js)
			}
			if fileExists(storePath) && !shared {
				af.LegacyStore = compareLegacyStore(storePath, sdb)
			}
			if sdb != nil {
				sdb.Close()
			}
			probeWriteLock(af.SQLite)
		}
		for _, pat := range []string{"*.migrated", "*.migrated.[0-9]*"} {
			m := dirs.glob(sessDir, pat)
			af.Leftovers = append(af.Leftovers, m...)
			if d := filepath.Dir(storePath); d != sessDir {
				m = dirs.glob(d, pat)
				af.Leftovers = append(af.Leftovers, m...)
			}
		}
		sort.Strings(af.Leftovers)
		if af.Era == era.SQLite {
			snap.Agents = append(snap.Agents, af)
			continue
		}
		names := map[string]string{} // transcript file name → session key
		if !seenStore[storePath] {
			seenStore[storePath] = true
			af.Store = collectStore(s, agent, storePath, shared)
			for _, e := range af.Store.Entries {
				if e.SessionID != "" {
					names[e.SessionID+".jsonl"] = e.Key
				}
				if e.SessionFile != "" {
					names[filepath.Base(e.SessionFile)] = e.Key
				}
			}
			if h, err := lock.InspectStore(storePath); err == nil && h != nil {
				snap.Locks = append(snap.Locks, lockFact("store", h, agent, storePath))
			}
		}
		for _, dir := range []string{filepath.Dir(storePath), sessDir} {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			files := dirs.glob(dir, "*.jsonl")
			for _, p := range files {
				fi, err := os.Lstat(p)
				if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
					continue // a symlinked transcript is never opened
				}
				// A FIFO, device or directory in a transcript's place is
				// scanned too: the non-blocking open refuses it, and the
				// refusal is a finding, not a silence.
				tf := &TranscriptFact{Path: p, Size: fi.Size(), Agent: agent, ModTime: fi.ModTime(), stamp: fsutil.StampOf(fi)}
				scans = append(scans, tf)
			}
			locks := dirs.glob(dir, "*.jsonl.lock")
			for _, m := range locks {
				h, err := lock.InspectTranscript(strings.TrimSuffix(m, ".lock"))
				if err != nil || h == nil {
					continue
				}
				lf := lockFact("transcript", h, agent, storePath)
				lf.SessionKey = names[strings.TrimSuffix(filepath.Base(m), ".lock")]
				snap.Locks = append(snap.Locks, lf)
			}
		}
		snap.Agents = append(snap.Agents, af)
	}
	snap.Scanned = scanAll(scans, lim, cache, now)
	snap.Cached = len(scans) - snap.Scanned
	// Hand the scanned files back to their agents, in path order.
	byAgent := map[string][]TranscriptFact{}
	for _, tf := range scans {
		byAgent[tf.Agent] = append(byAgent[tf.Agent], *tf)
	}
	for i := range snap.Agents {
		ts := byAgent[snap.Agents[i].ID]
		sort.Slice(ts, func(a, b int) bool { return ts[a].Path < ts[b].Path })
		snap.Agents[i].Transcripts = ts
	}
	collectOwn(snap, s.Dir.Path, now)
	snap.Index = collectIndex(s.Dir.Path)
	return snap
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func lockFact(kind string, h *lock.HolderInfo, agent, storePath string) LockFact {
	return LockFact{Kind: kind, Path: h.Path, AgentID: agent, StorePath: storePath, Type: h.Kind,
		PID: h.PID, Since: h.Since, Alive: h.Alive, Stale: h.Stale}
}

func collectStore(s *state.State, agent, path string, shared bool) *StoreFact {
	sf := &StoreFact{Path: path, Dir: filepath.Dir(path), Shared: shared}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sf.Missing = true
		return sf
	case err != nil:
		sf.Unreadable = err.Error()
		return sf
	case !fi.Mode().IsRegular():
		sf.Unreadable = "not a regular file"
		return sf
	}
	if err := fsutil.CheckRegular(path); err != nil {
		sf.Unreadable = err.Error()
		return sf
	}
	// through the store cache, as a list reads it (a store unchanged since
	// it was parsed is decoded from the user's cache dir), its warnings
	// dropped: JSON5 and skipped values are findings of their own
	st, err := s.Quiet().Store(agent)
	if err != nil {
		sf.Corrupt = err.Error()
		return sf
	}
	sf.JSON5, sf.Skipped = st.JSON5, st.Skipped
	for i := range st.Entries {
		e := &st.Entries[i]
		ef := EntryFact{Key: e.Key, SessionID: e.SessionID, Label: e.Label, SessionFile: e.SessionFile}
		if e.SessionID != "" {
			if err := store.ValidSessionID(e.SessionID); err != nil {
				ef.Invalid = err.Error()
			} else {
				owner := agent
				if shared {
					owner = keys.AgentOf(e.Key, s.Default, config.NormalizeAgentID)
				}
				t, err := s.Resolver.Transcript(st, e, s.SessionsDir(owner))
				switch {
				case errors.Is(err, store.ErrOutside):
					ef.Outside = err.Error()
				case err != nil:
					ef.Invalid = err.Error()
				default:
					ef.Transcript, ef.Exists = t.Path, t.Exists
					if t.Exists {
						ef.Links = store.Linked(t.Path)
					}
				}
			}
		}
		sf.Entries = append(sf.Entries, ef)
	}
	return sf
}

// collectSQLite reads an agent database's health, sizes and inline media.
// The database stays open for the caller's further reads (nil when it could
// not be read); the caller closes it.
func collectSQLite(path string, lim Limits) (*SQLiteFact, *sqlitestore.DB) {
	f := &SQLiteFact{Path: path}
	// Sizes by stat only: a descriptor of ours on the database closed
	// beside the driver's connection would drop its POSIX locks.
	if fi, err := os.Stat(path); err == nil {
		f.Size = fi.Size()
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Mode().IsRegular() {
		f.WALSize = fi.Size()
	}
	if f.WALSize > f.Size && f.WALSize > lim.WALBytes {
		f.WALOpeners = openers(path, path+"-wal")
	}
	db, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		f.Err = err.Error()
		return f, nil
	}
	h, err := db.Health()
	if err != nil {
		f.Err = err.Error()
		db.Close()
		return f, nil
	}
	f.UserVersion, f.QuickCheck, f.HasEntryValid = h.UserVersion, h.QuickCheck, h.HasEntryValid
	f.Invalid, f.InvalidCount = h.Invalid, h.InvalidCount
	if st, err := db.StoreMeta(); err == nil {
		f.Sessions = len(st.Entries)
	}
	ts, _ := db.Transcripts()
	f.Transcripts = len(ts)
	if f.Size > lim.DBBytes {
		if f.Tables, err = db.Space(5); err != nil {
			f.TablesErr = err.Error()
		}
	}
	f.Media = scanMedia(db, ts, lim.MediaBytes)
	return f, db
}

// scanAll scans the transcripts on every core, but for those whose facts
// cache holds at their stamps; what it scans, cache keeps (unless
// written within recentWrite of now). It returns how many it scanned.
func scanAll(tfs []*TranscriptFact, lim Limits, cache *ScanCache, now time.Time) int {
	todo := tfs
	if cache != nil {
		cache.begin()
		todo = nil
		for _, tf := range tfs {
			if !cache.get(tf, tf.stamp) {
				todo = append(todo, tf)
			}
		}
		defer func() {
			for _, tf := range todo {
				cache.put(tf, tf.stamp, now)
			}
		}()
	}
	work := make(chan *TranscriptFact)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64<<10)
			r := bufio.NewReaderSize(nil, 64<<10)
			for tf := range work {
				buf = scanTranscript(tf, lim, r, buf)
			}
		}()
	}
	for _, tf := range todo {
		work <- tf
	}
	close(work)
	wg.Wait()
	return len(todo)
}

// scanTranscript reads one transcript line by line: header, corrupt and
// torn lines, oversized lines, parentId links. A line longer than
// lim.LineBytes is counted and not kept in memory.
func scanTranscript(tf *TranscriptFact, lim Limits, r *bufio.Reader, buf []byte) []byte {
	f, err := fsutil.OpenRegular(tf.Path)
	if err != nil {
		tf.ReadErr = err.Error()
		return buf
	}
	defer f.Close()
	r.Reset(f)
	ids := map[string]struct{}{}
	n := 0
	for {
		line, complete, length, err := readLine(r, buf[:0], lim.LineBytes)
		if length == 0 && !complete {
			if err != nil && !errors.Is(err, io.EOF) {
				tf.ReadErr = err.Error()
			}
			break
		}
		buf = line
		n++
		tf.Lines = n
		tf.MaxLine = max(tf.MaxLine, length)
		if length > lim.LineBytes {
			tf.Oversize++
			if tf.FirstOver == 0 {
				tf.FirstOver = n
			}
			if n == 1 {
				tf.Header = "bad"
			}
			if !complete {
				break
			}
			continue
		}
		valid := utf8.Valid(line) && json.Valid(line)
		if n == 1 {
			if h := transcript.ParseHeader(line); h != nil {
				tf.HeaderID = h.ID
				ids[h.ID] = struct{}{}
			} else {
				tf.Header = "bad"
			}
		}
		switch {
		case !valid && !complete:
			tf.Torn, tf.TornLine = true, n
		case !valid:
			if n == 1 && isBlankLine(line) {
				break
			}
			if !isBlankLine(line) {
				tf.Corrupt++
				if tf.FirstCorrupt == 0 {
					tf.FirstCorrupt = n
				}
			}
		case n > 1:
			res := gjson.GetManyBytes(line, "id", "parentId")
			if p := res[1]; p.Type == gjson.String {
				if _, ok := ids[p.Str]; !ok {
					tf.BrokenParents++
					if tf.FirstBroken == 0 {
						tf.FirstBroken = n
					}
				}
			}
			if id := res[0]; id.Type == gjson.String {
				ids[id.Str] = struct{}{}
			}
		}
		if !complete {
			break
		}
	}
	if n == 0 {
		tf.Header = "missing"
	}
	return buf
}

// dirNames are the names in each directory Collect looks into, read once
// and sorted (filepath.Glob's order): a sessions dir of 10,000
// transcripts was read once per pattern, four times or five.
type dirNames map[string][]string

// glob is filepath.Glob(filepath.Join(dir, pattern)) for a pattern of
// one name (no separator), with dir taken literally: the paths of dir's
// entries whose names match. An unreadable dir has none.
func (dn dirNames) glob(dir, pattern string) []string {
	names, ok := dn[dir]
	if !ok {
		if d, err := os.Open(dir); err == nil {
			if fi, err := d.Stat(); err == nil && fi.IsDir() {
				names, _ = d.Readdirnames(-1)
				sort.Strings(names)
			}
			d.Close()
		}
		dn[dir] = names
	}
	// a name holds the literal run after a pattern's leading '*', if it
	// is to match: a cheap test before Match
	lit := ""
	if rest, ok := strings.CutPrefix(pattern, "*"); ok {
		if i := strings.IndexAny(rest, `*?[\`); i >= 0 {
			rest = rest[:i]
		}
		lit = rest
	}
	var out []string
	for _, n := range names {
		if !strings.Contains(n, lit) {
			continue
		}
		if ok, _ := filepath.Match(pattern, n); ok {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// readLine reads one line without its newline into buf, keeping at most
// limit bytes (the rest is read and dropped). complete reports a newline
// was found; length is the line's full length.
func readLine(r *bufio.Reader, buf []byte, limit int64) (line []byte, complete bool, length int64, err error) {
	for {
		frag, e := r.ReadSlice('\n')
		length += int64(len(frag))
		if int64(len(buf)) < limit+1 {
			keep := frag
			if room := limit + 1 - int64(len(buf)); int64(len(keep)) > room {
				keep = keep[:room]
			}
			buf = append(buf, keep...)
		}
		switch {
		case e == nil:
			length--
			if n := len(buf); n > 0 && buf[n-1] == '\n' {
				buf = buf[:n-1]
			}
			return buf, true, length, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return buf, false, length, e
		}
	}
}

func isBlankLine(b []byte) bool {
	return len(strings.TrimSpace(string(b))) == 0
}

// collectOwn reads our own state: runs not ended, undelivered outbox items,
// sub-agents past their archive time.
func collectOwn(snap *Snapshot, dir string, now time.Time) {
	rs := runs.Open(dir)
	recs, err := rs.List()
	if err != nil {
		snap.OwnErrors[rs.Dir()] = err.Error()
	}
	for _, r := range recs {
		if runs.Terminal(r.Status) {
			continue
		}
		snap.Runs = append(snap.Runs, RunFact{RunID: r.RunID, Path: rs.Path(r.RunID), Status: r.Status,
			SessionKey: r.Target.Key, CreatedAt: r.CreatedAt, RunnerAlive: rs.RunnerAlive(r.RunID)})
	}
	if pending, err := archive.Pending(dir); err != nil {
		snap.OwnErrors[archive.IndexPath(dir)] = err.Error()
	} else {
		for _, e := range pending {
			if e.ArchiveAtMs > now.UnixMilli() {
				continue
			}
			snap.Due = append(snap.Due, DueFact{RunID: e.RunID, ChildKey: e.ChildKey, Agent: e.Agent,
				ArchiveAtMs: e.ArchiveAtMs, RunnerAlive: rs.RunnerAlive(e.RunID)})
		}
	}
	f, err := fsutil.OpenRegular(delivery.OutboxPath(dir))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			snap.OwnErrors[delivery.OutboxPath(dir)] = err.Error()
		}
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		st := gjson.GetBytes(line, "status").Str
		if st != "failed" {
			continue
		}
		res := gjson.GetManyBytes(line, "id", "runId", "sessionKey", "error", "at")
		snap.Outbox = append(snap.Outbox, OutboxFact{Line: n, ID: res[0].Str, RunID: res[1].Str,
			SessionKey: res[2].Str, Status: st, Error: res[3].Str, At: res[4].Int()})
	}
	if err := sc.Err(); err != nil {
		snap.OwnErrors[delivery.OutboxPath(dir)] = err.Error()
	}
}
