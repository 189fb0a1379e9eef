// Command sessions lists, reads, sends into and spawns OpenClaw sessions
// directly on the state directory.
package main

import (
	"os"

	"github.com/openclaw/sessions/internal/cli"
)

//go:generate go run . completion bash -o ../../completions/sessions.bash
//go:generate go run . completion zsh -o ../../completions/_sessions
//go:generate go run . completion fish -o ../../completions/sessions.fish
//go:generate go run . completion powershell -o ../../completions/sessions.ps1

func main() { os.Exit(cli.Main(os.Args[1:])) }
