package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

// UpdateOptions tunes Update.
type UpdateOptions struct {
	// LockTimeout is how long to wait for OpenClaw's store lock (the global
	// --lock-timeout); 0 means lock.DefaultTimeout (10 s).
	LockTimeout time.Duration
	// Create allows a missing store file to be created (an agent with no
	// sessions yet). Without it a missing store is exit 10.
	Create bool
	// SQLitePath is the agent's OpenClaw 2026.8+ store
	// (<state>/agents/<id>/agent/openclaw-agent.sqlite). When that file
	// exists every write is refused (exit 10) before anything is created —
	// whether or not a sessions.json is still there, since 2026.8+ no longer
	// reads it and a write to it would be silently lost.
	SQLitePath string
	// Now replaces time.Now for Tx.Now (tests).
	Now func() time.Time
}

// Timings are the measured phases of one Update, for logs and benchmarks.
type Timings struct {
	LockWait time.Duration // waiting to acquire the store lock
	Held     time.Duration // lock acquired → lock released: the window OpenClaw is blocked
	Read     time.Duration // read + parse inside the lock
	Apply    time.Duration // the caller's fn
	Render   time.Duration // building the new file
	Write    time.Duration // temp file write + fsync + rename + dir fsync
	Total    time.Duration // the whole Update call
}

// UpdateResult describes what Update did.
type UpdateResult struct {
	Path    string
	Wrote   bool     // false when fn changed nothing (no write at all)
	Created bool     // the store file did not exist before
	JSON5   bool     // the store was JSON5 and has been rewritten as strict JSON
	Touched []string // keys written by fn (Put or Delete), in call order
	Bytes   int      // size of the file written
	Mode    fs.FileMode
	// Entries holds the compact JSON of every entry fn put, as written
	// (after normalisation).
	Entries map[string]json.RawMessage
	Timings Timings
}

// ErrStoreMissing marks an Update of a missing store without Create.
var ErrStoreMissing = errors.New("session store does not exist")

// maxLockLost bounds the restarts after our lock was removed under us.
const maxLockLost = 3

