// Package boundary is the one way a document reaches an agent: every
// string in it, at any depth, masked by construction.
//
// What an agent may see used to be decided field by field (a label here,
// a run's reply there), so every new field, command or optimisation
// reopened it. The boundary inverts that: Apply copies a whole document
// and masks every string it holds — struct fields, slice and map
// elements, map keys, strings behind pointers and interfaces, embedded
// JSON (json.RawMessage, value by value) — with the masker agents get
// (internal/sanitize: 9.6's patterns, the config's redactPatterns, values
// under keys that name a secret masked whole). Nothing is on a list: a
// field added later is masked without anyone touching this package.
//
// One rule keeps a value as it is: the boundary can prove it is masked
// already. Masking is not idempotent (9.6 masks `API_KEY=abcdef…wxyz`
// again to `API_KEY=***`), and some texts are masked on the way, before
// they are cut as 9.6 cuts a history page; a Masker remembers every text
// it masked, and a string that is one of them, or a piece of one (a cut
// text, a snippet), is left alone — it shows nothing its masked whole
// does not. Every other string is masked; a string the masker leaves as
// it is (an id, a timestamp, an enum, a session key) comes out unchanged
// because masking does not change it, not because it is exempt.
//
// A value the boundary cannot walk (a type that keeps its data in
// unexported fields and cannot be rebuilt from its JSON) is refused with
// an error, never handed out: the boundary fails closed.
package boundary

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sanitize"
)

// corpusLimit bounds the masked texts a Masker keeps for the piece test
// (bytes). Past it, a piece of a masked text is masked again like any
// other string: more masked, never less.
const corpusLimit = 32 << 20

// truncationMark is the mark 9.6 ends a cut history text with; a cut
// text is its masked whole's prefix and this mark.
const truncationMark = "\n…(truncated)…"

// Masker is one invocation's boundary: the masker and what it masked.
// It is safe for concurrent use.
type Masker struct {
	r *sanitize.Redactor // recording and keeping

	mu     sync.Mutex
	memo   map[memoKey]string  // short strings masked so far (values repeat: kinds, channels, models)
	seen   map[string]struct{} // the masked texts, up to corpusLimit bytes
	kept   int                 // the bytes of seen
	corpus strings.Builder     // the masked texts, NUL-separated, up to corpusLimit
}

// New is the boundary of one invocation over r (the defaults plus the
// host's logging.redactPatterns). A nil r masks nothing: New returns nil,
// and a nil Masker's Apply hands a document out as it is (the operator).
func New(r *sanitize.Redactor) *Masker {
	if r == nil {
		return nil
	}
	m := &Masker{seen: map[string]struct{}{}, memo: map[memoKey]string{}}
	m.r = r.Recording(m.record).Keeping(m.isKept)
	return m
}

// Redactor is the boundary's masker for the operation's own masking on
// the way (a history page masked before it is cut, a search that matches
// masked text): everything it masks is remembered, so the boundary does
// not mask it twice.
func (m *Masker) Redactor() *sanitize.Redactor {
	if m == nil {
		return nil
	}
	return m.r
}

// Text masks one text (and remembers it).
func (m *Masker) Text(s string) string {
	if m == nil {
		return s
	}
	out, _ := m.r.MaskString("", false, s)
	return out
}

func (m *Masker) record(masked string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seen[masked]; ok || m.kept+len(masked) > corpusLimit {
		return
	}
	m.seen[masked] = struct{}{}
	m.kept += len(masked)
	if m.corpus.Len()+len(masked)+1 <= corpusLimit {
		m.corpus.WriteString(masked)
		m.corpus.WriteByte(0)
	}
}

// isKept reports whether s is a text this Masker masked, or made of pieces
// of them: a masked text cut (9.6's truncation mark after a prefix), a
// snippet of one.
func (m *Masker) isKept(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seen[s]; ok {
		return true
	}
	if strings.IndexByte(s, 0) >= 0 || m.corpus.Len() == 0 {
		return false
	}
	all := m.corpus.String()
	for _, piece := range strings.Split(s, truncationMark) {
		if piece != "" && !strings.Contains(all, piece) {
			return false
		}
	}
	return true
}

