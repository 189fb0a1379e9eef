package ops

import "strings"

// RequesterKey is the session key of the requester (--as, else
// $OPENCLAW_SESSION_KEY), "" when the operator asks: what OpenClaw's own
// tools call the "current" session.
func (o *Ops) RequesterKey() string {
	k, _ := o.as()
	return strings.TrimSpace(k)
}
