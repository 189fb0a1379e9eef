package ui

import (
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

func factory(tty bool) *cmdutil.Factory {
	ios, _, _, _ := iostreams.Test()
	ios.SetStdoutTTY(tty)
	return &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: func(string) string { return "" }}, Flags: &cmdutil.GlobalFlags{},
		Getenv: func(string) string { return "" }}
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args  []string
		tty   bool
		agent string
		json  bool
		want  string // "" ok, else a piece of the usage error
	}{
		{args: nil, tty: true},
		{args: []string{"--all-agents", "--kinds", "main, GROUP", "--no-color"}, tty: true},
		{args: nil, tty: false, want: "needs a terminal"},
		{args: []string{"--kinds", "bogus"}, tty: true, want: `invalid --kinds value "bogus"`},
		{args: []string{"--all-agents"}, tty: true, agent: "ops", want: "cannot be used together"},
		{args: nil, tty: true, json: true, want: "no --json"},
		{args: []string{"extra"}, tty: true, want: "unexpected argument"},
	} {
		f := factory(c.tty)
		f.Flags.Agent, f.Flags.JSON = c.agent, c.json
		var got *Options
		cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		if c.want == "" {
			if err != nil || got == nil {
				t.Errorf("%v: %v", c.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
			continue
		}
		if apperr.CodeOf(err) != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, apperr.CodeOf(err))
		}
		if got != nil {
			t.Errorf("%v: ran despite the error", c.args)
		}
	}
	f := factory(true)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--all-agents", "--kinds", "main, GROUP", "--no-color"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.AllAgents || !got.NoColor || strings.Join(got.Kinds, ",") != "main,group" {
		t.Fatalf("options %+v", got)
	}
}
