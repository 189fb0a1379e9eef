package dirstat

import (
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

// dirent is one record's name (in the arena) and type.
type dirent struct {
	off, end uint32
	typ      uint8
}

// The fields of a linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

func listFd(fd int) (map[string]fs.FileMode, error) {
	buf := make([]byte, listBuf)
	var arena []byte
	var ents []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		arena, ents = parseDirents(buf[:n], arena, ents)
	}
	// one string holds every name; the map's keys are slices of it
	all := unsafe.String(unsafe.SliceData(arena), len(arena))
	m := make(map[string]fs.FileMode, len(ents))
	unknown := false
	for _, e := range ents {
		t, ok := dtMode(e.typ)
		if !ok || forceUnknown {
			unknown = true
			continue
		}
		m[all[e.off:e.end]] = t
	}
	if !unknown {
		return m, nil
	}
	if beforeTypeLookup != nil {
		beforeTypeLookup()
	}
	var st unix.Stat_t
	for _, e := range ents {
		if _, ok := dtMode(e.typ); ok && !forceUnknown {
			continue
		}
		name := all[e.off:e.end]
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		for err == unix.EINTR {
			err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		}
		switch {
		case errors.Is(err, unix.ENOENT):
			continue // gone since it was listed
		case err != nil:
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		m[name] = typeOf(uint32(st.Mode)) //nolint:unconvert // uint16 on some platforms
	}
	return m, nil
}

// parseDirents appends the names of b's records to arena and their
// entries to ents ("." and "..", and records of no inode, left out).
func parseDirents(b, arena []byte, ents []dirent) ([]byte, []dirent) {
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
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
			continue
		}
		off := uint32(len(arena))
		arena = append(arena, name...)
		ents = append(ents, dirent{off: off, end: uint32(len(arena)), typ: rec[direntType]})
	}
	return arena, ents
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
