//go:build !linux

package lock

import "os"

func createTmpfile(path string, payload []byte) (*os.File, os.FileInfo, bool, error) {
	return nil, nil, false, nil
}
