// Package store reads (and, in update.go, writes) OpenClaw's per-agent
// session store, sessions.json (format §2, §3).
//
// Reading is the hot path of `sessions list`: one pass of gjson over the
// file, no per-entry allocation of a full tree. Unknown fields are never
// interpreted, only carried as raw bytes.
package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
	"unsafe"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonscan"
	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/sessionrow"
	"github.com/tidwall/gjson"
	"github.com/titanous/json5"
)

// FileName is the store's file name inside a sessions dir.
const FileName = "sessions.json"

// Store is one loaded sessions.json.
type Store struct {
	Path    string  // absolute path of sessions.json
	Dir     string  // its directory
	Missing bool    // no file yet (an agent with no sessions): empty, not an error
	JSON5   bool    // the file was not strict JSON (comments, trailing commas…)
	Entries []Entry // in file order
	Skipped int     // values that are not objects (ignored)
	index   map[string]int
	lean    bool // loaded by LoadMeta: Raw may be nil
	// indexOnce builds index on first use (a store restored from a cache,
	// Restore); nil when index is built with the entries
	indexOnce *sync.Once
}

// Entry is one key of the store with the fields the tool reads. Raw keeps
// the entry exactly as stored.
type Entry struct {
	Key string
	Raw json.RawMessage
	Meta
}

// DeliveryContext is entry.deliveryContext.
type DeliveryContext = sessionrow.DeliveryContext

// Meta holds the SessionEntry fields (format §2.2) the tool uses. Pointers
// distinguish absent from zero; strings are "" when absent or not strings.
type Meta struct {
	SessionID        string
	UpdatedAt        *float64
	SessionFile      string
	SpawnedBy        string
	Label            string
	DisplayName      string
	Channel          string
	ChatType         string
	LastChannel      string
	LastTo           string
	LastAccountID    string
	DC               *DeliveryContext
	Model            string
	ModelProvider    string
	ModelOverride    string
	ProviderOverride string
	ContextTokens    *float64
	TotalTokens      *float64
	InputTokens      *float64
	OutputTokens     *float64
	ThinkingLevel    string
	VerboseLevel     string
	SendPolicy       string
	SystemSent       *bool
	AbortedLastRun   *bool
}

// Updated returns updatedAt in ms, 0 when missing.
func (m *Meta) Updated() int64 {
	if m.UpdatedAt == nil {
		return 0
	}
	return int64(*m.UpdatedAt)
}

// Lookup returns the entry stored under key.
func (s *Store) Lookup(key string) (*Entry, bool) {
	if s == nil {
		return nil, false
	}
	if s.indexOnce != nil {
		s.indexOnce.Do(s.buildIndex)
	}
	i, ok := s.index[key]
	if !ok {
		return nil, false
	}
	return &s.Entries[i], true
}

// Load reads a store. A missing file gives an empty store (Missing=true).
// An empty, truncated or non-object file is corrupt: apperr code 10 naming
// the file. JSON5 is accepted (OpenClaw parses the store with JSON5).
func Load(path string) (*Store, error) { return load(path, false) }

// LoadMeta is Load for readers that need only keys and Meta (listing,
// lookups, completion): entries may have no Raw. A large store is then
// scanned from a read-only mapping of the file rather than a copy — about a
// third less time on a 50 MB store.
func LoadMeta(path string) (*Store, error) { return load(path, true) }

func load(path string, lean bool) (*Store, error) {
	s := &Store{Path: path, Dir: filepath.Dir(path), index: map[string]int{}, lean: lean}
	// Opened without blocking: a FIFO (or a device) is refused on its
	// descriptor, never waited on for a writer.
	if f, err := fsutil.OpenRegular(path); err == nil {
		st, err := f.Stat()
		ok := err == nil && st.Mode().IsRegular() && st.Size() >= parallelMin && st.Size() <= math.MaxInt32 &&
			s.loadParallel(f, int(st.Size()))
		f.Close()
		if ok {
			return s, nil
		}
		s.Entries, s.Skipped, s.index = nil, 0, map[string]int{}
	}
	data, err := readRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.Missing = true
			return s, nil
		}
		return nil, apperr.Statef("cannot read session store %s: %w", path, unwrapPath(err))
	}
	if err := s.parse(data); err != nil {
		return nil, err
	}
	return s, nil
}

