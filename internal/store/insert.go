package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

// ErrEntryExists marks an Insert of a key that is already in the store.
var ErrEntryExists = errors.New("session entry already exists")

// Insert adds one new entry to the sessions.json at path under OpenClaw's
// store lock: the same contract as an Update whose fn Puts one new key
// (refusals, lock, re-read inside the lock, corrupt stores never written,
// temp file + fsync + rename, mode), but built for big stores. A new key
// goes at the end of the object (JS assignment order), so the new file is
// the old bytes verbatim with the entry added before the closing brace:
// nothing is rendered, and the store is scanned once (validated, every
// entry's Meta available to build).
//
// build is called inside the lock with the store as read there (Lookup
// works) and returns the entry to add; an error from build aborts with
// nothing written. The entry gets OpenClaw's normalisation like every
// entry Update writes. A key already present is refused (ErrEntryExists,
// exit 1).
//
// Anything the fast path does not take — a missing store (with
// opts.Create), a JSON5 or otherwise unusual file, an array-index key — is
// handed to Update, which decides (a corrupt store is exit 10 there).
func Insert(ctx context.Context, path string, opts UpdateOptions, key string, build func(st *Store) (*jsonx.Object, error)) (*UpdateResult, error) {
	start := time.Now()
	path, err := prepareWrite(path, &opts)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil || isArrayIndex(key) {
		return insertViaUpdate(ctx, path, opts, key, build)
	}
	sweepTemps(path, false)
	res := &UpdateResult{Path: path}
	for attempt := 1; ; attempt++ {
		lost, slow, err := insertOnce(ctx, path, opts, key, build, res)
		if err != nil {
			return nil, err
		}
		if slow {
			return insertViaUpdate(ctx, path, opts, key, build)
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

// insertOnce is one locked attempt. slow asks for the general path (nothing
// was written); lost reports that the lock was taken from us before the
// rename (nothing was written; retry).
func insertOnce(ctx context.Context, path string, opts UpdateOptions, key string, build func(st *Store) (*jsonx.Object, error), res *UpdateResult) (lost, slow bool, err error) {
	waitStart := time.Now()
	h, err := lock.AcquireStore(ctx, path, lock.Options{Timeout: opts.LockTimeout})
	if err != nil {
		return false, false, err
	}
	acquired := time.Now()
	res.Timings.LockWait += acquired.Sub(waitStart)
	defer func() {
		_ = h.Release()
		res.Timings.Held += time.Since(acquired)
	}()

	t0 := time.Now()
	const room = 64 << 10 // the new entry is written into the read buffer's spare capacity
	data, mode, err := readWithRoom(path, room)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, true, nil
		}
		return false, false, apperr.Statef("cannot read session store %s: %w", path, unwrapPath(err))
	}
	st := &Store{Path: path, Dir: filepath.Dir(path), index: map[string]int{}}
	end := closingBrace(data)
	if end < 0 || !st.parseBytes(data) {
		return false, true, nil
	}
	res.Timings.Read += time.Since(t0)
	if _, ok := st.Lookup(key); ok {
		return false, false, apperr.Errorf("session %s already exists in %s", key, path).Wrap(ErrEntryExists)
	}

	t0 = time.Now()
	e, err := build(st)
	if err != nil {
		return false, false, err
	}
	if e == nil {
		e = jsonx.NewObject()
	}
	res.Timings.Apply += time.Since(t0)

	t0 = time.Now()
	e = e.Clone()
	MigrateLegacy(e)
	NormalizeDelivery(e)
	compact, err := e.MarshalJSON()
	if err != nil {
		return false, false, apperr.Errorf("encode session entry %s: %v", key, err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, compact, "  ", "  "); err != nil {
		return false, false, apperr.Errorf("encode session entry %s: %v", key, err)
	}
	kb, err := jsonx.Marshal(key)
	if err != nil {
		return false, false, err
	}
	// data[:end] is everything up to the last non-blank byte before the
	// closing brace: '{' for an empty store, else the end of the last value.
	out := data[:end]
	if data[end-1] == '{' {
		out = append(out, "\n  "...)
	} else {
		out = append(out, ",\n  "...)
	}
	out = append(out, kb...)
	out = append(out, ": "...)
	out = append(out, ind.Bytes()...)
	out = append(out, "\n}"...)
	res.Timings.Render += time.Since(t0)

	t0 = time.Now()
	err = writeAtomic(path, out, mode, h.Check)
	res.Timings.Write += time.Since(t0)
	if err != nil {
		if errors.Is(err, lock.ErrLockLost) {
			return true, false, nil
		}
		return false, false, apperr.Errorf("write session store %s: %v", path, err)
	}
	res.Wrote = true
	res.Touched = []string{key}
	res.Entries = map[string]json.RawMessage{key: compact}
	res.Bytes = len(out)
	res.Mode = mode
	return false, false, nil
}

// readWithRoom reads the whole file into a buffer with room spare bytes of
// capacity, and returns the mode a rewrite of it must have.
func readWithRoom(path string, room int) ([]byte, fs.FileMode, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	mode := info.Mode().Perm() & 0o600
	buf := make([]byte, 0, int(info.Size())+room)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grew under us: let append double it
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, mode, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// closingBrace returns the offset just after the last non-blank byte
// before the final '}' of data, or -1 when data does not end (blanks
// aside) with a '}' preceded by something.
func closingBrace(data []byte) int {
	i := len(data) - 1
	for i >= 0 && isBlank(data[i]) {
		i--
	}
	if i < 1 || data[i] != '}' {
		return -1
	}
	i--
	for i >= 0 && isBlank(data[i]) {
		i--
	}
	if i < 0 {
		return -1
	}
	return i + 1
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// insertViaUpdate is Insert through the general Update path.
func insertViaUpdate(ctx context.Context, path string, opts UpdateOptions, key string, build func(st *Store) (*jsonx.Object, error)) (*UpdateResult, error) {
	return Update(ctx, path, opts, func(tx *Tx) error {
		if tx.Has(key) {
			return apperr.Errorf("session %s already exists in %s", key, path).Wrap(ErrEntryExists)
		}
		entries := make([]Entry, 0, tx.Len())
		tx.ForEach(func(k string, raw json.RawMessage) bool {
			if m, ok := EntryMeta(raw); ok {
				entries = append(entries, Entry{Key: k, Raw: raw, Meta: m})
			}
			return true
		})
		e, err := build(FromEntries(tx.Path(), entries, 0))
		if err != nil {
			return err
		}
		tx.Put(key, e)
		return nil
	})
}

// parseBytes is parseFast on several CPUs for a big store already in
// memory: the parts start at top-level member keys ("\n  \"", as
// loadParallel cuts them) and each part must end exactly where the next
// begins, which proves the cut; false when the store must be parsed (and
// judged) by the general path.
func (s *Store) parseBytes(data []byte) bool {
	n := min(runtime.GOMAXPROCS(0), len(data)/parallelChunk, parallelMax)
	if n < 2 {
		return s.parseFast(data)
	}
	cuts := []int{0}
	for k := 1; k < n; k++ {
		at := k * len(data) / n
		if at <= cuts[len(cuts)-1] {
			continue
		}
		w := data[at:min(at+parallelWindow, len(data))]
		i := bytes.Index(w, memberStart)
		if i < 0 {
			continue
		}
		cuts = append(cuts, at+i+len(memberStart)-1)
	}
	if len(cuts) < 2 {
		return s.parseFast(data)
	}
	cuts = append(cuts, len(data))
	chunks := make([]*chunk, len(cuts)-1)
	var abort atomic.Bool
	var wg sync.WaitGroup
	for j := range chunks {
		chunks[j] = &chunk{}
		work := func() {
			if !chunks[j].parse(data, cuts[j], cuts[j+1], j == 0, j == len(chunks)-1, &abort) {
				abort.Store(true)
			}
		}
		if j == len(chunks)-1 {
			work()
		} else {
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
	}
	wg.Wait()
	if abort.Load() {
		return false
	}
	s.adopt(chunks)
	return true
}
