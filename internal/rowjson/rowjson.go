// Package rowjson writes the JSON document of a session listing without
// reflection: with 10,000 rows encoding/json's reflection and its
// indentation pass over the whole document cost as much as reading the
// store. The output is byte for byte what encoding/json gives (two-space
// indent, no HTML escaping); FuzzAppendList holds it to that.
package rowjson

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/state"
)

// Doc is the listing document (ops.ListResult without its fleet errors).
type Doc struct {
	Count        int
	TotalCount   int
	LimitApplied *int
	HasMore      bool
	Sessions     []state.Row
}

// Encodable reports whether AppendList can write rows exactly as
// encoding/json would: Row has exactly the fields it knows, and no number
// is NaN or ±Inf (which encoding/json refuses).
func Encodable(rows []state.Row) bool {
	if !rowFieldsOK {
		return false
	}
	for i := range rows {
		r := &rows[i]
		if !finite(r.UpdatedAt) || !finite(r.ContextTokens) || !finite(r.TotalTokens) {
			return false
		}
	}
	return true
}

func finite(v *float64) bool { return v == nil || !math.IsInf(*v, 0) && !math.IsNaN(*v) }

// AppendList appends the document and its final newline.
func AppendList(b []byte, res Doc) ([]byte, error) {
	if err := checkRows(res.Sessions); err != nil {
		return nil, err
	}
	b = appendHead(b, res)
	for i := range res.Sessions {
		b = appendRow(appendSep(b, i), &res.Sessions[i])
	}
	return appendTail(b, len(res.Sessions)), nil
}

// flushAt is the size from which WriteList hands what it has written to
// its writer.
var flushAt = 64 << 10

