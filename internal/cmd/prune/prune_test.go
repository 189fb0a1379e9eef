package prune

import (
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"90m": 90 * time.Minute, "48h": 48 * time.Hour, " 30d ": 30 * 24 * time.Hour, "1.5d": 36 * time.Hour} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "30", "xd", "-1h", "0d"} {
		if _, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) accepted", in)
		}
	}
}

// The flags become the request; exactly one of --dry-run and --yes, a
// valid age and known kinds, else a usage error before anything runs.
func TestFlags(t *testing.T) {
	parse := func(args ...string) (*Options, error) {
		var got *Options
		cmd := NewCmd(&cmdutil.Factory{Flags: &cmdutil.GlobalFlags{}}, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return got, cmd.Execute()
	}
	o, err := parse("--older-than", "30d", "--kinds", "cron, hook", "--all-agents", "--yes")
	if err != nil || o.OlderThan != 30*24*time.Hour || !reflect.DeepEqual(o.Kinds, []string{"cron", "hook"}) || !o.AllAgents || o.DryRun {
		t.Fatalf("%+v %v", o, err)
	}
	for _, args := range [][]string{
		{"--older-than", "30d"},
		{"--older-than", "30d", "--yes", "--dry-run"},
		{"--older-than", "soon", "--yes"},
		{"--older-than", "30d", "--yes", "--kinds", "cron,nope"},
	} {
		if _, err := parse(args...); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%v: %v", args, err)
		}
	}
}
