// Package jsonx holds small JSON helpers shared by the readers and writers:
// an object that keeps its key order (OpenClaw writes JS insertion order, and
// a round-trip must not reorder or drop anything).
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openclaw/sessions/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// Object is a JSON object that remembers the order of its keys. Values are
// kept as raw JSON, so unknown fields survive a decode/encode round-trip
// byte for byte (modulo indentation).
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// ErrNotObject is returned when the JSON value is not an object.
var ErrNotObject = errors.New("not a JSON object")

// UnmarshalJSON decodes an object, keeping key order. A duplicated key keeps
// its first position and its last value, as JSON.parse does. The input is
// validated (gjson), copied once, and each value is a slice of that copy,
// found by one scan of the members (jsonscan): no string copy of the input
// and no decoding of the values — a 50 MB message's text is neither copied
// again nor unescaped here. (Several times faster than encoding/json's
// token reader, which matters on the hot paths — history sanitising, store
// writes.)
func (o *Object) UnmarshalJSON(data []byte) error {
	if !gjson.ValidBytes(data) {
		// What gjson refuses but encoding/json accepts (raw invalid UTF-8
		// in strings) is decoded the slow way; the rest is an error.
		return o.unmarshalTokens(data)
	}
	buf := append([]byte(nil), data...)
	sc := jsonscan.Scanner{D: buf}
	sc.SkipWS()
	if sc.I >= len(buf) || buf[sc.I] != '{' {
		return ErrNotObject
	}
	sc.I++
	o.keys = o.keys[:0]
	o.vals = map[string]json.RawMessage{}
	sc.SkipWS()
	if sc.I < len(buf) && buf[sc.I] == '}' {
		return nil
	}
	for {
		// valid JSON (gjson said so): a key, ':', a value, then ',' or '}'
		ks, ke, esc, ok := sc.Str()
		if !ok {
			return o.unmarshalTokens(data)
		}
		key := sc.Text(ks, ke, esc)
		sc.SkipWS()
		sc.I++ // ':'
		sc.SkipWS()
		start := sc.I
		if !sc.Value() {
			// nested deeper than encoding/json reads: its verdict
			return o.unmarshalTokens(data)
		}
		if _, seen := o.vals[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = json.RawMessage(buf[start:sc.I:sc.I])
		sc.SkipWS()
		if sc.I >= len(buf) || buf[sc.I] != ',' {
			return nil
		}
		sc.I++
		sc.SkipWS()
	}
}

// unmarshalTokens is UnmarshalJSON through encoding/json's token reader.
func (o *Object) unmarshalTokens(data []byte) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, new(json.RawMessage)) // its syntax error
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return ErrNotObject
	}
	o.keys = o.keys[:0]
	o.vals = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		k, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key is %T", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, seen := o.vals[k]; !seen {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	_, err = dec.Token()
	return err
}

// MarshalJSON encodes the object compactly in key order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		v := o.vals[k]
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys()) }

// Has reports whether key is present.
func (o *Object) Has(key string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[key]
	return ok
}

// Raw returns the raw JSON of key (nil if absent).
func (o *Object) Raw(key string) json.RawMessage {
	if o == nil {
		return nil
	}
	return o.vals[key]
}

// Get decodes key into v; it reports whether the key was present and decoded.
func (o *Object) Get(key string, v any) bool {
	raw := o.Raw(key)
	if raw == nil {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// String returns key as a string when it is one.
func (o *Object) String(key string) (string, bool) {
	var s string
	raw := o.Raw(key)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Number returns key as a float64 when it is a JSON number.
func (o *Object) Number(key string) (float64, bool) {
	raw := o.Raw(key)
	if len(raw) == 0 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// Bool returns key as a bool when it is one.
func (o *Object) Bool(key string) (bool, bool) {
	switch string(o.Raw(key)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Set sets key to the JSON encoding of v, appending the key when new (JS
// spread/assignment order).
func (o *Object) Set(key string, v any) error {
	raw, err := Marshal(v)
	if err != nil {
		return err
	}
	o.SetRaw(key, raw)
	return nil
}

// SetRaw sets key to raw JSON.
func (o *Object) SetRaw(key string, raw json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = raw
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if !o.Has(key) {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Clone returns a copy that shares no mutable state with o.
func (o *Object) Clone() *Object {
	c := &Object{keys: append([]string(nil), o.Keys()...), vals: make(map[string]json.RawMessage, o.Len())}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// Marshal is json.Marshal without HTML escaping (OpenClaw writes <>& raw).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// MarshalIndent is Marshal with 2-space indentation, like
// JSON.stringify(v, null, 2), with no trailing newline.
func MarshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
