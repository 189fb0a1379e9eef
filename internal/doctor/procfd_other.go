//go:build !linux

package doctor

// procFDs: openers can tell who has a file open.
const procFDs = false

// openers is Linux-only (/proc/<pid>/fd); elsewhere nobody is named.
func openers(paths ...string) []ProcFact { return nil }
