package dirstat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/openclaw/sessions/internal/fsutil"
)

// rawListing: ListTypes reads getdents64's records itself.
const rawListing = true

// listBuf is how much of the kernel's records one getdents64 reads: a
// 10,000-transcript sessions dir is ~640 KB of them, 10 reads (os's
// ReadDir reads 8 KB at a time).
const listBuf = 64 << 10

// test hooks: every type taken as DT_UNKNOWN (forceUnknown), and a
// function run before the lstats that asks for (beforeTypeLookup).
var (
	forceUnknown     bool
	beforeTypeLookup func()
)

func listTypes(dir string) (map[string]fs.FileMode, error) {
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return listReadDir(d)
	}
	var m map[string]fs.FileMode
	var lerr error
	if err := rc.Control(func(fd uintptr) { m, lerr = listFd(int(fd)) }); err != nil {
		return nil, err
	}
	return m, lerr
}

// The fields of a linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// listFd lists the directory open as fd. Each read of the kernel's
// records goes into a buffer of its own, never reused: the map's keys are
// the names where the kernel wrote them (no copy per name, no string per
// name), and the map is made once their number is known.
func listFd(fd int) (map[string]fs.FileMode, error) {
	var chunks [][]byte
	n := 0
	var buf []byte
	for {
		if buf == nil {
			buf = make([]byte, listBuf)
		}
		got, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if got <= 0 {
			break
		}
		chunks = append(chunks, buf[:got])
		n += records(buf[:got], nil)
		buf = nil
	}
	m := make(map[string]fs.FileMode, n)
	unknown := false
	for _, c := range chunks {
		records(c, func(name string, typ uint8) {
			t, ok := dtMode(typ)
			if !ok || forceUnknown {
				unknown = true
				return
			}
			m[name] = t
		})
	}
	if !unknown {
		return m, nil
	}
	if beforeTypeLookup != nil {
		beforeTypeLookup()
	}
	var st unix.Stat_t
	var lerr error
	for _, c := range chunks {
		records(c, func(name string, typ uint8) {
			if _, ok := dtMode(typ); (ok && !forceUnknown) || lerr != nil {
				return
			}
			err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			for err == unix.EINTR {
				err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			}
			switch {
			case errors.Is(err, unix.ENOENT):
				// gone since it was listed
			case err != nil:
				lerr = &fs.PathError{Op: "lstat", Path: name, Err: err}
			default:
				m[name] = typeOf(uint32(st.Mode)) //nolint:unconvert // uint16 on some platforms
			}
		})
	}
	if lerr != nil {
		return nil, lerr
	}
	return m, nil
}

// records calls fn (when not nil) with the name, as a string over b's
// bytes, and the d_type of each record of b ("." and "..", and records of
// no inode, left out), and returns how many it found.
func records(b []byte, fn func(name string, typ uint8)) int {
	n := 0
	for len(b) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
		if reclen < direntName || reclen > len(b) {
			break // not a record: the kernel's buffer ends here
		}
		rec := b[:reclen]
		b = b[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 {
			continue
		}
		name := rec[direntName:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
			continue
		}
		n++
		if fn != nil {
			fn(unsafe.String(unsafe.SliceData(name), len(name)), rec[direntType])
		}
	}
	return n
}

// dtMode is the type bits of a d_type, as os.ReadDir gives them; false
// for DT_UNKNOWN or a type it does not know (the name is lstat'ed, as
// ReadDir does).
func dtMode(t uint8) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}
