package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/pflag"
)

// FlagErrorMessage words a flag parsing error of pflag for people: a bad
// value names the flag and what is wrong with the value, never a Go internal
// (`invalid argument "abc" for --limit: not a number`, not
// `strconv.ParseInt: parsing "abc": invalid syntax`). pflag's other errors
// (unknown flag, missing value, bad syntax) are already plain words.
func FlagErrorMessage(err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		fl := iv.GetFlag()
		return fmt.Sprintf("invalid argument %q for --%s: %s", iv.GetValue(), fl.Name, valueProblem(fl, iv.Unwrap()))
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
