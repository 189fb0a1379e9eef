//go:build !linux

package store

import "io/fs"

// writeTemp writes data to the new temp file tmp, fsynced, with mode.
func writeTemp(dir, tmp string, data []byte, mode fs.FileMode) (named bool, err error) {
	return writeNamedTemp(tmp, data, mode)
}