// readRegular reads the store file through fsutil's non-blocking open: a
// directory is the "is a directory" error a read of one gives, anything
// else that is not a regular file a "not a regular file" one (exit 10).
func readRegular(path string) ([]byte, error) {
	data, err := fsutil.ReadFileRegular(path)
	if m, ok := fsutil.NotRegularMode(err); ok && m.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	return data, err
}

func unwrapPath(err error) error {
	if m, ok := fsutil.NotRegularMode(err); ok {
		return fmt.Errorf("%w (%s)", fsutil.ErrNotRegular, m.Type())
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse parses store bytes (for tests and the writer).
func Parse(path string, data []byte) (*Store, error) {
	s := &Store{Path: path, Dir: filepath.Dir(path), index: map[string]int{}}
	if err := s.parse(data); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) corrupt(format string, args ...any) error {
	return apperr.Statef("session store %s is corrupt: %s", s.Path, fmt.Sprintf(format, args...))
}

func (s *Store) parse(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return s.corrupt("the file is empty")
	}
	if s.parseFast(data) {
		return nil
	}
	// Anything the one-pass scanner does not take (invalid JSON, JSON5, …)
	// is parsed from scratch by the general path below.
	s.Entries, s.Skipped, s.index = nil, 0, map[string]int{}
	return s.parseSlow(data)
}

// parseSlow validates with gjson, falls back to JSON5, then walks the tree.
// It defines what a store means; parseFast must agree with it on every
// input it accepts.
func (s *Store) parseSlow(data []byte) error {
	if !gjson.ValidBytes(data) {
		strict, err := fromJSON5(data)
		if err != nil {
			return s.corrupt("%v", err)
		}
		data = strict
		s.JSON5 = true
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return s.corrupt("top level is %s, not an object", kindName(root))
	}
	tooDeep := ""
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		e := Entry{Key: key} // a value that is not an object: a tombstone (nil Raw)
		if v.IsObject() {
			e.Raw = rawOf(data, v)
			if sc := (jsonscan.Scanner{D: e.Raw}); !sc.Document() {
				// gjson has no limit on nesting, encoding/json has: an entry
				// deeper than it would fail every command that prints it
				tooDeep = key
				return false
			}
			e.Meta = parseMeta(v)
		} else {
			s.Skipped++
		}
		if i, dup := s.index[key]; dup {
			s.Entries[i] = e // JSON.parse: last value, first position
			return true
		}
		s.index[key] = len(s.Entries)
		s.Entries = append(s.Entries, e)
		return true
	})
	if tooDeep != "" {
		s.Entries, s.Skipped, s.index = nil, 0, map[string]int{}
		return s.corrupt("entry %q is nested deeper than %d levels", tooDeep, jsonscan.DefaultMaxDepth)
	}
	s.dropTombstones()
	return nil
}

// dropTombstones removes the members whose (last) value is not an object:
// with a duplicated key, JSON.parse keeps the last value, so
// {"k":{…},"k":null} has no session "k" — for the reader as for the writer.
func (s *Store) dropTombstones() {
	n := 0
	for _, e := range s.Entries {
		if e.Raw != nil {
			n++
		}
	}
	if n == len(s.Entries) {
		return
	}
	kept := s.Entries[:0]
	for _, e := range s.Entries {
		if e.Raw != nil {
			kept = append(kept, e)
		}
	}
	clear(s.Entries[len(kept):])
	s.Entries = kept
	s.index = make(map[string]int, len(kept))
	for i, e := range kept {
		s.index[e.Key] = i
	}
}

func rawOf(data []byte, v gjson.Result) json.RawMessage {
	if v.Index > 0 && v.Index+len(v.Raw) <= len(data) {
		return json.RawMessage(data[v.Index : v.Index+len(v.Raw)])
	}
	return json.RawMessage(v.Raw)
}

