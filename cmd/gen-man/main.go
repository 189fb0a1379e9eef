// Command gen-man writes the sessions man pages (`make man`): one page per
// command, reproducible byte for byte (fixed date, no version), with the
// help topics (exit codes, environment) as sections of sessions(1). The
// man-page renderer (cobra/doc and its Markdown library) is linked here
// only, not into sessions (docs/PERFORMANCE.md, "Start-up").
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/spf13/cobra/doc"
)

// ManDate is the date on every man page: fixed, so that `make man` gives
// the same bytes every time (the pages document the command tree, which
// the VCS already dates).
var ManDate = time.Date(2026, time.January, 30, 0, 0, 0, 0, time.UTC)

func main() {
	dir := flag.String("o", "docs/man", "write the pages into `DIR`")
	flag.Parse()
	if err := GenMan(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-man:", err)
		os.Exit(1)
	}
}

// GenMan writes a man page per command into dir (sessions.1,
// sessions-history.1, …). sessions(1) carries the help topics as its EXIT
// STATUS and ENVIRONMENT sections.
func GenMan(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{
		Title:   "SESSIONS",
		Section: "1",
		Date:    &ManDate,
		Source:  "sessions",
		Manual:  "sessions manual",
	}
	return doc.GenManTree(cli.ManRoot(), header, dir)
}