// Err is err with its message masked (an error an agent receives says
// what a turn or a transcript said). A typed error keeps its code.
func (m *Masker) Err(err error) error {
	if m == nil || err == nil {
		return err
	}
	var e *apperr.Error
	if errors.As(err, &e) {
		msg := m.Text(e.Msg)
		if msg == e.Msg {
			return err
		}
		c := *e
		c.Msg = msg
		return &c
	}
	msg := m.Text(err.Error())
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// Apply is v as an agent may receive it: a copy with every string at any
// depth masked (v itself, which may share memory with a cache, is never
// changed). A nil Masker returns v as it is. A value it cannot walk is
// an error, and the zero T.
func Apply[T any](m *Masker, v T) (T, error) {
	if m == nil {
		return v, nil
	}
	in := reflect.ValueOf(&v).Elem()
	out, err := m.walk(in, "", false, 0)
	if err != nil {
		var zero T
		return zero, err
	}
	return out.Interface().(T), nil
}

// maxDepth bounds the walk (documents are shallow; a cycle is refused).
const maxDepth = 64

var (
	rawType       = reflect.TypeOf(json.RawMessage(nil))
	timeType      = reflect.TypeOf(time.Time{})
	marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	unmarshalType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

// walk returns a masked copy of v (of v's type). key is the JSON name v
// is found under ("" in a slice), secret whether a key above it names a
// secret.
func (m *Masker) walk(v reflect.Value, key string, secret bool, depth int) (reflect.Value, error) {
	t := v.Type()
	if depth > maxDepth {
		return reflect.Value{}, fmt.Errorf("agent boundary: %s nested deeper than %d", t, maxDepth)
	}
	out := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		out.SetString(m.value(key, secret, v.String()))
		return out, nil
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.Func, reflect.Chan:
		// numbers and flags carry no text; functions and channels are
		// not data (no encoding writes them)
		out.Set(v)
		return out, nil
	case reflect.Pointer:
		if v.IsNil() {
			return out, nil
		}
		e, err := m.walk(v.Elem(), key, secret, depth+1)
		if err != nil {
			return reflect.Value{}, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		out.Set(p)
		return out, nil
	case reflect.Interface:
		if v.IsNil() {
			return out, nil
		}
		e, err := m.walk(v.Elem(), key, secret, depth+1)
		if err != nil {
			return reflect.Value{}, err
		}
		out.Set(e)
		return out, nil
	case reflect.Slice:
		if v.IsNil() {
			return out, nil
		}
		if t == rawType || (t.Elem().Kind() == reflect.Uint8 && t.ConvertibleTo(rawType) && t.Name() != "") {
			return m.rawJSON(v, key, secret)
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return reflect.Value{}, fmt.Errorf("agent boundary: cannot mask bytes of %s", t)
		}
		s := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			e, err := m.walk(v.Index(i), "", secret, depth+1)
			if err != nil {
				return reflect.Value{}, err
			}
			s.Index(i).Set(e)
		}
		out.Set(s)
		return out, nil
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			e, err := m.walk(v.Index(i), "", secret, depth+1)
			if err != nil {
				return reflect.Value{}, err
			}
			out.Index(i).Set(e)
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return out, nil
		}
		mp := reflect.MakeMapWithSize(t, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			name := ""
			if k.Kind() == reflect.String {
				name = k.String()
				if mk, changed := m.r.MaskKey(name); changed {
					nk := reflect.New(k.Type()).Elem()
					nk.SetString(mk)
					k = nk
				}
			} else if k.Kind() != reflect.Bool && !isNumber(k.Kind()) {
				return reflect.Value{}, fmt.Errorf("agent boundary: cannot mask keys of %s", t)
			}
			e, err := m.walk(iter.Value(), name, secret || IsSecret(name), depth+1)
			if err != nil {
				return reflect.Value{}, err
			}
			mp.SetMapIndex(k, e)
		}
		out.Set(mp)
		return out, nil
	case reflect.Struct:
		return m.walkStruct(v, key, secret, depth)
	}
	return reflect.Value{}, fmt.Errorf("agent boundary: cannot mask a %s", t)
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// memoKey is a short string masked under a key (what masking a value
// depends on besides the value: the key, and whether it is a secret's).
type memoKey struct {
	key, s string
	secret bool
}

// memoMax is the longest string whose masking is remembered.
const memoMax = 256

// value masks one string value. A short one is masked once per Masker:
// documents repeat their values (a listing's kinds, channels, agents and
// models), and masking a string depends only on it, its key and whether
// that is a secret's — and on what this Masker masked before, which only
// grows: a string kept once stays kept.
func (m *Masker) value(key string, secret bool, s string) string {
	if s == "" {
		return s
	}
	if len(s) > memoMax || len(key) > memoMax {
		out, _ := m.r.MaskValue(key, secret, s)
		return out
	}
	k := memoKey{key: key, s: s, secret: secret}
	m.mu.Lock()
	out, ok := m.memo[k]
	m.mu.Unlock()
	if ok {
		return out
	}
	out, _ = m.r.MaskValue(key, secret, s)
	m.mu.Lock()
	if len(m.memo) < 1<<16 {
		m.memo[k] = out
	}
	m.mu.Unlock()
	return out
}

// IsSecret reports whether a document's key names a secret (its value is
// masked whole, as a transcript's is).
func IsSecret(key string) bool { return key != "" && sanitize.IsSecretKey(key) }

// walkStruct masks a struct's exported fields, each under its JSON name.
// A struct that keeps everything in unexported fields is rebuilt from its
// masked JSON, or refused.
func (m *Masker) walkStruct(v reflect.Value, key string, secret bool, depth int) (reflect.Value, error) {
	t := v.Type()
	if t == timeType {
		return v, nil
	}
	fields := fieldsOf(t)
	if len(fields) == 0 && t.NumField() > 0 {
		return m.viaJSON(v, key, secret)
	}
	out := reflect.New(t).Elem()
	// Unexported fields are copied as they are: no encoding writes them,
	// and a document that shows what it keeps there hands that out
	// through the boundary itself (ops' TestDocumentsUnexportedFields
	// lists every such document).
	out.Set(v)
	for _, f := range fields {
		e, err := m.walk(v.Field(f.index), f.name, secret || f.secret, depth+1)
		if err != nil {
			return reflect.Value{}, err
		}
		out.Field(f.index).Set(e)
	}
	return out, nil
}

// field is an exported field of a struct type: where it is, the name it
// is encoded under and whether that names a secret.
type field struct {
	index  int
	name   string
	secret bool
}

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := jsonName(f)
		fs = append(fs, field{index: i, name: name, secret: IsSecret(name)})
	}
	fieldCache.Store(t, fs)
	return fs
}