func kindName(r gjson.Result) string {
	switch {
	case r.IsArray():
		return "an array"
	case r.Type == gjson.String:
		return "a string"
	case r.Type == gjson.Number:
		return "a number"
	case r.Type == gjson.Null:
		return "null"
	case r.Type == gjson.True || r.Type == gjson.False:
		return "a boolean"
	}
	return "not JSON"
}

// fromJSON5 converts a JSON5 document (comments, trailing commas, unquoted
// keys…) to strict JSON. The JSON5 decoder yields Go maps, so keys come out
// sorted: only ties of updatedAt and a later rewrite's key order notice.
func fromJSON5(data []byte) ([]byte, error) {
	var tree any
	if err := json5.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	return json.Marshal(tree)
}

func strOf(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return ""
}

func numOf(r gjson.Result) *float64 {
	if r.Type == gjson.Number {
		f := r.Num
		return &f
	}
	return nil
}

func boolOf(r gjson.Result) *bool {
	switch r.Type {
	case gjson.True:
		b := true
		return &b
	case gjson.False:
		b := false
		return &b
	}
	return nil
}

// parseMeta walks the entry's top-level fields once. Legacy fields are
// migrated as OpenClaw does on load (format §3.5): provider → channel,
// lastProvider → lastChannel.
func parseMeta(v gjson.Result) Meta {
	var m Meta
	var provider, lastProvider string
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "sessionId":
			m.SessionID = strOf(f)
		case "updatedAt":
			m.UpdatedAt = numOf(f)
		case "sessionFile":
			m.SessionFile = strOf(f)
		case "spawnedBy":
			m.SpawnedBy = strOf(f)
		case "label":
			m.Label = strOf(f)
		case "displayName":
			m.DisplayName = strOf(f)
		case "channel":
			m.Channel = strOf(f)
		case "provider":
			provider = strOf(f)
		case "lastProvider":
			lastProvider = strOf(f)
		case "chatType":
			m.ChatType = strOf(f)
		case "lastChannel":
			m.LastChannel = strOf(f)
		case "lastTo":
			m.LastTo = strOf(f)
		case "lastAccountId":
			m.LastAccountID = strOf(f)
		case "deliveryContext":
			if f.IsObject() {
				dc := &DeliveryContext{}
				f.ForEach(func(k2, f2 gjson.Result) bool {
					switch k2.Str {
					case "channel":
						dc.Channel = strOf(f2)
					case "to":
						dc.To = strOf(f2)
					case "accountId":
						dc.AccountID = strOf(f2)
					}
					return true
				})
				m.DC = dc
			}
		case "model":
			m.Model = strOf(f)
		case "modelProvider":
			m.ModelProvider = strOf(f)
		case "modelOverride":
			m.ModelOverride = strOf(f)
		case "providerOverride":
			m.ProviderOverride = strOf(f)
		case "contextTokens":
			m.ContextTokens = numOf(f)
		case "totalTokens":
			m.TotalTokens = numOf(f)
		case "inputTokens":
			m.InputTokens = numOf(f)
		case "outputTokens":
			m.OutputTokens = numOf(f)
		case "thinkingLevel":
			m.ThinkingLevel = strOf(f)
		case "verboseLevel":
			m.VerboseLevel = strOf(f)
		case "sendPolicy":
			m.SendPolicy = strOf(f)
		case "systemSent":
			m.SystemSent = boolOf(f)
		case "abortedLastRun":
			m.AbortedLastRun = boolOf(f)
		}
		return true
	})
	if m.Channel == "" && provider != "" {
		m.Channel = provider
	}
	if m.LastChannel == "" && lastProvider != "" {
		m.LastChannel = lastProvider
	}
	return m
}

