package searchindex

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Remove removes the indexes kept for the state dir stateKey names under
// cacheDir — its raw index and every masked one — each under its write
// lock (waiting for an update under way until ctx is done: ErrBusy), and
// then the state's directory when nothing else is left in it. Nothing
// else in cacheDir is touched, and a directory that is not this user's is
// refused before anything is removed. It returns the index directories
// removed (none: there was no index).
func Remove(ctx context.Context, cacheDir, stateKey string) ([]string, error) {
	root := filepath.Join(cacheDir, stateKey)
	dirs, err := indexDirs(root)
	if err != nil || dirs == nil {
		return nil, err
	}
	for _, d := range dirs { // every owner checked before the first removal
		if err := checkDirs(d); err != nil {
			return nil, err
		}
	}
	var removed []string
	for _, d := range dirs {
		ix := &Index{dir: d, segs: map[uint32]*segment{}, maps: map[uint32][]byte{}}
		if err := ix.remove(WithHolder(ctx, "remove")); err != nil {
			return removed, err
		}
		removed = append(removed, d)
	}
	if err := os.Remove(root); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if rest, rerr := os.ReadDir(root); rerr != nil || len(rest) == 0 {
			return removed, err
		} // it holds something else: not ours to remove
	}
	return removed, nil
}

// checkDirs is ensureDir's check without its writes: dir and the two
// above it are directories of this user.
func checkDirs(dir string) error {
	for _, d := range []string{filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "search index", Path: d, Err: errors.New("not a directory")}
		}
		if err := checkOwner(fi); err != nil {
			return &fs.PathError{Op: "search index", Path: d, Err: err}
		}
	}
	return nil
}

// remove removes ix's files and directory under its write lock; the lock
// file goes last, while it is held, so a writer that was waiting for it
// finds its directory gone (its update fails; its search scans).
func (ix *Index) remove(ctx context.Context) error {
	unlock, err := ix.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != "lock" {
			if err := os.Remove(filepath.Join(ix.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(filepath.Join(ix.dir, "lock")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Remove(ix.dir)
}

// indexDirs are the index directories of a state's cache dir root — its
// raw index and its masked ones (OpenMasked), by name — or none when root
// does not exist.
func indexDirs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dirs := []string{}
	for _, e := range ents {
		if n := e.Name(); e.IsDir() && (n == "raw" || strings.HasPrefix(n, "masked-")) {
			dirs = append(dirs, filepath.Join(root, n))
		}
	}
	return dirs, nil
}
