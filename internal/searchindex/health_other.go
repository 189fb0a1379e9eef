//go:build !unix

package searchindex

// writable: where access(2) is not, an update's own write says.
func writable(string) error { return nil }

// freeSpace: not known here.
func freeSpace(string) (int64, bool) { return 0, false }