// ValidSessionID rejects ids that could name a path outside the sessions
// dir (CONTRACT §2): path separators, "..", NUL, or empty.
func ValidSessionID(id string) error {
	// one pass over the usual id (an ASCII letter or digit first, so not
	// blank; no separator, NUL or ".."): a list resolves one per row
	if id != "" && id[0] > ' ' && id[0] < utf8.RuneSelf {
		ok := true
		for i := 0; i < len(id) && ok; i++ {
			switch id[i] {
			case '/', '\\', 0:
				ok = false
			case '.':
				ok = i+1 == len(id) || id[i+1] != '.'
			}
		}
		if ok {
			return nil
		}
	}
	switch {
	case strings.TrimSpace(id) == "":
		return errors.New("empty sessionId")
	case strings.ContainsAny(id, "/\\\x00"), strings.Contains(id, ".."):
		return fmt.Errorf("invalid sessionId %q: contains a path separator or \"..\"", id)
	}
	return nil
}

// The fast path of parse: one pass over the bytes that validates them
// exactly as gjson.ValidBytes does and extracts what parseSlow extracts
// (keys, raw entries, Meta), with no string copy of the whole file and no
// second and third walk of every entry. A 10,000-entry store (about 54 MB)
// is where `sessions list` spends its time, so this pass is the hot path.
// It gives up (false) on anything it does not take — invalid JSON, JSON5, a
// top level that is not an object — and parseSlow then decides.

// scanner is the shared validating scanner with the store's readers of
// entries on top.
type scanner struct {
	jsonscan.Scanner
}

// newScanner starts at data[i]. An entry may be nested as deep as
// encoding/json reads and writes (jsonscan.DefaultMaxDepth, counted from
// the entry's object): a deeper one is corrupt (parseSlow says so), and a
// row holding one is no valid session (EntryMeta).
func newScanner(data []byte, i int) *scanner {
	return &scanner{jsonscan.Scanner{D: data, I: i}}
}

// field is one member value, read like gjson.Result: its type and, for
// strings and numbers, its value.
type field struct {
	typ gjson.Type
	str string
	num float64
	obj int // offset of '{' when typ is JSON and the value is an object
}

// read reads the value at sc.I into a field; objects and arrays are only
// validated (their offset is kept for objects).
func (sc *scanner) read() (field, bool) {
	var f field
	switch c := sc.D[sc.I]; {
	case c == '"':
		s, e, esc, ok := sc.Str()
		if !ok {
			return f, false
		}
		f.typ, f.str = gjson.String, sc.Text(s, e, esc)
	case c == '-' || c >= '0' && c <= '9':
		s, ok := sc.Number()
		if !ok {
			return f, false
		}
		f.typ = gjson.Number
		f.num, _ = strconv.ParseFloat(unsafe.String(unsafe.SliceData(sc.D[s:]), sc.I-s), 64)
	case c == 't':
		f.typ = gjson.True
		return f, sc.Literal("true")
	case c == 'f':
		f.typ = gjson.False
		return f, sc.Literal("false")
	case c == 'n':
		f.typ = gjson.Null
		return f, sc.Literal("null")
	default:
		f.typ, f.obj = gjson.JSON, -1
		if c == '{' {
			f.obj = sc.I
		}
		return f, sc.Value()
	}
	return f, true
}

func (f field) strOf() string {
	if f.typ == gjson.String {
		return f.str
	}
	return ""
}

func (f field) numOf() *float64 {
	if f.typ == gjson.Number {
		n := f.num
		return &n
	}
	return nil
}

func (f field) boolOf() *bool {
	switch f.typ {
	case gjson.True:
		b := true
		return &b
	case gjson.False:
		b := false
		return &b
	}
	return nil
}

// Meta fields the scanner extracts, in the order of parseMeta's switch.
const (
	fSessionID = iota
	fUpdatedAt
	fSessionFile
	fSpawnedBy
	fLabel
	fDisplayName
	fChannel
	fProvider
	fLastProvider
	fChatType
	fLastChannel
	fLastTo
	fLastAccountID
	fModel
	fModelProvider
	fModelOverride
	fProviderOverride
	fContextTokens
	fTotalTokens
	fInputTokens
	fOutputTokens
	fThinkingLevel
	fVerboseLevel
	fSendPolicy
	fSystemSent
	fAbortedLastRun
)

