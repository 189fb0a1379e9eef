package ops

import (
	"encoding/json"

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

// redactorFor is the invocation's Redactor (the defaults plus this host's
// logging.redactPatterns, compiled once), or nil when text is not masked.
func (o *Ops) redactorFor() *sanitize.Redactor {
	if !o.masking() {
		return nil
	}
	o.redactOnce.Do(func() {
		var patterns []string
		if st, err := o.openState(); err == nil && st != nil && st.Cfg != nil {
			patterns = st.Cfg.Logging.RedactPatterns
		}
		o.redactor = sanitize.NewRedactor(patterns, o.warn)
	})
	return o.redactor
}

// redactMessages masks msgs in place when text is masked and says whether
// any was: every string of each message (sanitize.MaskMessage), tool
// arguments, details and errorMessage included — beyond 9.6, which masks
// only the texts.
func (o *Ops) redactMessages(msgs []json.RawMessage) bool {
	r := o.redactorFor()
	if r == nil {
		return false
	}
	masked := false
	for i, m := range msgs {
		if out, ok := r.MaskMessage(m); ok {
			msgs[i], masked = out, true
		}
	}
	return masked
}

// redactText masks one text when text is masked.
func (o *Ops) redactText(s string) string {
	r := o.redactorFor()
	if r == nil {
		return s
	}
	out, _ := r.Redact(s)
	return out
}

// searchRedact is what masks a search hit's label, nil when texts are
// not masked.
func (o *Ops) searchRedact() func(string) string {
	if !o.masking() {
		return nil
	}
	return o.redactText
}
