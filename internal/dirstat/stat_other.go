//go:build !unix

package dirstat

import "os"

// sysNames: nothing prepared.
type sysNames struct{}

func makeSysNames([]string) sysNames { return sysNames{} }

// statAt is not available here: the caller lstats by path.
func statAt(*os.File, *Names, []Stat) bool { return false }
