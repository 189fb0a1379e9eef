package cmdutil

import "context"

// Signals is what a command may ask of the process's signal handling,
// which cli.Main sets up once for every command: SIGINT and SIGTERM end
// the command's context (cmd.Context()). By default they then end the
// process as the default handlers would; a command that returns on its
// own when its context ends says so (Graceful).
type Signals interface {
	// Graceful: SIGINT/SIGTERM end cmd.Context() and the command returns
	// by itself (watch, history --follow, mcp, the runner).
	Graceful()
	// PipeErrors: a closed stdout is a write error (EPIPE), not the
	// SIGPIPE that would end the process.
	PipeErrors()
	// Detached: a closed terminal (SIGHUP) does not end the process (the
	// detached runner outlives its caller).
	Detached()
}

// GracefulSignals asks for Signals.Graceful (nothing when the command
// does not run under cli.Main: tests).
func (f *Factory) GracefulSignals() {
	if f.Signals != nil {
		f.Signals.Graceful()
	}
}

// PipeErrors asks for Signals.PipeErrors.
func (f *Factory) PipeErrors() {
	if f.Signals != nil {
		f.Signals.PipeErrors()
	}
}

// Detached asks for Signals.Detached.
func (f *Factory) Detached() {
	if f.Signals != nil {
		f.Signals.Detached()
	}
}

// OrBackground is ctx, or context.Background() when it is nil (a command's
// run called without cobra: tests).
func OrBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