// WriteList writes the document AppendList gives to w in pieces of about
// 64 KiB, so that a long listing never sits whole in memory: the 6 MB of
// a 10,000-row listing in one buffer faulted in ~1,500 fresh pages, about
// a sixth of such a call. Every row is checked before the first byte is
// written: an error leaves w untouched.
func WriteList(w io.Writer, res Doc) error {
	if err := checkRows(res.Sessions); err != nil {
		return err
	}
	b := appendHead(make([]byte, 0, flushAt+flushAt/4), res)
	for i := range res.Sessions {
		b = appendRow(appendSep(b, i), &res.Sessions[i])
		if len(b) >= flushAt {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(appendTail(b, len(res.Sessions)))
	return err
}

// appendHead appends the document's fields up to its first row.
func appendHead(b []byte, res Doc) []byte {
	b = append(b, "{\n  \"count\": "...)
	b = strconv.AppendInt(b, int64(res.Count), 10)
	b = append(b, ",\n  \"totalCount\": "...)
	b = strconv.AppendInt(b, int64(res.TotalCount), 10)
	b = append(b, ",\n  \"limitApplied\": "...)
	if res.LimitApplied != nil {
		b = strconv.AppendInt(b, int64(*res.LimitApplied), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, ",\n  \"hasMore\": "...)
	b = strconv.AppendBool(b, res.HasMore)
	return append(b, ",\n  \"sessions\": ["...)
}

// appendSep is what precedes row i.
func appendSep(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return append(b, "\n    "...)
}

// appendTail closes a document of n rows.
func appendTail(b []byte, n int) []byte {
	if n > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...)
}

// checkRows reports a row that appendRow cannot write: a prepared message
// that is not valid JSON.
func checkRows(rows []state.Row) error {
	for i := range rows {
		for _, m := range rows[i].Messages {
			if !json.Valid(m) {
				return fmt.Errorf("session %s: a prepared message is not valid JSON", rows[i].Key)
			}
		}
	}
	return nil
}

// appendRow appends one row at the indentation of a session in the result
// (its messages checked by checkRows).
func appendRow(b []byte, r *state.Row) []byte {
	const field = "\n      \""
	str := func(name, v string, always bool) {
		if v != "" || always {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = appendString(b, v)
			b = append(b, ',')
		}
	}
	num := func(name string, v *float64) {
		if v != nil {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = appendFloat(b, *v)
			b = append(b, ',')
		}
	}
	boolean := func(name string, v *bool) {
		if v != nil {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = strconv.AppendBool(b, *v)
			b = append(b, ',')
		}
	}
	b = append(b, '{')
	str("context", r.Context, false)
	str("key", r.Key, true)
	str("kind", r.Kind, true)
	str("channel", r.Channel, true)
	str("agentId", r.AgentID, true)
	str("label", r.Label, false)
	str("displayName", r.DisplayName, false)
	num("updatedAt", r.UpdatedAt)
	str("sessionId", r.SessionID, false)
	str("model", r.Model, false)
	num("contextTokens", r.ContextTokens)
	num("totalTokens", r.TotalTokens)
	str("thinkingLevel", r.ThinkingLevel, false)
	str("verboseLevel", r.VerboseLevel, false)
	boolean("systemSent", r.SystemSent)
	boolean("abortedLastRun", r.AbortedLastRun)
	str("sendPolicy", r.SendPolicy, false)
	str("spawnedBy", r.SpawnedBy, false)
	str("lastChannel", r.LastChannel, false)
	str("lastTo", r.LastTo, false)
	if dc := r.DeliveryContext; dc != nil {
		b = append(b, field...)
		b = append(b, "deliveryContext\": {"...)
		n := len(b)
		for _, kv := range [...][2]string{{"channel", dc.Channel}, {"to", dc.To}, {"accountId", dc.AccountID}} {
			if kv[1] != "" {
				b = append(b, "\n        \""...)
				b = append(b, kv[0]...)
				b = append(b, "\": "...)
				b = appendString(b, kv[1])
				b = append(b, ',')
			}
		}
		if len(b) > n {
			b = append(b[:len(b)-1], "\n      "...)
		}
		b = append(b, "},"...)
	}
	str("transcriptPath", r.TranscriptPath, false)
	if len(r.Messages) > 0 {
		// Prepared messages are valid JSON already (checkRows): one per
		// line, as they are, instead of re-compacting and re-indenting them.
		b = append(b, field...)
		b = append(b, "messages\": ["...)
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = append(b, m...)
		}
		b = append(b, "\n      ],"...)
	}
	// Key, kind, channel and agentId are always there: drop the last comma.
	b = append(b[:len(b)-1], "\n    }"...)
	return b
}

// appendFloat is encoding/json's float64 encoding (ES6 number formatting).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString is encoding/json's string encoding without HTML escaping:
// '"', '\\' and control characters escaped (\b \f \n \r \t or \u00XX),
// invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// rowJSONFields are the JSON names of state.Row and store.DeliveryContext
// that appendRow writes, in order.
var rowJSONFields = []string{
	"context", "key", "kind", "channel", "agentId", "label", "displayName", "updatedAt", "sessionId", "model",
	"contextTokens", "totalTokens", "thinkingLevel", "verboseLevel", "systemSent", "abortedLastRun",
	"sendPolicy", "spawnedBy", "lastChannel", "lastTo", "deliveryContext", "transcriptPath", "messages",
	"deliveryContext.channel", "deliveryContext.to", "deliveryContext.accountId",
}

// rowFieldsOK: state.Row (and DeliveryContext) have exactly the fields
// appendRow writes; otherwise printJSON leaves the rows to encoding/json.
var rowFieldsOK = slices.Equal(jsonFields(reflect.TypeFor[state.Row](), ""), rowJSONFields)

func jsonFields(t reflect.Type, prefix string) []string {
	var out, nested []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "-" || !t.Field(i).IsExported() {
			continue
		}
		out = append(out, prefix+name)
		if ft := t.Field(i).Type; ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			nested = append(nested, jsonFields(ft.Elem(), prefix+name+".")...)
		}
	}
	return append(out, nested...)
}
