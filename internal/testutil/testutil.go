// Package testutil locates the module's test data and copies it, for tests
// and for the helper packages below it (peertest, storegen). Only tests
// import it.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// FixtureName is the bundled OpenClaw 2026.1.30 state, under testdata/.
const FixtureName = "state-2026.1.30"

// Root returns the module's root directory: the nearest directory holding
// go.mod, from the working directory (a test's package dir) up.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.mod above the working directory")
		}
		dir = up
	}
}

// Fixture returns the absolute path of testdata/state-2026.1.30. Read it,
// never write it: copy what a test changes.
func Fixture(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(Root(tb), "testdata", FixtureName)
}

// CopyTree copies the directory src into dst (created as needed): the
// directories 0755, the files with their mode plus the owner's write bit
// (tests change their copies). It returns the first error.
func CopyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
}
