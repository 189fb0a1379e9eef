package ops

import (
	"encoding/json"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/boundary"
	"github.com/openclaw/sessions/internal/sanitize"
)

// masking says whether transcript text handed out is masked: for a
// requester (--as, $OPENCLAW_SESSION_KEY) always — a secret in one session
// must not reach another agent — and for the operator with Config.Redact.
func (o *Ops) masking() bool {
	if o.cfg.Redact {
		return true
	}
	key, _ := o.as()
	return key != ""
}

// boundary is the invocation's agent boundary (internal/boundary: the
// defaults plus this host's logging.redactPatterns, compiled once, and
// what was masked so far), or nil when nothing is masked.
func (o *Ops) boundary() *boundary.Masker {
	if !o.masking() {
		return nil
	}
	o.redactOnce.Do(func() {
		o.masker = boundary.New(sanitize.NewRedactor(o.where.RedactPatterns(), o.warn))
	})
	return o.masker
}

// redactorFor is the boundary's masker for an operation's own masking on
// the way (a page masked before it is cut), or nil when text is not
// masked: what it masks is not masked again by deliver.
func (o *Ops) redactorFor() *sanitize.Redactor {
	return o.boundary().Redactor()
}

// deliver is the one way an operation's document leaves for an agent (a
// requester, or the operator's --redact): a copy with every string at
// any depth masked, and the error's message masked. With nothing masked
// it is v and err as they are. A document the boundary cannot walk is
// never handed out (an internal error, exit 1).
func deliver[T any](o *Ops, v T, err error) (T, error) {
	m := o.boundary()
	if m == nil {
		return v, err
	}
	out, berr := boundary.Apply(m, v)
	if berr != nil {
		var zero T
		return zero, apperr.Errorf("%v", berr)
	}
	return out, m.Err(err)
}

// MaskMaxMessage is the largest message (or transcript line) masked for
// a requester: 1 MiB of JSON. Masking one message is work nothing can cut
// short once begun, and a message of hostile text (thousands of
// `Authorization:` headers) costs up to ~14 µs a byte to mask: a 15 MB
// tool result would hold a core for minutes on every page that holds it,
// 1 MiB some seconds at worst (~0.1 s as transcripts are). A larger
// message reaches an agent as 9.6's placeholder for a message too large
// ("[sessions_history omitted: message too large]"), and a masked search
// reads no longer line (SearchMaskMaxLine): its size alone decides.
const MaskMaxMessage = 1 << 20

// redactMessages masks msgs in place when text is masked and says whether
// any was: every string of each message (sanitize.MaskMessage), tool
// arguments, details and errorMessage included — beyond 9.6, which masks
// only the texts. A message over MaskMaxMessage is replaced by 9.6's
// placeholder, unread.
func (o *Ops) redactMessages(msgs []json.RawMessage) bool {
	r := o.redactorFor()
	if r == nil {
		return false
	}
	masked := false
	for i, m := range msgs {
		if len(m) > MaskMaxMessage {
			msgs[i], masked = sanitize.Omitted(m), true
			continue
		}
		if out, ok := r.MaskMessage(m); ok {
			msgs[i], masked = out, true
		}
	}
	return masked
}

// searchRedact masks a text as the requester reads it (nil when nothing
// is masked): what an agent gives back of it (a label) is compared with
// the masked text, never the stored one.
func (o *Ops) searchRedact() func(string) string {
	m := o.boundary()
	if m == nil {
		return nil
	}
	return m.Text
}
