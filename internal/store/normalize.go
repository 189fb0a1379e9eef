package store

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/openclaw/sessions/internal/jsonx"
)

// Delivery-field normalisation, as OpenClaw 2026.1.30 applies it to every
// entry on every save (format §3.4: normalizeSessionEntryDelivery in
// dist/config/sessions/store.js with dist/utils/delivery-context.js), and the
// legacy migrations it applies on load (format §3.5). Pure functions over
// jsonx.Object; Update runs them on the entries it touches.

// channelAliases are normalizeMessageChannel's built-in aliases.
var channelAliases = map[string]string{
	"imsg":        "imessage",
	"google-chat": "googlechat",
	"gchat":       "googlechat",
}

// dval is one JS value of a delivery field: absent (undefined), a string or
// a number. Other JSON types count as present-but-unusable, like JS values
// that fail the typeof checks.
type dval struct {
	set   bool // not undefined/null
	isStr bool
	isNum bool
	s     string
	n     float64
	raw   json.RawMessage
}

// coalesce is JS `a ?? b`.
func coalesce(a, b dval) dval {
	if a.set {
		return a
	}
	return b
}

func dvalOf(raw json.RawMessage) dval {
	if len(raw) == 0 || string(raw) == "null" {
		return dval{}
	}
	v := dval{set: true, raw: raw}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			v.isStr, v.s = true, s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var f float64
		if json.Unmarshal(raw, &f) == nil {
			v.isNum, v.n = true, f
		}
	}
	return v
}

func strVal(s string) dval { return dval{set: true, isStr: true, s: s} }
func numVal(n float64) dval {
	return dval{set: true, isNum: true, n: n}
}

// same is JS `a === b` for the values normalisation produces.
func (v dval) same(w dval) bool {
	switch {
	case !v.set || !w.set:
		return v.set == w.set
	case v.isStr && w.isStr:
		return v.s == w.s
	case v.isNum && w.isNum:
		return v.n == w.n
	case !v.isStr && !v.isNum && !w.isStr && !w.isNum:
		return false // objects/arrays/booleans: compared by identity in JS, never equal to a fresh value
	}
	return false
}

func (v dval) json() json.RawMessage {
	switch {
	case v.isStr:
		b, _ := jsonx.Marshal(v.s)
		return b
	case v.isNum:
		b, _ := jsonx.Marshal(jsNumber(v.n))
		return b
	}
	return v.raw
}

