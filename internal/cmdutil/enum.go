package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// enumValue is a string flag that accepts only one of a fixed set of
// values. Its Type is the choices joined by "|", which pflag prints as the
// flag's placeholder in --help (`--send-policy allow|deny|inherit`), and a
// value outside the set fails flag parsing: a usage error (exit 2) naming
// the allowed values, before the command runs.
type enumValue struct {
	p       *string
	allowed []string
}

func (e *enumValue) String() string { return *e.p }

func (e *enumValue) Set(s string) error {
	v := strings.ToLower(strings.TrimSpace(s))
	for _, a := range e.allowed {
		if v == a {
			*e.p = a
			return nil
		}
	}
	return &EnumError{Allowed: e.allowed}
}

func (e *enumValue) Type() string { return strings.Join(e.allowed, "|") }

// EnumError is the parse error of an enum flag; the CLI words it as
// `invalid argument "x" for --flag: want one of a, b, c`.
type EnumError struct{ Allowed []string }

func (e *EnumError) Error() string {
	return fmt.Sprintf("want one of %s", strings.Join(e.Allowed, ", "))
}

// EnumVar defines on cmd a string flag restricted to allowed (compared
// case-insensitively), with def as the default ("" = unset), and completes
// it with the allowed values. usage should not name a placeholder: the
// choices are the placeholder.
func EnumVar(cmd *cobra.Command, p *string, name, def, usage string, allowed ...string) {
	enumVarOn(cmd, cmd.Flags(), p, name, def, usage, allowed)
}

// PersistentEnumVar is EnumVar for a persistent flag.
func PersistentEnumVar(cmd *cobra.Command, p *string, name, def, usage string, allowed ...string) {
	enumVarOn(cmd, cmd.PersistentFlags(), p, name, def, usage, allowed)
}

// NewEnumValue is the pflag.Value of an enum flag stored in p, for flag
// sets outside a command (EnumVar is the usual way).
func NewEnumValue(p *string, allowed ...string) pflag.Value {
	return &enumValue{p: p, allowed: allowed}
}

func enumVarOn(cmd *cobra.Command, fs *pflag.FlagSet, p *string, name, def, usage string, allowed []string) {
	*p = def
	fs.Var(NewEnumValue(p, allowed...), name, usage)
	_ = cmd.RegisterFlagCompletionFunc(name, FixedCompletions(allowed...))
}
