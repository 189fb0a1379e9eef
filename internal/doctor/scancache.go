package doctor

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/cachefile"
	"github.com/openclaw/sessions/internal/fsutil"
)

// ScanCache keeps what scanTranscript found in each transcript of one
// state dir, by the file's stamp, in the user's cache dir (never in
// OpenClaw's state): a transcript whose stamp is unchanged since it was
// scanned is not read again. On the 10,000-session JSON store, reading
// every transcript is most of a `sessions doctor` and of a one-shot
// `sessions metrics` (which counts doctor's findings), though between
// two of them (a cron's minute) few transcripts change.
//
// A stamp is a version of a file (size, mtime, inode, ctime:
// fsutil.Stamp, which has the last two on Linux only: elsewhere a rewrite
// that keeps size and mtime goes unseen, as by the tool's other caches),
// and what is kept is exactly scanTranscript's facts, so a
// doctor answered from the cache says what a full scan says. The stamp
// kept is the one the file was listed at, before it was read: a write
// after the listing either changes the stamp (the next doctor reads the
// file again) or falls in the same clock tick as the stamp's times — so
// a file written in the last few seconds (its mtime or ctime within
// recentWrite of the check's time, which is the clock's but in tests) is
// read and never kept. Nor is a file that could not be read.
//
// A missing, corrupt (bad checksum, undecodable), foreign (another
// version, state dir or line limit) or unreadable cache file is ignored
// (Ignored says why) and replaced by the next Save: never trusted.
type ScanCache struct {
	path      string
	stateDir  string
	lineBytes int64
	old       map[string]scanEntry
	next      map[string]scanEntry // what a scan found or kept (begin)
	scanned   bool                 // a scan began since the last Save
	dirty     bool
	// Ignored says why an existing cache file was not used ("" when it
	// was used or there was none).
	Ignored string
}

// scanEntry is one transcript's facts at a stamp.
type scanEntry struct {
	stamp fsutil.Stamp
	facts TranscriptFact // Path, Agent, Size, ModTime and ReadErr unset
}

// recentWrite: a transcript written this recently is scanned, not kept.
const recentWrite = 3 * time.Second

// The cache file: scanCacheMagic, the CRC-32C of the payload (u32 LE),
// the payload (internal/cachefile's envelope). scanCacheVersion changes
// whenever what is kept, or what scanTranscript finds, changes: another
// version is foreign.
const (
	scanCacheMagic   = "sessions-doctor-scan\n"
	scanCacheVersion = 1
)

// ScanCacheDir is where the caches live: os.UserCacheDir()/sessions/doctor
// ($XDG_CACHE_HOME/sessions/doctor on Linux when set).
func ScanCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sessions", "doctor"), nil
}

// OpenScanCache loads the cache of stateDir from dir, for scans whose
// oversized lines start past lineBytes (0: DefaultLimits'): an empty
// cache when there is none or it cannot be trusted.
func OpenScanCache(dir, stateDir string, lineBytes int64) *ScanCache {
	if lineBytes <= 0 {
		lineBytes = DefaultLimits.LineBytes
	}
	sum := sha256.Sum256([]byte(stateDir))
	c := &ScanCache{
		path:      filepath.Join(dir, fmt.Sprintf("%x.scan", sum[:12])),
		stateDir:  stateDir,
		lineBytes: lineBytes,
	}
	payload, why := cachefile.Read(c.path, scanCacheMagic)
	if payload == nil {
		c.Ignored = notScanCache(why)
		return c
	}
	c.old, c.Ignored = decodeScanPayload(payload, stateDir, lineBytes)
	return c
}

// Path is the cache file.
func (c *ScanCache) Path() string { return c.path }

// begin starts a scan: what it finds or keeps is what the next Save writes.
func (c *ScanCache) begin() {
	c.next, c.scanned, c.dirty = map[string]scanEntry{}, true, false
}

// get fills tf from the cache when its transcript's stamp st is the one
// the kept facts were found at; false: scan it.
func (c *ScanCache) get(tf *TranscriptFact, st fsutil.Stamp) bool {
	if c == nil {
		return false
	}
	e, ok := c.old[tf.Path]
	if !ok || !e.stamp.Equal(st) {
		return false
	}
	f := e.facts
	f.Path, f.Agent, f.Size, f.ModTime = tf.Path, tf.Agent, tf.Size, tf.ModTime
	*tf = f
	c.next[tf.Path] = e
	return true
}

