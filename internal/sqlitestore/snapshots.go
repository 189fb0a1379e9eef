package sqlitestore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/store"
)

// snapshotFields are the entry members agent schema 24 keeps in
// session_entry_snapshots (one row per session and field, value_json the
// member's JSON) instead of entry_json, in the order OpenClaw's
// attachSessionEntrySnapshots puts them back.
var snapshotFields = []string{"sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"}

// readSnapshots returns session_entry_snapshots as session key → field →
// value_json, for one key, or for all when key is "".
func readSnapshots(tx *sql.Tx, key string) (map[string]map[string][]byte, error) {
	q := "SELECT session_key, field, CAST(value_json AS BLOB) FROM session_entry_snapshots"
	var args []any
	if key != "" {
		q += " WHERE session_key = ?"
		args = append(args, key)
	}
	rows, err := tx.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string][]byte{}
	for rows.Next() {
		var k, f string
		var v []byte
		if err := rows.Scan(&k, &f, &v); err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		if out[k] == nil {
			out[k] = map[string][]byte{}
		}
		out[k][f] = v
	}
	return out, rows.Err()
}

// attachAll puts each entry's snapshot rows back into its Raw.
func attachAll(entries []store.Entry, snaps map[string]map[string][]byte) {
	if len(snaps) == 0 {
		return
	}
	for i := range entries {
		if s := snaps[entries[i].Key]; s != nil && entries[i].Raw != nil {
			entries[i].Raw = attachSnapshots(entries[i].Raw, s)
		}
	}
}

// attachSnapshots returns the entry object raw with the snapshot values in
// it, as OpenClaw's attachSessionEntrySnapshots (Object.assign, field by
// field in snapshotFields order) leaves the entry: a field the entry
// already has (a row still pending its split) gets the snapshot's value in
// its place; any other is appended after the last member. The rest of raw
// stays byte for byte. raw that is not one JSON object is returned as it is
// (the entry check reports it).
func attachSnapshots(raw []byte, snaps map[string][]byte) []byte {
	if out, ok := appendSnapshots(raw, snaps); ok {
		return out
	}
	type span struct{ start, end int }
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return raw
	}
	at := map[string]span{}
	members := 0
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return raw
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw
		}
		end := int(dec.InputOffset())
		if k, ok := kt.(string); ok {
			at[k] = span{end - len(v), end}
		}
		members++
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return raw
	}
	closing := int(dec.InputOffset()) - 1
	if _, err := dec.Token(); err == nil {
		return raw
	}
	type edit struct {
		span
		text []byte
	}
	var edits []edit
	var tail bytes.Buffer
	for _, f := range snapshotFields {
		v, ok := snaps[f]
		if !ok {
			continue
		}
		if s, ok := at[f]; ok {
			edits = append(edits, edit{s, v})
			continue
		}
		if members > 0 || tail.Len() > 0 {
			tail.WriteByte(',')
		}
		fmt.Fprintf(&tail, "%q:", f)
		tail.Write(v)
	}
	if len(edits) == 0 && tail.Len() == 0 {
		return raw
	}
	// Replacements in position order, then the appended members.
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	out := make([]byte, 0, len(raw)+tail.Len())
	pos := 0
	for _, e := range edits {
		out = append(out, raw[pos:e.start]...)
		out = append(out, e.text...)
		pos = e.end
	}
	out = append(out, raw[pos:closing]...)
	out = append(out, tail.Bytes()...)
	out = append(out, raw[closing:]...)
	return out
}

// appendSnapshots is attachSnapshots' usual case in one scan of the top
// level (an entry is mostly its nested values, which gjson skips): a valid
// object with none of the snapshot fields gets them appended before its
// closing brace. ok is false for anything else (a field still inline, or
// raw that is not one valid object), which the decoder then handles.
func appendSnapshots(raw []byte, snaps map[string][]byte) (out []byte, ok bool) {
	if !gjson.ValidBytes(raw) {
		return nil, false
	}
	r := gjson.ParseBytes(raw)
	if !r.IsObject() {
		return nil, false
	}
	inline, members := false, 0
	r.ForEach(func(k, _ gjson.Result) bool {
		members++
		for _, f := range snapshotFields {
			if k.Str == f {
				inline = true
				return false
			}
		}
		return true
	})
	if inline {
		return nil, false
	}
	closing := bytes.LastIndexByte(raw, '}')
	if closing < 0 {
		return nil, false
	}
	var tail bytes.Buffer
	for _, f := range snapshotFields {
		v, ok := snaps[f]
		if !ok {
			continue
		}
		if members > 0 || tail.Len() > 0 {
			tail.WriteByte(',')
		}
		fmt.Fprintf(&tail, "%q:", f)
		tail.Write(v)
	}
	if tail.Len() == 0 {
		return raw, true
	}
	out = make([]byte, 0, len(raw)+tail.Len())
	out = append(out, raw[:closing]...)
	out = append(out, tail.Bytes()...)
	return append(out, raw[closing:]...), true
}