// jsonName is the name a field is encoded under (its Go name when the
// tag gives none, or when it is left out of the JSON: a text view may
// still show it).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if name, _, _ := strings.Cut(tag, ","); name != "" && name != "-" {
		return name
	}
	return f.Name
}

// rawJSON masks an embedded JSON text value by value (a transcript
// message, an entry); not JSON, it becomes one masked string.
func (m *Masker) rawJSON(v reflect.Value, key string, secret bool) (reflect.Value, error) {
	raw := v.Convert(rawType).Interface().(json.RawMessage)
	if len(raw) == 0 {
		return v, nil
	}
	var out json.RawMessage
	if secret {
		// everything below a secret-naming key is masked whole
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			doc = string(raw)
		}
		b, err := json.Marshal(map[string]any{"secret": doc})
		if err != nil {
			return reflect.Value{}, err
		}
		masked, _ := m.r.MaskMessage(b)
		var back map[string]json.RawMessage
		if err := json.Unmarshal(masked, &back); err != nil {
			return reflect.Value{}, err
		}
		out = back["secret"]
	} else {
		out, _ = m.r.MaskMessage(raw)
		out = append(json.RawMessage(nil), out...)
	}
	r := reflect.New(v.Type()).Elem()
	r.Set(reflect.ValueOf(out).Convert(v.Type()))
	return r, nil
}

// viaJSON masks a value whose data is not in exported fields (an
// order-keeping JSON object) through its JSON: encoded, masked, decoded
// into a new value. A type that cannot be decoded again is refused.
func (m *Masker) viaJSON(v reflect.Value, key string, secret bool) (reflect.Value, error) {
	t := v.Type()
	if !t.Implements(marshalerType) && !reflect.PointerTo(t).Implements(marshalerType) {
		// no JSON of its own: nothing of it is encoded or shown
		return v, nil
	}
	if !reflect.PointerTo(t).Implements(unmarshalType) {
		return reflect.Value{}, fmt.Errorf("agent boundary: %s keeps its data unexported and cannot be rebuilt from its JSON", t)
	}
	p := reflect.New(t)
	p.Elem().Set(v)
	raw, err := json.Marshal(p.Interface())
	if err != nil {
		return reflect.Value{}, err
	}
	mv, err := m.rawJSON(reflect.ValueOf(json.RawMessage(raw)), key, secret)
	if err != nil {
		return reflect.Value{}, err
	}
	q := reflect.New(t)
	if err := json.Unmarshal(mv.Interface().(json.RawMessage), q.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("agent boundary: %s: %v", t, err)
	}
	return q.Elem(), nil
}
