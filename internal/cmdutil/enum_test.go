package cmdutil

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

func TestEnumVar(t *testing.T) {
	var v string
	cmd := &cobra.Command{Use: "x"}
	EnumVar(cmd, &v, "policy", "allow", "send policy", "allow", "deny", "inherit")
	fl := cmd.Flags().Lookup("policy")
	if fl.Value.Type() != "allow|deny|inherit" || fl.DefValue != "allow" || v != "allow" {
		t.Fatalf("type %q default %q value %q", fl.Value.Type(), fl.DefValue, v)
	}
	if err := cmd.Flags().Set("policy", " DENY "); err != nil || v != "deny" {
		t.Fatalf("DENY: %v, value %q", err, v)
	}
	err := cmd.Flags().Set("policy", "never")
	var ee *EnumError
	if !errors.As(err, &ee) || ee.Error() != "want one of allow, deny, inherit" || v != "deny" {
		t.Fatalf("never: %v (value %q)", err, v)
	}
	comp, _ := cmd.GetFlagCompletionFunc("policy")
	if comp == nil {
		t.Fatal("no completion")
	}
	if got, _ := comp(cmd, nil, "in"); len(got) != 1 || got[0] != "inherit" {
		t.Fatalf("completion %q", got)
	}
}

func TestPositional(t *testing.T) {
	cmd := &cobra.Command{Use: "send KEY MESSAGE"}
	check := Positional("KEY", "MESSAGE")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "missing KEY and MESSAGE (usage: send KEY MESSAGE)"},
		{[]string{"main"}, "missing MESSAGE (usage: send KEY MESSAGE)"},
		{[]string{"main", "hi"}, ""},
		{[]string{"main", "hi", "x"}, `too many arguments ["x"] (usage: send KEY MESSAGE)`},
	} {
		err := check(cmd, c.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}
