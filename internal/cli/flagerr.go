package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/pflag"
)

// FlagErrorMessage words a flag parsing error of pflag for people: the
// flag as typed and what was wrong with its value, never a Go internal
// (`invalid argument "abc" for --limit: not a number`, not
// `strconv.ParseInt: parsing "abc": invalid syntax`).
func FlagErrorMessage(err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		fl := iv.GetFlag()
		return fmt.Sprintf("invalid argument %q for --%s: %s", iv.GetValue(), fl.Name, valueProblem(fl, iv.Unwrap()))
	}
	var vr *pflag.ValueRequiredError
	if errors.As(err, &vr) {
		fl := vr.GetFlag()
		return fmt.Sprintf("flag --%s needs a value (%s)", fl.Name, placeholder(fl))
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if sh := ne.GetSpecifiedShortnames(); sh != "" {
			c := ne.GetSpecifiedName()[:1]
			if len(sh) > 1 {
				return fmt.Sprintf("unknown flag -%s in -%s", c, sh)
			}
			return fmt.Sprintf("unknown flag -%s", c)
		}
		return fmt.Sprintf("unknown flag --%s", ne.GetSpecifiedName())
	}
	var se *pflag.InvalidSyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("bad flag syntax %q", se.GetSpecifiedFlag())
	}
	return err.Error()
}

// valueProblem says what is wrong with a flag's value, by the flag's type.
func valueProblem(fl *pflag.Flag, cause error) string {
	var ee *cmdutil.EnumError
	if errors.As(cause, &ee) {
		return ee.Error()
	}
	var ne *strconv.NumError
	isRange := errors.As(cause, &ne) && errors.Is(ne.Err, strconv.ErrRange)
	switch t := fl.Value.Type(); t {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		if isRange {
			return "number out of range"
		}
		return "not a number"
	case "float32", "float64":
		if isRange {
			return "number out of range"
		}
		return "not a number"
	case "bool":
		return "want true or false"
	case "duration":
		return "not a duration (e.g. 30s, 5m, 1h30m)"
	}
	// Any other value type: its own message, minus a Go package prefix.
	msg := cause.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg[:i], ".") {
		msg = msg[i+2:]
	}
	return msg
}

// placeholder is what a flag's value looks like, for "needs a value".
func placeholder(fl *pflag.Flag) string {
	name, _ := pflag.UnquoteUsage(fl)
	switch name {
	case "":
		return "a value"
	case "int", "uint":
		return "a number"
	case "duration":
		return "a duration, e.g. 30s"
	}
	return name
}