// jsNumber makes an integral float print like JS (no exponent for ms times).
func jsNumber(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// delivery is a normalised delivery context; unset fields are undefined.
type delivery struct {
	channel, to, accountID, threadID dval
}

// normalizeChannel is normalizeMessageChannel: trimmed, lowercased, aliases
// resolved; "" → undefined.
func normalizeChannel(s string) dval {
	c := strings.ToLower(strings.TrimSpace(s))
	if c == "" {
		return dval{}
	}
	if a, ok := channelAliases[c]; ok {
		c = a
	}
	return strVal(c)
}

// normalizeDeliveryContext (delivery-context.js:3-30). Inputs are the raw
// channel/to/accountId/threadId values; nil means the context is undefined.
func normalizeDeliveryContext(channel, to, accountID, threadID dval) *delivery {
	var d delivery
	if channel.isStr {
		d.channel = normalizeChannel(channel.s)
	}
	if to.isStr {
		if t := strings.TrimSpace(to.s); t != "" {
			d.to = strVal(t)
		}
	}
	if accountID.isStr {
		if a := strings.TrimSpace(accountID.s); a != "" {
			d.accountID = strVal(a)
		}
	}
	switch {
	case threadID.isNum && !math.IsInf(threadID.n, 0) && !math.IsNaN(threadID.n):
		d.threadID = numVal(math.Trunc(threadID.n))
	case threadID.isStr:
		if t := strings.TrimSpace(threadID.s); t != "" {
			d.threadID = strVal(t)
		}
	}
	if !d.channel.set && !d.to.set && !d.accountID.set && !d.threadID.set {
		return nil
	}
	return &d
}

func (d *delivery) get() (c, t, a, th dval) {
	if d == nil {
		return
	}
	return d.channel, d.to, d.accountID, d.threadID
}

// mergeDeliveryContext: field-wise primary ?? fallback, re-normalised.
func mergeDeliveryContext(primary, fallback *delivery) *delivery {
	if primary == nil && fallback == nil {
		return nil
	}
	pc, pt, pa, pth := primary.get()
	fc, ft, fa, fth := fallback.get()
	return normalizeDeliveryContext(coalesce(pc, fc), coalesce(pt, ft), coalesce(pa, fa), coalesce(pth, fth))
}

// objField returns field name of the object raw (undefined when raw is not an
// object or lacks it).
func objField(raw json.RawMessage, name string) dval {
	if len(raw) == 0 || raw[0] != '{' {
		return dval{}
	}
	var o jsonx.Object
	if o.UnmarshalJSON(raw) != nil {
		return dval{}
	}
	return dvalOf(o.Raw(name))
}

// NormalizeDelivery applies normalizeSessionEntryDelivery to e in place and
// reports whether it changed anything. When the normalised delivery fields
// (deliveryContext.{channel,to,accountId,threadId} and lastChannel, lastTo,
// lastAccountId, lastThreadId) equal the entry's, e is left untouched.
// Otherwise deliveryContext is replaced by the normalised context (key order
// channel, to, accountId[, threadId]) and the last* fields are overwritten;
// undefined values remove the field. Existing keys keep their position, new
// ones are appended in the order deliveryContext, lastChannel, lastTo,
// lastAccountId, lastThreadId (JS object spread).
func NormalizeDelivery(e *jsonx.Object) bool {
	dcRaw := e.Raw("deliveryContext")
	var dcObj *jsonx.Object
	if len(dcRaw) > 0 && dcRaw[0] == '{' {
		dcObj = &jsonx.Object{}
		if dcObj.UnmarshalJSON(dcRaw) != nil {
			dcObj = nil
		}
	}
	dcf := func(name string) dval {
		if dcObj == nil {
			return dval{}
		}
		return dvalOf(dcObj.Raw(name))
	}
	lastChannel := dvalOf(e.Raw("lastChannel"))
	lastTo := dvalOf(e.Raw("lastTo"))
	lastAccountID := dvalOf(e.Raw("lastAccountId"))
	lastThreadID := dvalOf(e.Raw("lastThreadId"))
	// store.js: lastThreadId: entry.lastThreadId ?? entry.deliveryContext?.threadId ?? entry.origin?.threadId
	threadIn := coalesce(lastThreadID, coalesce(dcf("threadId"), objField(e.Raw("origin"), "threadId")))
	// normalizeSessionDeliveryFields
	var fromDC *delivery
	if dcObj != nil {
		fromDC = normalizeDeliveryContext(dcf("channel"), dcf("to"), dcf("accountId"), dcf("threadId"))
	}
	fromLast := normalizeDeliveryContext(coalesce(lastChannel, dvalOf(e.Raw("channel"))), lastTo, lastAccountID, threadIn)
	merged := mergeDeliveryContext(fromLast, fromDC)
	nc, nt, na, nth := merged.get()

	sameDelivery := dcf("channel").same(nc) && dcf("to").same(nt) && dcf("accountId").same(na) && dcf("threadId").same(nth)
	sameLast := lastChannel.same(nc) && lastTo.same(nt) && lastAccountID.same(na) && lastThreadID.same(nth)
	if sameDelivery && sameLast {
		return false
	}
	if merged == nil {
		if e.Has("deliveryContext") {
			e.Delete("deliveryContext")
		}
	} else {
		dc := jsonx.NewObject()
		if nc.set {
			dc.SetRaw("channel", nc.json())
		}
		if nt.set {
			dc.SetRaw("to", nt.json())
		}
		if na.set {
			dc.SetRaw("accountId", na.json())
		}
		if nth.set {
			dc.SetRaw("threadId", nth.json())
		}
		raw, _ := dc.MarshalJSON()
		e.SetRaw("deliveryContext", raw)
	}
	for _, f := range []struct {
		name string
		v    dval
	}{{"lastChannel", nc}, {"lastTo", nt}, {"lastAccountId", na}, {"lastThreadId", nth}} {
		if f.v.set {
			e.SetRaw(f.name, f.v.json())
		} else {
			e.Delete(f.name)
		}
	}
	return true
}

// MigrateLegacy applies loadSessionStore's legacy migrations (format §3.5) to
// e in place: provider → channel and lastProvider → lastChannel when the
// target is not a string; room → groupChannel when groupChannel is not a
// string; room is deleted in all cases. It reports whether e changed.
func MigrateLegacy(e *jsonx.Object) bool {
	changed := false
	move := func(from, to string) {
		if _, isStr := e.String(to); isStr {
			return
		}
		if v, ok := e.String(from); ok {
			_ = e.Set(to, v)
			e.Delete(from)
			changed = true
		}
	}
	move("provider", "channel")
	move("lastProvider", "lastChannel")
	move("room", "groupChannel")
	if e.Has("room") {
		e.Delete("room")
		changed = true
	}
	return changed
}
