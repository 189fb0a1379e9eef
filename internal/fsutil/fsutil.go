// Package fsutil holds the one file-writing primitive our own state files
// (run records, the archive index) share. sessions.json and transcripts
// have their own writers, which follow OpenClaw's protocols.
package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data: a temp file in the same
// directory, written, given perm, fsynced, then renamed over path. Readers
// see the old file or the new one, never a part; the temp file is removed
// on every error path.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
