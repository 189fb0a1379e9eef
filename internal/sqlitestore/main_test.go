package sqlitestore

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir) // the 10k-session benchmark database (~350 MB)
	}
	os.Exit(code)
}
