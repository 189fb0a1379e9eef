package sqlitefile

import (
	"os"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/mapfile"
)

// mapped is a file's content: a read-only shared mapping where the
// platform has mmap (unmap releases it), else the bytes read; nil for an
// empty file.
type mapped struct {
	data  []byte
	unmap func() error
}

// mapFile maps (or reads) path whole and returns it with the file's stamp
// taken before.
func mapFile(path string) (mapped, fsutil.Stamp, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return mapped{}, fsutil.Stamp{}, err
	}
	defer f.Close()
	return mapOpen(f)
}

// mapOpen maps (or reads) an open regular file whole; a mapping outlives
// the descriptor.
func mapOpen(f *os.File) (mapped, fsutil.Stamp, error) {
	fi, st, err := statRegular(f)
	if err != nil {
		return mapped{}, st, err
	}
	if fi.Size() == 0 {
		return mapped{}, st, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return mapped{}, st, unsupportedf("%s is too large to map", f.Name())
	}
	data, err := mapfile.Map(f, int(fi.Size()))
	if err != nil {
		return mapped{}, st, err
	}
	m := mapped{data: data}
	if mapfile.Mmap {
		m.unmap = func() error { return mapfile.Unmap(data) }
	}
	return m, st, nil
}

// statRegular is the stamp of an open file that must be a regular one.
func statRegular(f *os.File) (os.FileInfo, fsutil.Stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fsutil.Stamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fsutil.Stamp{}, unsupportedf("%s is not a regular file", f.Name())
	}
	return fi, fsutil.StampOf(fi), nil
}