// Update performs one read-modify-write of the sessions.json at path,
// excluding a live OpenClaw the way OpenClaw excludes itself (format §3.1,
// §3.2, CONTRACT §6):
//
//  1. Refuse (exit 10, nothing created) when opts.SQLitePath exists, or when
//     the store is missing and !opts.Create.
//  2. Take OpenClaw's store lock (lock.AcquireStore, opts.LockTimeout;
//     exit 11 naming the holder's pid on timeout).
//  3. Re-read the file inside the lock. An empty, truncated or non-object
//     store is refused with exit 10 and never overwritten (OpenClaw would
//     replace it with {}). A JSON5 store is accepted and rewritten as strict
//     JSON, as OpenClaw does.
//  4. Call fn with a Tx over the store. fn changes named entries only
//     (Tx.Put, Tx.Delete); an error from fn aborts with nothing written, and
//     a fn that changes nothing writes nothing. fn may be called again
//     (on a fresh Tx) if the lock was lost and the update restarted, so it
//     must derive its change from the Tx, not from earlier calls.
//  5. Write the new file like OpenClaw (JSON.stringify(store, null, 2): 2
//     spaces, no trailing newline, no HTML escaping, keys in JS order):
//     entries fn did not touch keep their raw bytes verbatim; touched
//     entries get OpenClaw's legacy migrations and delivery normalisation
//     (MigrateLegacy, NormalizeDelivery) and are re-encoded with unknown
//     fields and key order kept. The file is written to a temp file in the
//     same directory (named like OpenClaw's sessions.json.<pid>.<uuid>.tmp;
//     on Linux created unnamed with O_TMPFILE and linked to that name only
//     just before the rename, so a SIGKILL while writing leaves nothing),
//     fsynced, checked that the lock is still ours, renamed over the store,
//     and the directory is fsynced. Mode 0600, never wider than the existing
//     file's mode. The temp file is removed on every error path (and on a
//     panic in fn); temp files of dead writers are swept before locking.
//  6. Release the lock (only if it is still ours).
//
// The critical section is read + parse + fn + render + write; its length is
// reported in UpdateResult.Timings.Held.
func Update(ctx context.Context, path string, opts UpdateOptions, fn func(tx *Tx) error) (*UpdateResult, error) {
	start := time.Now()
	path, err := prepareWrite(path, &opts)
	if err != nil {
		return nil, err
	}
	if err := fsutil.CheckRegular(path); errors.Is(err, fsutil.ErrNotRegular) {
		// A directory, a FIFO, a device: refused without blocking (the read
		// inside the lock refuses one planted meanwhile the same way).
		return nil, apperr.Statef("cannot read session store %s: %w", path, unwrapPath(err))
	} else if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, apperr.Statef("cannot read session store %s: %w", path, unwrapPath(err))
		}
		if !opts.Create {
			return nil, apperr.Statef("session store %s does not exist", path).Wrap(ErrStoreMissing)
		}
	}
	sweepTemps(path, false)

	res := &UpdateResult{Path: path}
	for attempt := 1; ; attempt++ {
		lost, err := updateOnce(ctx, path, opts, fn, res)
		if err != nil {
			res.Timings.Total = time.Since(start)
			return nil, err
		}
		if !lost {
			break
		}
		if attempt >= maxLockLost {
			return nil, apperr.Lockf("session store lock %s was removed by another process %d times while held; nothing written", lock.StoreLockPath(path), attempt)
		}
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// prepareWrite is how Update and Insert start: opts.Now defaults to
// time.Now, path is made absolute, and a store whose agent has moved to the
// OpenClaw 2026.8+ SQLite store (opts.SQLitePath exists) is refused.
func prepareWrite(path string, opts *UpdateOptions) (string, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", apperr.Statef("session store path %s: %w", path, err)
	}
	if opts.SQLitePath != "" {
		if _, err := os.Stat(opts.SQLitePath); err == nil {
			return "", apperr.Statef("refusing to write %s: this agent keeps its sessions in the OpenClaw 2026.8+ SQLite store %s; sessions writes only sessions.json-era (2026.1.30) state", abs, opts.SQLitePath)
		}
	}
	return abs, nil
}

// updateOnce is one locked attempt. lost reports that the lock was taken
// from us before the rename (nothing was written; retry).
func updateOnce(ctx context.Context, path string, opts UpdateOptions, fn func(tx *Tx) error, res *UpdateResult) (lost bool, err error) {
	waitStart := time.Now()
	h, err := lock.AcquireStore(ctx, path, lock.Options{Timeout: opts.LockTimeout})
	if err != nil {
		return false, err
	}
	acquired := time.Now()
	res.Timings.LockWait += acquired.Sub(waitStart)
	defer func() {
		// Release removes the lock only if it is still ours. An ErrLockLost
		// here, after a committed write, is harmless: the lock was checked
		// right before the rename.
		_ = h.Release()
		res.Timings.Held += time.Since(acquired)
	}()

	t0 := time.Now()
	tx, err := readTx(path, opts.Now())
	if err != nil {
		return false, err
	}
	res.Timings.Read += time.Since(t0)
	if tx.missing && !opts.Create {
		return false, apperr.Statef("session store %s does not exist", path).Wrap(ErrStoreMissing)
	}

	t0 = time.Now()
	if err := fn(tx); err != nil {
		return false, err
	}
	res.Timings.Apply += time.Since(t0)
	res.Touched = tx.touched
	res.JSON5 = tx.json5
	res.Created = tx.missing
	if len(tx.touched) == 0 && !tx.json5 {
		return false, nil // nothing to write
	}

	t0 = time.Now()
	data, err := tx.render()
	if err != nil {
		return false, apperr.Errorf("encode session store %s: %v", path, err)
	}
	res.Timings.Render += time.Since(t0)

	t0 = time.Now()
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm() & 0o600
	}
	err = writeAtomic(path, data, mode, h.Check)
	res.Timings.Write += time.Since(t0)
	if err != nil {
		if errors.Is(err, lock.ErrLockLost) {
			return true, nil
		}
		return false, apperr.Errorf("write session store %s: %v", path, err)
	}
	res.Wrote = true
	res.Entries = tx.written
	res.Bytes = len(data)
	res.Mode = mode
	return false, nil
}

