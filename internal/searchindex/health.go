package searchindex

import (
	"fmt"
	"os"
	"path/filepath"
)

// Problem is why the index of a state dir cannot be kept (Health): search
// still answers, by the scan, every time.
type Problem struct {
	// Check names it: "index.unwritable" (the cache dir cannot be written
	// or created), "index.owner" (a directory of it is another user's or
	// not a directory), "index.corrupt" (damaged, and it cannot be
	// rebuilt where it is), "index.space" (the cache dir's file system
	// is almost full).
	Check string
	Path  string
	Why   string
}

// lowSpace is the free space below which an index cannot be kept: a
// segment is written whole before the manifest names it.
const lowSpace = 64 << 20

// Health says what keeps the index of the state dir stateKey names from
// being kept under cacheDir (nil: nothing; an index not built yet is
// fine). It writes nothing: each directory an update would create or
// write is checked for its owner and, where this user could not write it,
// for write access; the file system for free space; the raw index, when
// there is one, is read as a search reads it.
func Health(cacheDir, stateKey string) []Problem {
	root := filepath.Join(cacheDir, stateKey)
	var out []Problem
	// The directories an update writes in, deepest first, down to the
	// first that exists (an update creates the others in it).
	dirs := []string{filepath.Join(root, "raw"), root, cacheDir}
	for d := filepath.Dir(cacheDir); d != filepath.Dir(d); d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	var existing string
	for i, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil {
			continue // not there (or under a file): made in what is above
		}
		if !fi.IsDir() {
			return append(out, Problem{Check: "index.owner", Path: d, Why: "not a directory"})
		}
		if i <= 2 { // ours: the cache dir of indexes and below
			if err := checkOwner(fi); err != nil {
				return append(out, Problem{Check: "index.owner", Path: d, Why: err.Error()})
			}
		}
		if existing == "" {
			existing = d
		}
		if i >= 2 {
			break // the cache dir or the ancestor it would be made in
		}
	}
	if existing == "" {
		return nil
	}
	if err := writable(existing); err != nil {
		out = append(out, Problem{Check: "index.unwritable", Path: existing, Why: err.Error()})
	}
	if free, ok := freeSpace(existing); ok && free < lowSpace {
		out = append(out, Problem{Check: "index.space", Path: existing,
			Why: fmt.Sprintf("%d MiB free, less than the %d MiB an update may need", free>>20, lowSpace>>20)})
	}
	if len(out) > 0 {
		if st := inspectRaw(root); st != nil && st.Corrupt != "" {
			out = append(out, Problem{Check: "index.corrupt", Path: st.Dir, Why: st.Corrupt})
		}
	}
	return out
}

// inspectRaw is the raw index's status, when there is one.
func inspectRaw(root string) *Status {
	dir := filepath.Join(root, "raw")
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	st := inspect(dir, false, nil)
	return &st
}
