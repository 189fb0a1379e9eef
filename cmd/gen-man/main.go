// Command gen-man writes the sessions man pages (`make man`): one page per
// command, reproducible byte for byte (fixed date, no version), with the
// help topics (exit codes, environment) as sections of sessions(1).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/openclaw/sessions/internal/cli"
)

func main() {
	dir := flag.String("o", "docs/man", "write the pages into `DIR`")
	flag.Parse()
	if err := cli.GenMan(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-man:", err)
		os.Exit(1)
	}
}
