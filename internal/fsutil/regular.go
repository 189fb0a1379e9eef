package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/openclaw/sessions/internal/apperr"
)

// ErrNotRegular is the cause of OpenRegular's refusal of a path that is not
// a regular file (a FIFO, a device, a socket, a directory): errors.Is finds
// it through every wrapping.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError is what was found at a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // its type bits
}

func (e *NotRegularError) Error() string {
	return e.Path + ": not a regular file (" + KindOf(e.Mode) + ")"
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// NotRegularMode returns the type found when err is OpenRegular's refusal.
func NotRegularMode(err error) (fs.FileMode, bool) {
	var nr *NotRegularError
	if errors.As(err, &nr) {
		return nr.Mode, true
	}
	return 0, false
}

// notRegular is the refusal: exit 10 (corrupt or unreadable state) wherever
// it surfaces, naming the path and what it is.
func notRegular(path string, mode fs.FileMode) error {
	nr := &NotRegularError{Path: path, Mode: mode}
	return &apperr.Error{Code: apperr.CodeState, Status: "error", Msg: nr.Error(), Err: nr}
}

// KindOf names a file type for people: "fifo", "socket", "device",
// "directory", "symlink", "irregular", or "file" for a regular one.
func KindOf(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "file"
	case t&fs.ModeNamedPipe != 0:
		return "fifo"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	case t&fs.ModeDir != 0:
		return "directory"
	case t&fs.ModeSymlink != 0:
		return "symlink"
	default:
		return "irregular"
	}
}

// OpenRegular opens path for reading, following symlinks, only if it is a
// regular file. The open itself cannot block: on POSIX systems it is
// non-blocking (a FIFO without a writer, a device), the type is checked on
// the open descriptor (no stat-then-open race), and only a regular file is
// handed back, in blocking mode. Anything else is refused with an error
// whose cause is ErrNotRegular and whose exit code is 10.
//
// Every file the tool reads under the state dir is opened through it (or
// ReadFileRegular, or CheckRegular before a driver opens the path itself).
func OpenRegular(path string) (*os.File, error) { return openRegular(path, os.O_RDONLY, 0) }

// OpenFileRegular is os.OpenFile through the same non-blocking open and
// regular-file check, for the files we append to or create (transcripts,
// the outbox, logs): a FIFO in their place is refused, never waited on.
func OpenFileRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return openRegular(path, flag, perm)
}

// ReadFileRegular is os.ReadFile through OpenRegular.
func ReadFileRegular(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < 0 || int64(int(size)) != size {
		size = 0
	}
	buf := make([]byte, 0, int(size)+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// CheckRegular reports whether path, if it exists, is a regular file, for
// a file another library opens by name (the SQLite driver): by stat, which
// never blocks on a FIFO, and never by an open. An open and close of a
// database file beside a SQLite connection of this process would drop
// every POSIX lock the process holds on it (closing any descriptor of a
// file releases them all), and with them SQLite's protection of its
// writes. A missing path is its os.ErrNotExist error, as the caller's own
// open would give.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path, fi.Mode())
	}
	return nil
}

// CheckRegularIfExists is CheckRegular where a missing file is fine (the
// -wal and -shm beside a SQLite database).
func CheckRegularIfExists(path string) error {
	if err := CheckRegular(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// OpenDir opens a directory for listing or fsync, following symlinks, and
// refuses anything else without blocking (a FIFO in a directory's place
// would otherwise hold the open for good).
func OpenDir(path string) (*os.File, error) { return openDir(path) }

// ReadDir is os.ReadDir through OpenDir: the entries sorted by name.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}
