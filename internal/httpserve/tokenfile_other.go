//go:build !unix

package httpserve

import (
	"os"

	"github.com/openclaw/sessions/internal/apperr"
)

// readTokenFile reads the token file. Windows has no POSIX mode bits nor
// owner uid (a file reads as 0666 or 0444): its ACLs decide who reads
// the file, and the check is left to them.
func readTokenFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, apperr.Usagef("--token-file: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, apperr.Usagef("--token-file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, apperr.Usagef("--token-file %s is not a regular file", path)
	}
	return readAllTokenFile(f, path)
}
