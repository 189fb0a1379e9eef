//go:build !linux

package dirstat

import (
	"io/fs"

	"github.com/openclaw/sessions/internal/fsutil"
)

// rawListing: ListTypes is os.File.ReadDir here.
const rawListing = false

func listTypes(dir string) (map[string]fs.FileMode, error) {
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return listReadDir(d)
}

// test hooks (the raw listing's only)
var (
	forceUnknown     bool
	beforeTypeLookup func()
)
