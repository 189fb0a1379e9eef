// Command sessions lists, reads, sends into and spawns OpenClaw sessions
// directly on the state directory.
package main

import (
	"os"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/storecache"
)

//go:generate go run . completion bash -o ../../completions/sessions.bash
//go:generate go run . completion zsh -o ../../completions/_sessions
//go:generate go run . completion fish -o ../../completions/sessions.fish
//go:generate go run . completion powershell -o ../../completions/sessions.ps1

func main() {
	// big stores parsed by an earlier process are read from the user's
	// cache dir while their files are unchanged (internal/storecache)
	storecache.UseUserCache()
	os.Exit(cli.Main(os.Args[1:]))
}