// Tx is the store as read inside the lock, and the changes fn makes to it.
type Tx struct {
	path    string
	now     time.Time
	missing bool
	json5   bool
	keys    []string                   // current key order (deleted keys removed)
	vals    map[string]json.RawMessage // raw values as read (verbatim bytes)
	rawKeys map[string][]byte          // quoted keys as read (verbatim bytes), by identity
	edits   map[string]*jsonx.Object   // entries replaced by Put
	touched []string
	written map[string]json.RawMessage // compact JSON of edited entries as rendered
}

// Path is the store file.
func (tx *Tx) Path() string { return tx.path }

// Now is the time the store was read inside the lock.
func (tx *Tx) Now() time.Time { return tx.now }

// Missing reports that the store file does not exist yet.
func (tx *Tx) Missing() bool { return tx.missing }

// Keys returns the keys in order.
func (tx *Tx) Keys() []string { return slices.Clone(tx.keys) }

// Len is the number of keys.
func (tx *Tx) Len() int { return len(tx.keys) }

// Has reports whether key is in the store.
func (tx *Tx) Has(key string) bool {
	_, ok := tx.vals[key]
	return ok
}

// Raw returns the current JSON of key (nil when absent): the bytes as read,
// or the encoding of an entry replaced by Put.
func (tx *Tx) Raw(key string) json.RawMessage {
	if o, ok := tx.edits[key]; ok {
		b, _ := o.MarshalJSON()
		return b
	}
	return tx.vals[key]
}

// Field returns a top-level field of the entry under key (gjson; the zero
// Result when absent).
func (tx *Tx) Field(key, field string) gjson.Result {
	if o, ok := tx.edits[key]; ok {
		return gjson.ParseBytes(o.Raw(field))
	}
	raw := tx.vals[key]
	if len(raw) == 0 || raw[0] != '{' {
		return gjson.Result{}
	}
	return gjson.GetBytes(raw, gjson.Escape(field))
}

// Entry returns an editable copy of the entry under key; ok is false when
// the key is absent or its value is not an object. Changes take effect only
// through Put.
func (tx *Tx) Entry(key string) (*jsonx.Object, bool) {
	if o, ok := tx.edits[key]; ok {
		return o.Clone(), true
	}
	raw := tx.vals[key]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	o := jsonx.NewObject()
	if err := o.UnmarshalJSON(raw); err != nil {
		return nil, false
	}
	return o, true
}

// Put stores e under key (appended at the end when key is new, as JS
// assignment does). The entry is normalised when the store is written.
func (tx *Tx) Put(key string, e *jsonx.Object) {
	if e == nil {
		e = jsonx.NewObject()
	}
	if _, ok := tx.vals[key]; !ok {
		tx.keys = append(tx.keys, key)
		tx.vals[key] = nil
	}
	tx.edits[key] = e.Clone()
	tx.touch(key)
}

// Delete removes key.
func (tx *Tx) Delete(key string) {
	if _, ok := tx.vals[key]; !ok {
		return
	}
	delete(tx.vals, key)
	delete(tx.edits, key)
	if i := slices.Index(tx.keys, key); i >= 0 {
		tx.keys = slices.Delete(tx.keys, i, i+1)
	}
	tx.touch(key)
}