// metaFields maps a top-level entry key to its Meta field.
var metaFields = map[string]int{
	"sessionId": fSessionID, "updatedAt": fUpdatedAt, "sessionFile": fSessionFile, "spawnedBy": fSpawnedBy,
	"label": fLabel, "displayName": fDisplayName, "channel": fChannel, "provider": fProvider,
	"lastProvider": fLastProvider, "chatType": fChatType, "lastChannel": fLastChannel, "lastTo": fLastTo,
	"lastAccountId": fLastAccountID, "model": fModel, "modelProvider": fModelProvider,
	"modelOverride": fModelOverride, "providerOverride": fProviderOverride, "contextTokens": fContextTokens,
	"totalTokens": fTotalTokens, "inputTokens": fInputTokens, "outputTokens": fOutputTokens,
	"thinkingLevel": fThinkingLevel, "verboseLevel": fVerboseLevel, "sendPolicy": fSendPolicy,
	"systemSent": fSystemSent, "abortedLastRun": fAbortedLastRun,
}

// entry reads one entry object at sc.I into its Meta, like parseMeta.
func (sc *scanner) entry() (Meta, bool) {
	var m Meta
	var provider, lastProvider string
	ok := sc.Object(func(key string, _ bool) bool {
		code, known := metaFields[key]
		if !known {
			if key != "deliveryContext" {
				return sc.Value()
			}
			if sc.D[sc.I] != '{' {
				return sc.Value()
			}
			dc := &DeliveryContext{}
			if !sc.Object(func(k2 string, _ bool) bool {
				var p *string
				switch k2 {
				case "channel":
					p = &dc.Channel
				case "to":
					p = &dc.To
				case "accountId":
					p = &dc.AccountID
				default:
					return sc.Value()
				}
				f, ok := sc.read()
				*p = f.strOf()
				return ok
			}) {
				return false
			}
			m.DC = dc
			return true
		}
		f, ok := sc.read()
		if !ok {
			return false
		}
		switch code {
		case fSessionID:
			m.SessionID = f.strOf()
		case fUpdatedAt:
			m.UpdatedAt = f.numOf()
		case fSessionFile:
			m.SessionFile = f.strOf()
		case fSpawnedBy:
			m.SpawnedBy = f.strOf()
		case fLabel:
			m.Label = f.strOf()
		case fDisplayName:
			m.DisplayName = f.strOf()
		case fChannel:
			m.Channel = f.strOf()
		case fProvider:
			provider = f.strOf()
		case fLastProvider:
			lastProvider = f.strOf()
		case fChatType:
			m.ChatType = f.strOf()
		case fLastChannel:
			m.LastChannel = f.strOf()
		case fLastTo:
			m.LastTo = f.strOf()
		case fLastAccountID:
			m.LastAccountID = f.strOf()
		case fModel:
			m.Model = f.strOf()
		case fModelProvider:
			m.ModelProvider = f.strOf()
		case fModelOverride:
			m.ModelOverride = f.strOf()
		case fProviderOverride:
			m.ProviderOverride = f.strOf()
		case fContextTokens:
			m.ContextTokens = f.numOf()
		case fTotalTokens:
			m.TotalTokens = f.numOf()
		case fInputTokens:
			m.InputTokens = f.numOf()
		case fOutputTokens:
			m.OutputTokens = f.numOf()
		case fThinkingLevel:
			m.ThinkingLevel = f.strOf()
		case fVerboseLevel:
			m.VerboseLevel = f.strOf()
		case fSendPolicy:
			m.SendPolicy = f.strOf()
		case fSystemSent:
			m.SystemSent = f.boolOf()
		case fAbortedLastRun:
			m.AbortedLastRun = f.boolOf()
		}
		return true
	})
	if m.Channel == "" && provider != "" {
		m.Channel = provider
	}
	if m.LastChannel == "" && lastProvider != "" {
		m.LastChannel = lastProvider
	}
	return m, ok
}

