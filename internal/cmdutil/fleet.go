package cmdutil

import (
	"fmt"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/ops"
)

// ReportHostErrors prints one line on stderr per failed host of a fleet
// command and returns the exit (1) once the command's output — the other
// hosts' rows and the JSON "errors" array — is printed.
func ReportHostErrors(f *Factory, failed []ops.HostError) error {
	for _, h := range failed {
		fmt.Fprintf(f.IO.ErrOut, "sessions: context %s: %s\n", h.Context, h.Error)
	}
	if len(failed) > 0 {
		return apperr.Reported(apperr.CodeError)
	}
	return nil
}
