package e2e_test

import (
	"os"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

// runSessions is the `sessions` of the test scripts: cli.Main, except that
// SESSIONS_NOW_MS=<epoch ms> — TEST-ONLY, honoured by this test binary and
// never by the real one — starts the factory's clock at that time (it then
// advances in real time), so scripts can put "now" after an archive due
// time. Detached runners started by the script inherit it.
func runSessions(args []string) int {
	v := os.Getenv("SESSIONS_NOW_MS")
	if v == "" {
		return cli.Main(args)
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return cli.Main(args)
	}
	base, start := time.UnixMilli(ms), time.Now()
	f := &cmdutil.Factory{
		IO:     iostreams.System(),
		Env:    config.OSEnv(),
		Flags:  &cmdutil.GlobalFlags{},
		Now:    func() time.Time { return base.Add(time.Since(start)) },
		Getenv: os.Getenv,
	}
	return cli.Run(f, args)
}
