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
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
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
}

// Entry is one key of the store with the fields the tool reads. Raw keeps
// the entry exactly as stored.
type Entry struct {
	Key string
	Raw json.RawMessage
	Meta
}

// DeliveryContext is entry.deliveryContext.
type DeliveryContext struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
}

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
	i, ok := s.index[key]
	if !ok {
		return nil, false
	}
	return &s.Entries[i], true
}

// Load reads a store. A missing file gives an empty store (Missing=true).
// An empty, truncated or non-object file is corrupt: apperr code 10 naming
// the file. JSON5 is accepted (OpenClaw parses the store with JSON5).
func Load(path string) (*Store, error) {
	s := &Store{Path: path, Dir: filepath.Dir(path), index: map[string]int{}}
	data, err := os.ReadFile(path)
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

func unwrapPath(err error) error {
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
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if !v.IsObject() {
			s.Skipped++
			return true
		}
		e := Entry{Key: key, Raw: rawOf(data, v)}
		e.Meta = parseMeta(v)
		if i, dup := s.index[key]; dup {
			s.Entries[i] = e // JSON.parse: last value, first position
			return true
		}
		s.index[key] = len(s.Entries)
		s.Entries = append(s.Entries, e)
		return true
	})
	return nil
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
	switch {
	case strings.TrimSpace(id) == "":
		return errors.New("empty sessionId")
	case strings.ContainsAny(id, "/\\\x00"), strings.Contains(id, ".."):
		return fmt.Errorf("invalid sessionId %q: contains a path separator or \"..\"", id)
	}
	return nil
}
