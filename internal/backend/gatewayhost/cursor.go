package gatewayhost

import (
	"github.com/openclaw/sessions/internal/backend"
)

// Cursor checks before as a gateway's cursor (exit 2 when it is none: a
// local cursor's form is said as a local reader says it).
func (g *Gateway) Cursor(before string) (backend.Cursor, error) {
	return backend.GatewayCursorOf(before)
}
