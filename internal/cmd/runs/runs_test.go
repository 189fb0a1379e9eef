package runs

import (
	"io"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
)

// --sweep takes no other runs flag; the limit is checked first.
func TestFlags(t *testing.T) {
	parse := func(args ...string) (*Options, error) {
		var got *Options
		cmd := NewCmd(&cmdutil.Factory{Flags: &cmdutil.GlobalFlags{}}, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return got, cmd.Execute()
	}
	o, err := parse("--tree", "--limit", "all", "--source", "openclaw")
	if err != nil || !o.Tree || o.Limit.Max() != -1 || o.Source != "openclaw" {
		t.Fatalf("%+v %v", o, err)
	}
	if o, err := parse(); err != nil || o.Limit.Max() != DefaultLimit {
		t.Fatalf("default limit: %+v %v", o, err)
	}
	for _, args := range [][]string{{"--sweep", "--tree"}, {"--sweep", "--status", "ok"}, {"--limit", "0"}} {
		if _, err := parse(args...); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%v: %v", args, err)
		}
	}
}