// put keeps tf's facts, read after its transcript was listed at stamp
// st, unless the file was written too recently to trust its stamp (now:
// the check's time) or could not be read.
func (c *ScanCache) put(tf *TranscriptFact, st fsutil.Stamp, now time.Time) {
	if c == nil || tf.ReadErr != "" {
		return
	}
	cut := now.Add(-recentWrite)
	if !st.MTime.Before(cut) || (st.CTime != 0 && st.CTime >= cut.UnixNano()) {
		return
	}
	f := *tf
	f.Path, f.Agent, f.Size, f.ModTime, f.ReadErr = "", "", 0, time.Time{}, ""
	c.next[tf.Path] = scanEntry{stamp: st, facts: f}
	c.dirty = true
}

// Save writes the cache when the last scan changed it: what that scan
// found or kept, nothing else (a transcript gone is gone from it). A
// temporary file (0600) in a 0700 dir, synced and renamed over the old
// one (cachefile.Write): a reader sees the old cache or the new one,
// never a mix.
func (c *ScanCache) Save() error {
	if c == nil || c.path == "" || !c.scanned || (!c.dirty && len(c.next) == len(c.old)) {
		return nil
	}
	payload := encodeScanCache(c.stateDir, c.lineBytes, c.next)
	if err := cachefile.Write(c.path, scanCacheMagic, payload); err != nil {
		return err
	}
	c.old, c.next, c.scanned, c.dirty = c.next, nil, false, false
	return nil
}

// encodeScanCache is the payload: version, state dir, line limit, then
// per transcript its path, stamp and facts, numbers as (u)varints.
func encodeScanCache(stateDir string, lineBytes int64, entries map[string]scanEntry) []byte {
	b := binary.AppendUvarint(nil, scanCacheVersion)
	b = appendStr(b, stateDir)
	b = binary.AppendVarint(b, lineBytes)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for path, e := range entries {
		f := &e.facts
		b = appendStr(b, path)
		b = binary.AppendVarint(b, e.stamp.Size)
		b = binary.AppendVarint(b, e.stamp.MTime.UnixNano())
		b = binary.AppendUvarint(b, e.stamp.Ino)
		b = binary.AppendVarint(b, e.stamp.CTime)
		b = appendStr(b, f.Header)
		b = appendStr(b, f.HeaderID)
		torn := int64(0)
		if f.Torn {
			torn = 1
		}
		for _, n := range [...]int64{int64(f.Lines), int64(f.Corrupt), int64(f.FirstCorrupt), torn, int64(f.TornLine),
			int64(f.Oversize), int64(f.FirstOver), f.MaxLine, int64(f.BrokenParents), int64(f.FirstBroken)} {
			b = binary.AppendVarint(b, n)
		}
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodeScanCache reads a cache file: its entries, or why it is not used.
func decodeScanCache(data []byte, stateDir string, lineBytes int64) (map[string]scanEntry, string) {
	payload, why := cachefile.Decode(data, scanCacheMagic)
	if payload == nil {
		return nil, notScanCache(why)
	}
	return decodeScanPayload(payload, stateDir, lineBytes)
}

// notScanCache words cachefile's reason for a file of something else.
func notScanCache(why string) string {
	if why == cachefile.Foreign {
		return "not a doctor scan cache"
	}
	return why
}

// decodeScanPayload reads a cache file's payload: its entries, or why it
// is not used.
func decodeScanPayload(payload []byte, stateDir string, lineBytes int64) (map[string]scanEntry, string) {
	d := cachefile.NewDecoder(payload)
	if v := d.Uvarint(); v != scanCacheVersion {
		if d.Bad() {
			return nil, "undecodable"
		}
		return nil, fmt.Sprintf("version %d, not %d", v, scanCacheVersion)
	}
	if d.Str() != stateDir {
		return nil, "it belongs to another state dir"
	}
	if d.Varint() != lineBytes {
		return nil, "kept for another line limit"
	}
	n := d.Count(1)
	if d.Bad() {
		return nil, "undecodable"
	}
	out := make(map[string]scanEntry, n)
	for range n {
		path := d.Str()
		var e scanEntry
		e.stamp.Size = d.Varint()
		e.stamp.MTime = time.Unix(0, d.Varint())
		e.stamp.Ino = d.Uvarint()
		e.stamp.CTime = d.Varint()
		f := &e.facts
		f.Header, f.HeaderID = d.Str(), d.Str()
		var v [10]int64
		for i := range v {
			v[i] = d.Varint()
		}
		f.Lines, f.Corrupt, f.FirstCorrupt, f.Torn, f.TornLine = int(v[0]), int(v[1]), int(v[2]), v[3] == 1, int(v[4])
		f.Oversize, f.FirstOver, f.MaxLine, f.BrokenParents, f.FirstBroken = int(v[5]), int(v[6]), v[7], int(v[8]), int(v[9])
		if d.Bad() || v[3] > 1 || v[3] < 0 {
			return nil, "undecodable"
		}
		out[path] = e
	}
	if d.Len() != 0 {
		return nil, "undecodable: trailing bytes"
	}
	return out, ""
}
