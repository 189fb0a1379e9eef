package cli

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// the search index: never in the user's cache dir
	cache, err := os.MkdirTemp("", "cli-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
