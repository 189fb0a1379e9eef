package ops

import "github.com/openclaw/sessions/internal/apperr"

// hostOnly are the operations that read this host's state dir and nothing
// else: no gateway RPC of OpenClaw 2026.1.30 or 2026.9.x gives what they
// read (the transcripts' full text, usage lines, lock files, the files
// doctor checks).
var hostOnly = map[string]bool{"search": true, "usage": true, "locks": true, "doctor": true, "metrics": true}

// HostOnly reports whether the operation op (its command's name) reads
// this host's state dir only and cannot work through a gateway.
func HostOnly(op string) bool { return hostOnly[op] }

// CheckHostOnly refuses a host-only operation when the invocation names a
// gateway itself (--gateway, --context): a usage error, not a silent answer
// about this host. A gateway that comes from the environment or the current
// context is only said at debug level: those select the gateway for the
// operations that can use it. Other operations pass. A front-end calls it
// before it does anything for op; the host-only operations check it again.
func (o *Ops) CheckHostOnly(op string) error {
	if !hostOnly[op] {
		return nil
	}
	if err := o.refuseGateway(op); err != nil {
		return err
	}
	o.debug(op + " reads this host's state dir (a gateway from the environment or the current context is not used)")
	return nil
}

// refuseGateway is CheckHostOnly's refusal, without the debug line.
func (o *Ops) refuseGateway(op string) error {
	if o.cfg.Gateway != "" || len(o.cfg.Contexts) > 0 {
		return apperr.Usagef("%s reads this host's state dir only and does not work through a gateway: drop --gateway/--context, or run it on the gateway's host", op)
	}
	return nil
}
