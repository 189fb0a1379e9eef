//go:build race

package searchindex

// raceBuild: the race detector drops a quarter of what goes back to a
// sync.Pool, so the bytes a test counts vary from run to run.
const raceBuild = true