// Meta returns the entry under key as it is now (fresh from the edit when
// Put), decoded into Meta; ok is false when absent or not an object.
func (tx *Tx) Meta(key string) (Meta, bool) {
	raw := tx.Raw(key)
	if len(raw) == 0 || raw[0] != '{' {
		return Meta{}, false
	}
	return parseMeta(gjson.ParseBytes(raw)), true
}

// ForEach calls fn with every key and its current raw JSON, in order, until
// fn returns false.
func (tx *Tx) ForEach(fn func(key string, raw json.RawMessage) bool) {
	for _, k := range tx.keys {
		if !fn(k, tx.Raw(k)) {
			return
		}
	}
}

func (tx *Tx) touch(key string) {
	if !slices.Contains(tx.touched, key) {
		tx.touched = append(tx.touched, key)
	}
}

// readTx reads and parses the store at path (inside the lock).
func readTx(path string, now time.Time) (*Tx, error) {
	tx := &Tx{path: path, now: now, vals: map[string]json.RawMessage{}, edits: map[string]*jsonx.Object{}}
	data, err := fsutil.ReadFileRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			tx.missing = true
			return tx, nil
		}
		return nil, apperr.Statef("cannot read session store %s: %w", path, unwrapPath(err))
	}
	if err := tx.parse(data); err != nil {
		return nil, err
	}
	return tx, nil
}

func (tx *Tx) parse(data []byte) error {
	s := &Store{Path: tx.path}
	if len(bytes.TrimSpace(data)) == 0 {
		return s.corrupt("the file is empty")
	}
	if !gjson.ValidBytes(data) {
		strict, err := fromJSON5(data)
		if err != nil {
			return s.corrupt("%v", err)
		}
		data = strict
		tx.json5 = true
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return s.corrupt("top level is %s, not an object", kindName(root))
	}
	tx.rawKeys = map[string][]byte{}
	root.ForEach(func(k, v gjson.Result) bool {
		key := keyIdentity([]byte(k.Raw), k.String())
		if _, dup := tx.vals[key]; !dup {
			tx.keys = append(tx.keys, key)
			if !tx.json5 {
				tx.rawKeys[key] = []byte(k.Raw)
			}
		}
		tx.vals[key] = rawOf(data, v) // JSON.parse: first position, last value
		return true
	})
	return nil
}

// keyIdentity is how the writer identifies a top-level key: its decoded
// value, unless decoding loses information. A lone surrogate escape such as
// "\ud83e" (OpenClaw writes one when a JS slice cuts an emoji in two) decodes
// to U+FFFD in Go, which would merge two different keys and rewrite the key
// of an entry nobody touched; such a key is identified by its quoted form as
// written, behind a NUL. Keys are written back from their raw bytes anyway
// (Tx.rawKeys), so an untouched key never changes.
func keyIdentity(raw []byte, decoded string) string {
	if hasLoneSurrogate(raw) {
		return "\x00" + string(raw)
	}
	return decoded
}

// hasLoneSurrogate reports whether the JSON string literal raw holds a \u
// escape of a surrogate that is not part of a high+low pair.
func hasLoneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // a two-byte escape (\\, \", …)
			continue
		}
		r, ok := hex4(i)
		if !ok {
			return false // not valid JSON; the parser has decided already
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xDC00 || lo >= 0xE000 {
				return true
			}
			i += 11
		case r >= 0xDC00 && r < 0xE000:
			return true
		default:
			i += 5
		}
	}
	return false
}

