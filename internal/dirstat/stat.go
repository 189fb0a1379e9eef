// Package dirstat lstats the files of a listed directory in one batch:
// where the platform allows it, one fstatat per name on one open handle of
// the directory, so a reader that re-checks thousands of transcripts does
// not walk the path to each of them again. It is a leaf (hoststat, which
// measures an agent's store files, and transcripts, which keeps the
// transcripts' headers by version, both use it).
package dirstat

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openclaw/sessions/internal/fsutil"
)

// Stat is what an lstat of one file says: enough to tell its versions
// apart (device, inode, size, modification and change times) and its type.
type Stat struct {
	OK        bool        // false: it could not be stat'ed (gone since it was listed)
	Mode      fs.FileMode // the type bits
	Size      int64
	Dev, Ino  uint64
	MtimeNano int64
	// CtimeNano is the inode's change time where the platform gives it
	// (fsutil.Stamp's CTime; 0 elsewhere): a write in place that keeps
	// the size and sets the mtime back still moves it.
	CtimeNano int64
}

// Names are the file names of one directory, prepared once for any
// number of StatNames calls.
type Names struct {
	list []string
	sys  sysNames // what the platform's stat call takes, made once
}

// NewNames prepares names (as a listing of their directory gave them).
func NewNames(names []string) *Names {
	return &Names{list: names, sys: makeSysNames(names)}
}

// List is the names, in the order given.
func (n *Names) List() []string { return n.list }

// StatNames lstats the files names of dir, as dir's listing named them,
// without following a link. Where the platform allows it each is one
// fstatat on an open handle of dir, so a reader that re-checks thousands
// of transcripts does not walk the path to each of them again. The error
// is dir's (it cannot be opened); a file's own failure leaves its Stat
// not OK.
func StatNames(dir string, names *Names) ([]Stat, error) {
	out := make([]Stat, len(names.list))
	if len(out) == 0 {
		return out, nil
	}
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return out, err
	}
	defer d.Close()
	if statAt(d, names, out) {
		return out, nil
	}
	for i, n := range names.list {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		out[i] = statOfInfo(fi)
	}
	return out, nil
}

// statOfInfo is the Stat of an lstat's answer.
func statOfInfo(fi fs.FileInfo) Stat {
	st := Stat{OK: true, Mode: fi.Mode().Type(), Size: fi.Size(), MtimeNano: fi.ModTime().UnixNano()}
	st.Dev, st.Ino, _ = fsutil.DevIno(fi)
	st.CtimeNano = fsutil.StampOf(fi).CTime
	return st
}
