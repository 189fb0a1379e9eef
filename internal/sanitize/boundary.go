package sanitize

// The agent boundary (internal/boundary) masks every string of a document
// an agent receives. Some of those strings were masked already on the way
// (a history page's texts, masked before they are cut as 9.6 cuts them),
// and masking is not idempotent (9.6 masks `API_KEY=abcdef…wxyz` again to
// `API_KEY=***`), so the boundary must know what is masked already. These
// hooks let it: Recording reports every text the Redactor masks, and
// Keeping leaves the strings the boundary vouches for as they are.

// Recording is r with rec called with every text it masks, as masked (a
// copy: r itself is shared and stays as it is).
func (r *Redactor) Recording(rec func(masked string)) *Redactor {
	if r == nil {
		return nil
	}
	c := *r
	c.rec = rec
	return &c
}

// Keeping is r with keep asked, before a string would change, whether it
// stays as it is (a copy).
func (r *Redactor) Keeping(keep func(s string) bool) *Redactor {
	if r == nil {
		return nil
	}
	c := *r
	c.keep = keep
	return &c
}

// MaskString masks one string value of a document found under the JSON
// key key ("" in an array or at the top), as MaskJSON masks the strings
// of a JSON text: whole when key (or a key above it: secret) names a
// secret, value by value when it holds JSON, else Redact. It reports
// whether the value changed.
func (r *Redactor) MaskString(key string, secret bool, s string) (string, bool) {
	if r == nil {
		return s, false
	}
	return r.maskValue(key, secret || IsSecretKey(key), s)
}

// MaskValue is MaskString for a caller that knows already whether the
// value is below a key that names a secret (secret: key itself counts).
func (r *Redactor) MaskValue(key string, secret bool, s string) (string, bool) {
	if r == nil {
		return s, false
	}
	return r.maskValue(key, secret, s)
}

// MaskKey masks an object key (a map's key in a document) as MaskJSON
// masks the keys of a JSON text.
func (r *Redactor) MaskKey(k string) (string, bool) {
	if r == nil {
		return k, false
	}
	m, changed := r.Redact(k)
	if !changed || (r.keep != nil && r.keep(k)) {
		return k, false
	}
	return m, true
}