// chunk is what one scanner found in a run of top-level members: the
// members whose value is an object, in file order (duplicates not yet
// resolved), and how many values were not objects.
type chunk struct {
	entries []Entry
	skipped int
}

// parse scans the top-level members of data[lo:hi]. The first chunk starts
// at the document (whitespace, '{'); the others start at a member's key.
// The last chunk ends with the document ('}', whitespace, EOF); the others
// must end exactly at hi, on the first byte of the next member's key, after
// its comma: a chunk that would cross hi, or close the object early, fails.
// abort, when set by another chunk, stops the scan.
func (c *chunk) parse(data []byte, lo, hi int, first, last bool, abort *atomic.Bool) bool {
	sc := newScanner(data[:hi], lo)
	if first {
		sc.SkipWS()
		if sc.I >= hi || data[sc.I] != '{' {
			return false
		}
		sc.I++
		sc.SkipWS()
		if sc.I < hi && data[sc.I] == '}' {
			sc.I++
			sc.SkipWS()
			return last && sc.I == hi
		}
	}
	// About 5 KB per entry in OpenClaw's stores: one allocation, not a
	// dozen doublings of a large slice.
	c.entries = make([]Entry, 0, (hi-lo)/4096+1)
	for n := 0; ; n++ {
		if !last && sc.I == hi {
			return true // landed on the next chunk's first member
		}
		if n&63 == 63 && abort != nil && abort.Load() {
			return false
		}
		if sc.I >= hi || data[sc.I] != '"' {
			return false
		}
		ks, ke, kesc, ok := sc.Str()
		if !ok {
			return false
		}
		sc.SkipWS()
		if sc.I >= hi || data[sc.I] != ':' {
			return false
		}
		sc.I++
		sc.SkipWS()
		if sc.I >= hi {
			return false
		}
		if data[sc.I] != '{' {
			c.skipped++
			if !sc.Value() {
				return false
			}
			// a tombstone (nil Raw): a duplicate's last value may be this
			c.entries = append(c.entries, Entry{Key: sc.Text(ks, ke, kesc)})
		} else {
			start := sc.I
			meta, ok := sc.entry()
			if !ok {
				return false
			}
			c.entries = append(c.entries, Entry{
				Key:  sc.Text(ks, ke, kesc),
				Raw:  json.RawMessage(data[start:sc.I:sc.I]),
				Meta: meta,
			})
		}
		sc.SkipWS()
		if sc.I >= hi {
			return false
		}
		switch data[sc.I] {
		case ',':
			sc.I++
			sc.SkipWS()
		case '}':
			sc.I++
			sc.SkipWS()
			return last && sc.I == hi
		default:
			return false
		}
	}
}

// adopt makes the chunks, in order, the store's entries: a duplicated key
// keeps its first position and its last value, as JSON.parse does.
func (s *Store) adopt(chunks []*chunk) {
	total := 0
	for _, c := range chunks {
		total += len(c.entries)
	}
	s.index = make(map[string]int, total)
	s.Entries = chunks[0].entries[:0] // one chunk: compacted in place, no copy
	if len(chunks) > 1 {
		s.Entries = make([]Entry, 0, total)
	}
	s.Skipped = 0
	for _, c := range chunks {
		s.Skipped += c.skipped
		for _, e := range c.entries {
			if i, dup := s.index[e.Key]; dup {
				e.Key = s.Entries[i].Key
				s.Entries[i] = e
				continue
			}
			s.index[e.Key] = len(s.Entries)
			s.Entries = append(s.Entries, e)
		}
	}
	s.dropTombstones()
}

// parseFast is parse's one-pass path; false leaves s to be reset.
func (s *Store) parseFast(data []byte) bool {
	c := &chunk{}
	if !c.parse(data, 0, len(data), true, true, nil) {
		return false
	}
	s.adopt([]*chunk{c})
	return true
}

