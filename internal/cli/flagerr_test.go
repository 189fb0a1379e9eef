package cli

import (
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/pflag"
)

func TestFlagErrorMessage(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--limit abc", `invalid argument "abc" for --limit: not a number`},
		{"--limit 1.5", `invalid argument "1.5" for --limit: not a number`},
		{"--limit 99999999999999999999", `invalid argument "99999999999999999999" for --limit: number out of range`},
		{"-l x", `invalid argument "x" for --limit: not a number`},
		{"--raw=perhaps", `invalid argument "perhaps" for --raw: want true or false`},
		{"--idle 5x", `invalid argument "5x" for --idle: not a duration (e.g. 30s, 5m, 1h30m)`},
		{"--status bogus", `invalid argument "bogus" for --status: want one of ok, error`},
		{"--bogus", `unknown flag: --bogus`},
		{"--limit", `flag needs an argument: --limit`},
	} {
		var status string
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.IntP("limit", "l", 0, "")
		fs.Bool("raw", false, "")
		fs.Duration("idle", 0, "")
		fs.Var(cmdutil.NewEnumValue(&status, "ok", "error"), "status", "")
		err := fs.Parse(strings.Fields(c.args))
		if err == nil {
			t.Errorf("%s: parsed", c.args)
			continue
		}
		got := FlagErrorMessage(err)
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.args, got, c.want)
		}
		if strings.Contains(got, "strconv") || strings.Contains(got, "time:") {
			t.Errorf("%s: Go internals in %q", c.args, got)
		}
	}
}

func TestRawJSONMode(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"list --bogus --json", true},
		{"--json lsit", true},
		{"list --jq .count --bogus", true},
		{"list -q .count", true},
		{"list -q.count", true},
		{"list --jq=.count", true},
		{"list --json=true", true},
		{"list --json=false --bogus", false},
		{"history main --format json --bogus", true},
		{"history main --format=json", true},
		{"history main --format text", false},
		{"list --bogus", false},
		{"send main -- --json", false},
	} {
		if got := rawJSONMode(strings.Fields(c.args)); got != c.want {
			t.Errorf("%s: %v, want %v", c.args, got, c.want)
		}
	}
}
