package sqlitefile

import "os"

// mapped is a file's content: a read-only shared mapping where the
// platform has mmap (unmap releases it), else the bytes read; nil for an
// empty file.
type mapped struct {
	data  []byte
	unmap func() error
}

// mapFile maps (or reads) path whole and returns it with the file's stamp
// taken before.
func mapFile(path string) (mapped, stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return mapped{}, stamp{}, err
	}
	defer f.Close()
	return mapOpen(f)
}

// statRegular is the stamp of an open file that must be a regular one.
func statRegular(f *os.File) (os.FileInfo, stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, stamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, stamp{}, unsupportedf("%s is not a regular file", f.Name())
	}
	return fi, stampOf(fi), nil
}