// render builds the file: JSON.stringify(store, null, 2).
func (tx *Tx) render() ([]byte, error) {
	keys := jsKeyOrder(tx.keys)
	if len(keys) == 0 {
		return []byte("{}"), nil
	}
	size := 4
	for _, k := range keys {
		size += len(tx.vals[k]) + len(k) + 8
	}
	out := make([]byte, 0, size+size/16)
	out = append(out, "{\n"...)
	var ind bytes.Buffer
	for i, k := range keys {
		kb := tx.rawKeys[k] // verbatim: an untouched key never changes
		if kb == nil {
			var err error
			if kb, err = jsonx.Marshal(k); err != nil {
				return nil, err
			}
		}
		out = append(out, "  "...)
		out = append(out, kb...)
		out = append(out, ": "...)
		var v []byte
		switch e, edited := tx.edits[k]; {
		case edited:
			MigrateLegacy(e)
			NormalizeDelivery(e)
			compact, err := e.MarshalJSON()
			if err != nil {
				return nil, err
			}
			v = compact
			if tx.written == nil {
				tx.written = map[string]json.RawMessage{}
			}
			tx.written[k] = compact
		default:
			v = tx.vals[k]
		}
		if tx.json5 || tx.edits[k] != nil {
			ind.Reset()
			if err := json.Indent(&ind, v, "  ", "  "); err != nil {
				return nil, fmt.Errorf("entry %q: %w", k, err)
			}
			v = ind.Bytes()
		}
		out = append(out, v...)
		if i < len(keys)-1 {
			out = append(out, ",\n"...)
		}
	}
	out = append(out, "\n}"...)
	return out, nil
}

// jsKeyOrder returns keys in the order JS enumerates an object's own string
// keys: array-index keys ("0".."4294967294" in canonical form) first in
// ascending numeric order, then the others in insertion order.
func jsKeyOrder(keys []string) []string {
	var idx []string
	for _, k := range keys {
		if isArrayIndex(k) {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	out := make([]string, 0, len(keys))
	out = append(out, idx...)
	for _, k := range keys {
		if !isArrayIndex(k) {
			out = append(out, k)
		}
	}
	return out
}

func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}

// tempName is OpenClaw's temp file name: <store>.<pid>.<uuid>.tmp.
func tempName(path string) string {
	return fmt.Sprintf("%s.%d.%s.tmp", path, os.Getpid(), uuid.NewString())
}

// writeAtomic replaces path with data: temp file in the same dir, fsync,
// check (the lock is still ours), rename, fsync of the dir. The temp file
// never survives an error (or a panic unwinding through here).
func writeAtomic(path string, data []byte, mode fs.FileMode, check func() error) (err error) {
	dir := filepath.Dir(path)
	tmp := tempName(path)
	named := false
	defer func() {
		if named && err != nil {
			os.Remove(tmp)
		}
	}()
	named, err = writeTemp(dir, tmp, data, mode)
	if err != nil {
		return err
	}
	if err = check(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	named = false
	if d, derr := fsutil.OpenDir(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeNamedTemp writes data to a new file tmp (O_EXCL), fsynced, with mode.
func writeNamedTemp(tmp string, data []byte, mode fs.FileMode) (named bool, err error) {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return false, err
	}
	named = true
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(mode); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return named, err
}

// sweepTemps removes temp files left next to path by writers that died
// (SIGKILL between creating and renaming them): names
// <base>.<pid>.<uuid>.tmp whose pid no longer exists, and, when
// ownPIDToo (we hold the store lock, so no writer of this process is
// mid-write), those of our own pid. Best effort.
func sweepTemps(path string, ownPIDToo bool) {
	dir, base := filepath.Split(path)
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := base + "."
	self := os.Getpid()
	for _, n := range names {
		if !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, ".tmp") {
			continue
		}
		mid := strings.TrimSuffix(strings.TrimPrefix(n, prefix), ".tmp")
		pidStr, id, ok := strings.Cut(mid, ".")
		if !ok || uuid.Validate(id) != nil {
			continue
		}
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 {
			continue
		}
		if (pid == self && ownPIDToo) || (pid != self && !lock.PIDAlive(pid)) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// TempFiles lists the temp files next to path (for tests and diagnostics).
func TempFiles(path string) []string {
	dir, base := filepath.Split(path)
	ents, _ := fsutil.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), base+".") && strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
