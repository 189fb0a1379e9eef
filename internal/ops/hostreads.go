package ops

import (
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
)

// HostRead is a read only a host that holds the files can answer: search,
// usage, locks, doctor, metrics. Whether the invocation's host can is the
// host's one answer — does it implement the interface (backend's optional
// interfaces: Searcher, UsageReader, LockLister, Doctor, MetricsReader) —
// and a host that cannot is refused in one sentence.
type HostRead struct {
	name string
	can  func(backend.Host) bool
}

// The host-only reads.
var (
	ReadSearch  = &HostRead{"search", implements[backend.Searcher]}
	ReadUsage   = &HostRead{"usage", implements[backend.UsageReader]}
	ReadLocks   = &HostRead{"locks", implements[backend.LockLister]}
	ReadDoctor  = &HostRead{"doctor", implements[backend.Doctor]}
	ReadMetrics = &HostRead{"metrics", implements[backend.MetricsReader]}
)

// String is the read's name, its command's.
func (r *HostRead) String() string { return r.name }

func implements[I any](h backend.Host) bool {
	_, ok := h.(I)
	return ok
}

// CanRead says whether this invocation's host can answer r, before
// anything runs: a gateway the invocation names itself (--gateway,
// --context) cannot, a usage error (exit 2) rather than a silent answer
// about this host; a gateway that comes from the environment or the
// current context only selects the gateway of the operations that can use
// one, and r reads this host (said at debug level).
func (o *Ops) CanRead(r *HostRead) error {
	if _, err := o.readHost(r); err != nil {
		return err
	}
	o.debug(r.name + " reads this host's state dir (a gateway from the environment or the current context is not used)")
	return nil
}

// readHost is the host a host-only read asks: the gateway the command line
// names, else this host's state dir. The named gateway is not dialled nor
// even resolved — whether it can is the implementation's answer, the same
// for every gateway — so a refusal comes before any other check of the
// gateway flags.
func (o *Ops) readHost(r *HostRead) (backend.Host, error) {
	h := o.where.HostOnly()
	if !r.can(h) {
		return nil, apperr.Usagef("%s reads this host's state dir only and does not work through a gateway: drop --gateway/--context, or run it on the gateway's host", r.name)
	}
	return h, nil
}