// Parallel loading of big stores. Reading 54 MB into fresh memory costs
// about as much as scanning it (page faults), so each CPU reads and scans
// its own part of the file. The parts start at top-level member keys,
// found as "\n  \"" (OpenClaw writes JSON.stringify(store, null, 2), and a
// raw newline cannot be inside a string): the chunk before a part must land
// exactly on its first key, which proves the cut; anything else (another
// layout, invalid JSON, a file that changes size under us) falls back to
// the sequential read and parse.
const (
	parallelMin    = 8 << 20 // smaller stores are read and scanned in one go
	parallelChunk  = 4 << 20 // at least this much per CPU
	parallelMax    = 8       // CPUs used at most
	parallelWindow = 256 << 10
)

var memberStart = []byte("\n  \"")

// loadParallel reads and parses f (size bytes) in parts on several CPUs. It
// reports false when the store must be loaded sequentially.
func (s *Store) loadParallel(f *os.File, size int) bool {
	n := min(runtime.GOMAXPROCS(0), size/parallelChunk, parallelMax)
	if n < 2 {
		return false
	}
	// Lean loads scan a read-only mapping of the file instead of a copy:
	// no 50 MB of fresh memory to fault in, and nothing points into the
	// mapping afterwards (keys and fields are copied; Raw is dropped), so it
	// is unmapped before returning. A file truncated in place under us would
	// fault: scanning goroutines turn that into a panic and the load falls
	// back to the ordinary read.
	var data []byte
	mapped := false
	if s.lean && mapfile.Mmap { // elsewhere the parts below read their own bytes
		if m, err := mapfile.Map(f, size); err == nil {
			data, mapped = m, true
			defer mapfile.Unmap(m)
		}
	}
	if data == nil {
		data = make([]byte, size)
	}
	fill := func(p []byte, off int) error {
		if mapped {
			return nil
		}
		return readAt(f, p, off)
	}
	cuts := []int{0}
	ok := true
	guard(func() {
		for k := 1; k < n; k++ {
			at := k * size / n
			if at <= cuts[len(cuts)-1] {
				continue
			}
			w := data[at:min(at+parallelWindow, size)]
			if fill(w, at) != nil {
				ok = false
				return
			}
			i := bytes.Index(w, memberStart)
			if i < 0 {
				continue
			}
			cuts = append(cuts, at+i+len(memberStart)-1)
		}
	}, &ok)
	if !ok || len(cuts) < 2 {
		return false
	}
	cuts = append(cuts, size)
	chunks := make([]*chunk, len(cuts)-1)
	var abort atomic.Bool
	var wg sync.WaitGroup
	for j := range chunks {
		chunks[j] = &chunk{}
		work := func() {
			fine := true
			guard(func() {
				lo, hi := cuts[j], cuts[j+1]
				if fill(data[lo:hi], lo) != nil {
					fine = false
					return
				}
				fine = chunks[j].parse(data, lo, hi, j == 0, j == len(chunks)-1, &abort)
			}, &fine)
			if !fine {
				abort.Store(true)
			}
		}
		if j == len(chunks)-1 {
			work() // this goroutine takes the last part
		} else {
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
	}
	wg.Wait()
	if abort.Load() {
		return false
	}
	var one [1]byte
	if m, _ := f.ReadAt(one[:], int64(size)); m != 0 {
		return false // the file grew while we read it
	}
	s.adopt(chunks)
	if mapped {
		for i := range s.Entries {
			s.Entries[i].Raw = nil // it pointed into the mapping
		}
	}
	return true
}

// guard runs fn with memory faults (a mapped file truncated under us)
// caught by mapfile.Guard and reports one as *ok = false; any other panic
// too: the load then falls back to the sequential read.
func guard(fn func(), ok *bool) {
	defer func() {
		if recover() != nil {
			*ok = false
		}
	}()
	if mapfile.Guard(func() error { fn(); return nil }) != nil {
		*ok = false
	}
}

// readAt fills p from f at off; a short read (the file shrank) is an error.
func readAt(f *os.File, p []byte, off int) error {
	n, err := f.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}
