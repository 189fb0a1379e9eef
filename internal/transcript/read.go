// Package transcript reads (and appends to) OpenClaw session transcripts:
// JSONL files whose first line is a session header and whose other lines are
// entries (format §4).
//
// Reading follows the gateway's chat.history (format §4.4): the messages are
// the `message` objects of every line that has one, in file order, whatever
// the id/parentId tree says. Lines end at "\n" (a "\r" before it is
// whitespace, so CRLF files read the same). Blank lines are skipped
// silently; corrupt lines (bad JSON, invalid UTF-8, longer than
// MaxLineBytes) are skipped and counted; a last line without "\n" that does
// not parse is a writer mid-append and is skipped silently.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
)

// DefaultMaxLineBytes is the longest line read when Options.MaxLineBytes is 0.
const DefaultMaxLineBytes = 64 << 20

// Tunables (variables so tests can shrink them to exercise every path).
var (
	// blockSize is the largest block read backwards from EOF; the first
	// block is firstBlock and each next one doubles, so the common case —
	// a few short messages at the end — reads a few KiB, not 256.
	blockSize  = 256 << 10
	firstBlock = 8 << 10
	// probeMin: an excluded tool result longer than this is recognised by
	// a role probe and dropped without being validated (tool results are
	// the big lines of a transcript, and most readers exclude them).
	probeMin = 16 << 10
	// headerPeek is the first read for the header; a longer first line
	// falls back to the line reader.
	headerPeek = 4 << 10
	// bigLine: a line longer than this is not kept in memory while
	// scanning; it is re-read from the file only if it may be returned.
	bigLine = 64 << 10
	// headProbe: how much of a big line is probed for its role before it is
	// loaded (only when tool results are excluded).
	headProbe = 64 << 10
	// fwdBuf is the bufio.Reader size of forward reads.
	fwdBuf = 64 << 10
	// headerMax is the longest first line considered as a header.
	headerMax = 1 << 20
)

// Options controls ReadMessages.
type Options struct {
	// Limit: 0 = all messages; >0 = only the last Limit messages that pass
	// the filter (read backwards from EOF, stopping as soon as they are found).
	Limit int
	// IncludeTools: false drops messages whose role is "toolResult"
	// (assistant toolCall blocks stay). Limit counts after this filter.
	IncludeTools bool
	// Warn, when set, is called at most once per read with a summary of the
	// skipped lines.
	Warn func(msg string)
	// MaxLineBytes: longer lines are skipped and counted; 0 = DefaultMaxLineBytes.
	MaxLineBytes int
	// Before > 0 reads only what lies before that position (a Cursor's
	// Pos: the byte offset of a line start, or a SQLite event's seq), as if
	// the transcript ended there. The line (event) at Before must exist and
	// have Fingerprint BeforeCheck, else the read fails with
	// ErrCursorMismatch.
	Before      int64
	BeforeCheck uint32
	// More: with Limit > 0, also find out whether an older message exists
	// before the first one returned (Result.More); costs reading one more
	// message.
	More bool
}

// Result is what ReadMessages found.
type Result struct {
	// Messages are the raw `message` objects, byte-identical to the file,
	// in file order.
	Messages []json.RawMessage
	// Header is the first non-blank line when it is a valid session header
	// (type "session" and a string id), else nil.
	Header *Header
	// Skipped counts the unreadable lines (corrupt JSON, invalid UTF-8,
	// longer than MaxLineBytes) among the lines examined: every line when
	// Limit is 0, only the lines from EOF back to the oldest returned
	// message when Limit > 0.
	Skipped int
	// Size is the offset the file was read up to: its size when the read
	// started, minus a torn last line (so a follower re-reads that line once
	// it is complete).
	Size int64
	// Positions[i] is where Messages[i] is stored: the byte offset of its
	// line (a file) or its event's seq (SQLite) — what a Cursor names.
	Positions []int64
	// Checks[i] is the Fingerprint of Messages[i]'s line (event).
	Checks []uint32
	// More reports that a message older than Messages[0] exists (only
	// looked for with Options.More, or when Limit cut messages off).
	More bool
}

// Header is a transcript's session header (format §4.2, line 1).
type Header struct {
	Type          string
	Version       int
	ID            string
	Timestamp     string
	Cwd           string
	ParentSession string
}

// ReadMessages returns the messages of the transcript at path (format §4.4
// chat.history semantics). A missing file is an error wrapping
// fs.ErrNotExist.
func ReadMessages(path string, opts Options) (*Result, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := readMessagesAt(f, size, opts)
	if err != nil && !errors.Is(err, ErrCursorMismatch) {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return res, err
}

func readMessagesAt(ra io.ReaderAt, size int64, opts Options) (*Result, error) {
	end := size
	if opts.Before > 0 {
		if err := checkCursorLine(ra, size, opts.Before, opts.BeforeCheck); err != nil {
			return nil, err
		}
		end = opts.Before
	}
	var res *Result
	var err error
	if opts.Limit > 0 {
		res, err = readBackward(ra, end, opts)
	} else {
		res, err = readForward(ra, end, opts)
	}
	if err != nil {
		return nil, err
	}
	if res.Header, err = readHeaderAt(ra, size); err != nil {
		return nil, err
	}
	return res, nil
}

// checkCursorLine verifies that a line starts at pos (0 < pos < size) and
// has the fingerprint check.
func checkCursorLine(ra io.ReaderAt, size, pos int64, check uint32) error {
	if pos <= 0 || pos >= size {
		return ErrCursorMismatch
	}
	b := make([]byte, min(int64(fingerprintBytes)+1, size-pos+1))
	if err := readFull(ra, b, pos-1); err != nil {
		return err
	}
	if b[0] != '\n' || Fingerprint(b[1:]) != check {
		return ErrCursorMismatch
	}
	return nil
}

// ReadHeader reads the first non-blank line of the transcript and returns it
// when it is a valid session header; (nil, nil) when it is not.
func ReadHeader(path string) (*Header, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := readHeaderAt(f, size)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return h, nil
}

func open(path string) (*os.File, int64, error) {
	// Only regular files are opened, and the open cannot block: a FIFO (or
	// a device) is refused on its descriptor, never waited on.
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		if m, ok := fsutil.NotRegularMode(err); ok {
			return nil, 0, notRegular(path, m)
		}
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func notRegular(path string, m os.FileMode) error {
	if m.IsDir() {
		return fmt.Errorf("read transcript %s: is a directory", path)
	}
	// exit 10 wherever it surfaces; callers name the file
	return apperr.Statef("not a regular file (%s)", m.Type()).Wrap(fsutil.ErrNotRegular)
}

// line is one line of the file: bytes [start,end), without its "\n".
type line struct {
	start, end int64
	// data holds the line's bytes, or nil when the line was too long to
	// keep while scanning (it is then read again from the file on demand).
	// It is only valid until the next line is read.
	data []byte
	// final: the file's last line, with no "\n" after it.
	final bool
}

func (l line) len() int64 { return l.end - l.start }

// reader classifies lines for ReadMessages. The same classification is used
// in both directions, so a forward and a backward read of a file agree.
type reader struct {
	ra           io.ReaderAt
	includeTools bool
	maxLine      int64
	// check is the Fingerprint of the line of the last StatusMessage.
	check uint32
}

func newReader(ra io.ReaderAt, opts Options) *reader {
	return &reader{ra: ra, includeTools: opts.IncludeTools, maxLine: opts.MaxLine()}
}

// classify decides what a line is; for StatusMessage it returns the
// message's bytes (owned by the caller) and sets r.check. The rules, in order:
//
//  1. longer than maxLine → oversize (torn when it is the unterminated
//     last line);
//  2. not the unterminated last line, longer than probeMin, tool results
//     excluded, and gjson finds message.role == "toolResult" in its first
//     headProbe bytes → dropped without being loaded or validated (so a huge
//     tool result never sits in memory, and a big one costs no validation;
//     such a line is not counted as corrupt even if it is);
//  3. Classify's rules (blank, corrupt — torn when it is the unterminated
//     last line —, no message object, an excluded tool result, a message).
func (r *reader) classify(ln line) ([]byte, Status, error) {
	n := ln.len()
	if n > r.maxLine {
		if ln.final {
			return nil, StatusTorn, nil
		}
		return nil, StatusOversize, nil
	}
	data := ln.data
	owned := false
	if !r.includeTools && !ln.final && n > int64(probeMin) {
		head := data
		if head == nil {
			h := make([]byte, min(n, int64(headProbe)))
			if err := readFull(r.ra, h, ln.start); err != nil {
				return nil, StatusSilent, err
			}
			head = h
		} else if int64(len(head)) > int64(headProbe) {
			head = head[:headProbe]
		}
		if gjson.GetBytes(head, "message.role").Str == "toolResult" {
			return nil, StatusSilent, nil
		}
	}
	if n > int64(bigLine) && data == nil {
		data = make([]byte, n)
		if err := readFull(r.ra, data, ln.start); err != nil {
			return nil, StatusSilent, err
		}
		owned = true
	}
	msg, st := Classify(data, r.includeTools)
	switch {
	case st == StatusCorrupt && ln.final:
		return nil, StatusTorn, nil
	case st == StatusMessage && !owned:
		msg = append([]byte(nil), msg...)
	}
	if st == StatusMessage {
		r.check = Fingerprint(data)
	}
	return msg, st, nil
}

// readFull reads exactly len(p) bytes at off; a short read means the file
// shrank under us.
func readFull(ra io.ReaderAt, p []byte, off int64) error {
	n, err := ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("file shrank while reading (wanted %d bytes at offset %d, got %d)", len(p), off, n)
	}
	return err
}

// isBlank reports whether the line holds only JavaScript whitespace (the
// gateway skips lines whose trim() is empty).
func isBlank(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				i++
				continue
			}
			return false
		}
		r, size := utf8.DecodeRune(data[i:])
		if !isJSSpace(r) || (r == utf8.RuneError && size == 1) {
			return false
		}
		i += size
	}
	return true
}

func isJSSpace(r rune) bool {
	switch r {
	case 0x00a0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// str views b as a string without copying; b must not change while the
// string (or anything gjson derives from it) is in use.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// lastKey finds the value of key in the JSON object data (which must be
// valid JSON), the last occurrence winning as in JSON.parse; it returns the
// value's byte range in data.
func lastKey(data []byte, key string) (start, end int, ok bool) {
	s := str(data)
	obj := gjson.Parse(s)
	if !obj.IsObject() {
		return 0, 0, false
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			start, end, ok = span(s, v)
		}
		return true
	})
	return start, end, ok
}

// span returns where v (a value gjson found in s) lies in s.
func span(s string, v gjson.Result) (start, end int, ok bool) {
	start, end = v.Index, v.Index+len(v.Raw)
	if v.Raw == "" || start < 0 || end > len(s) || s[start:end] != v.Raw {
		return 0, 0, false
	}
	return start, end, true
}

// lastString returns the string value of key in the JSON object data (last
// occurrence wins), or "" when it is absent or not a string.
func lastString(data []byte, key string) string {
	var out string
	gjson.Parse(str(data)).ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out = ""
			if v.Type == gjson.String {
				out = v.Str
			}
		}
		return true
	})
	return string([]byte(out)) // detach from data
}

// fields returns the top-level values of the given keys (last occurrence
// wins). The results reference data.
func fields(data []byte, keys ...string) map[string]gjson.Result {
	out := make(map[string]gjson.Result, len(keys))
	obj := gjson.Parse(str(data))
	if !obj.IsObject() {
		return out
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		for _, want := range keys {
			if k.Str == want {
				out[want] = v
			}
		}
		return true
	})
	return out
}

// fwdLines reads lines forwards with a bufio.Reader, never holding more than
// bigLine bytes of a line.
type fwdLines struct {
	br   *bufio.Reader
	off  int64
	size int64
	acc  []byte
}

func newFwdLines(ra io.ReaderAt, size int64) *fwdLines {
	return &fwdLines{br: bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), fwdBuf), size: size}
}

// next returns the next line; ok is false at the end of the file.
func (r *fwdLines) next() (ln line, ok bool, err error) {
	start := r.off
	r.acc = r.acc[:0]
	big := false
	var n int64
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.off += int64(len(chunk))
		body := chunk
		terminated := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if terminated {
			body = chunk[:len(chunk)-1]
		}
		n += int64(len(body))
		if !big {
			if n > int64(bigLine) {
				big = true
				r.acc = r.acc[:0]
			} else {
				r.acc = append(r.acc, body...)
			}
		}
		if terminated || err == io.EOF {
			if !terminated && n == 0 {
				return line{}, false, nil
			}
			ln = line{start: start, end: start + n, final: !terminated}
			if !big {
				ln.data = r.acc
				if ln.data == nil {
					ln.data = []byte{}
				}
			}
			return ln, true, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return line{}, false, err
		}
	}
}

func readForward(ra io.ReaderAt, size int64, opts Options) (*Result, error) {
	rd := newReader(ra, opts)
	sk := Skips{MaxLine: rd.maxLine}
	res := &Result{Messages: []json.RawMessage{}, Size: size}
	lines := newFwdLines(ra, size)
	for {
		ln, ok, err := lines.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		msg, st, err := rd.classify(ln)
		if err != nil {
			return nil, err
		}
		if st == StatusTorn {
			res.Size = ln.start
		}
		sk.Add(st)
		if st == StatusMessage {
			res.Messages = append(res.Messages, msg)
			res.Positions = append(res.Positions, ln.start)
			res.Checks = append(res.Checks, rd.check)
			if opts.Limit > 0 && len(res.Messages) >= 2*opts.Limit {
				keep := res.Messages[len(res.Messages)-opts.Limit:]
				res.Messages = append(res.Messages[:0:0], keep...)
				res.Positions = append(res.Positions[:0:0], res.Positions[len(res.Positions)-opts.Limit:]...)
				res.Checks = append(res.Checks[:0:0], res.Checks[len(res.Checks)-opts.Limit:]...)
				res.More = true
			}
		}
	}
	if opts.Limit > 0 && len(res.Messages) > opts.Limit {
		res.Messages = res.Messages[len(res.Messages)-opts.Limit:]
		res.Positions = res.Positions[len(res.Positions)-opts.Limit:]
		res.Checks = res.Checks[len(res.Checks)-opts.Limit:]
		res.More = true
	}
	res.Skipped = sk.Total()
	sk.warn(fileName(ra), opts.Warn)
	return res, nil
}

func fileName(ra io.ReaderAt) string {
	if f, ok := ra.(interface{ Name() string }); ok {
		return f.Name()
	}
	return "(transcript)"
}

// readHeaderAt parses the first non-blank line as a session header.
func readHeaderAt(ra io.ReaderAt, size int64) (*Header, error) {
	// Fast path: a header is a few hundred bytes at the very start.
	peek := make([]byte, min(size, int64(headerPeek)))
	if err := readFull(ra, peek, 0); err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(peek, '\n'); i >= 0 && !isBlank(peek[:i]) {
		return ParseHeader(peek[:i]), nil
	}
	lines := newFwdLines(ra, size)
	for {
		ln, ok, err := lines.next()
		if err != nil || !ok {
			return nil, err
		}
		if ln.data != nil && isBlank(ln.data) {
			continue
		}
		if ln.data == nil || ln.len() > int64(headerMax) {
			return nil, nil
		}
		return ParseHeader(ln.data), nil
	}
}

// ParseHeader returns the session header in one line (or SQLite event):
// valid JSON with type "session" and a string id; nil when it is not one.
func ParseHeader(data []byte) *Header {
	if !utf8.Valid(data) || !json.Valid(data) {
		return nil
	}
	f := fields(data, "type", "version", "id", "timestamp", "cwd", "parentSession")
	typ, id := f["type"], f["id"]
	if typ.Type != gjson.String || typ.Str != "session" || id.Type != gjson.String {
		return nil
	}
	h := &Header{Type: clone(typ.Str), ID: clone(id.Str)}
	if v := f["version"]; v.Type == gjson.Number {
		h.Version = int(v.Int())
	}
	if v := f["timestamp"]; v.Type == gjson.String {
		h.Timestamp = clone(v.Str)
	}
	if v := f["cwd"]; v.Type == gjson.String {
		h.Cwd = clone(v.Str)
	}
	if v := f["parentSession"]; v.Type == gjson.String {
		h.ParentSession = clone(v.Str)
	}
	return h
}

func clone(s string) string { return string([]byte(s)) }

// Compaction summary wrapping used by pi when it replays a compaction to the
// model (pi-coding-agent core/messages.js COMPACTION_SUMMARY_PREFIX/SUFFIX).
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
)

// treeEntry is what LeafPath keeps of an entry: no message bytes, only
// where they are in the file.
type treeEntry struct {
	id, parent string
	hasParent  bool
	typ        string
	msgOff     int64 // message object's offset in the file, for type "message"
	msgLen     int64 // 0 when the entry has no message object
	summary    string
	firstKept  string
	timestamp  string
}

// LeafPath returns the model context of the transcript as pi builds it
// (format §4.4 tree semantics): the path from the leaf — the last entry in
// file order that has a string id (the header excluded) — to the root via
// parentId, in root→leaf order. An entry whose parentId is missing, null or
// unknown ends the walk; a cycle ends it too. Only `type:"message"` entries
// with a message object are returned (custom_message and branch_summary
// entries are not), as raw message objects byte-identical to the file.
//
// Compaction: when the path holds `compaction` entries, the last one (the
// nearest to the leaf) applies, as in pi's buildSessionContext: first a
// synthetic message
//
//	{"role":"user","content":[{"type":"text","text":PREFIX+summary+SUFFIX}],"timestamp":ms}
//
// — the user message pi's convertToLlm makes of its compactionSummary, with
// pi's prefix "The conversation history before this point was compacted
// into the following summary:\n\n<summary>\n" and suffix "\n</summary>";
// timestamp is the compaction's, omitted when unparsable — then the path
// entries before the compaction starting at firstKeptEntryId (none when that
// id is not on the path), then every entry after the compaction.
//
// Unreadable lines are skipped and reported once through warn (may be nil).
func LeafPath(path string, warn func(string)) ([]json.RawMessage, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := leafPath(f, size, warn)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return out, nil
}

func leafPath(ra io.ReaderAt, size int64, warn func(string)) ([]json.RawMessage, error) {
	entries, leaf, err := indexEntries(ra, size, warn)
	if err != nil {
		return nil, err
	}
	if leaf < 0 {
		return []json.RawMessage{}, nil
	}
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		byID[e.id] = i // a later duplicate wins, as in pi's Map
	}
	var chain []int // leaf → root
	seen := make(map[int]bool)
	for i := leaf; ; {
		if seen[i] {
			break
		}
		seen[i] = true
		chain = append(chain, i)
		e := entries[i]
		if !e.hasParent {
			break
		}
		p, ok := byID[e.parent]
		if !ok {
			break
		}
		i = p
	}
	pathIdx := make([]int, len(chain))
	for i, v := range chain {
		pathIdx[len(chain)-1-i] = v
	}
	comp := -1
	for i, idx := range pathIdx {
		if entries[idx].typ == "compaction" {
			comp = i
		}
	}
	var emit []int
	out := []json.RawMessage{}
	if comp >= 0 {
		c := entries[pathIdx[comp]]
		out = append(out, compactionMessage(c))
		found := false
		for _, idx := range pathIdx[:comp] {
			if entries[idx].id == c.firstKept {
				found = true
			}
			if found {
				emit = append(emit, idx)
			}
		}
		emit = append(emit, pathIdx[comp+1:]...)
	} else {
		emit = pathIdx
	}
	for _, idx := range emit {
		e := entries[idx]
		if e.typ != "message" || e.msgLen == 0 {
			continue
		}
		b := make([]byte, e.msgLen)
		if err := readFull(ra, b, e.msgOff); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func compactionMessage(c treeEntry) json.RawMessage {
	block := jsonx.NewObject()
	_ = block.Set("type", "text")
	_ = block.Set("text", compactionSummaryPrefix+c.summary+compactionSummarySuffix)
	msg := jsonx.NewObject()
	_ = msg.Set("role", "user")
	_ = msg.Set("content", []*jsonx.Object{block})
	if t, err := time.Parse(time.RFC3339Nano, c.timestamp); err == nil {
		_ = msg.Set("timestamp", t.UnixMilli())
	}
	b, _ := jsonx.Marshal(msg)
	return b
}

// indexEntries reads every entry forwards and returns them with the index of
// the leaf (-1 when no entry has an id).
func indexEntries(ra io.ReaderAt, size int64, warn func(string)) ([]treeEntry, int, error) {
	rd := newReader(ra, Options{IncludeTools: true})
	sk := Skips{MaxLine: rd.maxLine}
	lines := newFwdLines(ra, size)
	var entries []treeEntry
	leaf := -1
	for {
		ln, ok, err := lines.next()
		if err != nil {
			return nil, -1, err
		}
		if !ok {
			break
		}
		data, st, err := rd.load(ln)
		if err != nil {
			return nil, -1, err
		}
		sk.Add(st)
		if data == nil {
			continue
		}
		fs := fields(data, "type", "id", "parentId", "message", "summary", "firstKeptEntryId", "timestamp")
		typ := fs["type"]
		if typ.Type == gjson.String && typ.Str == "session" {
			continue
		}
		id := fs["id"]
		if id.Type != gjson.String {
			continue
		}
		e := treeEntry{id: clone(id.Str)}
		if typ.Type == gjson.String {
			e.typ = clone(typ.Str)
		}
		if p := fs["parentId"]; p.Type == gjson.String {
			e.parent, e.hasParent = clone(p.Str), true
		}
		if m := fs["message"]; e.typ == "message" && m.IsObject() {
			if start, end, ok := span(str(data), m); ok {
				e.msgOff, e.msgLen = ln.start+int64(start), int64(end-start)
			}
		}
		if e.typ == "compaction" {
			e.summary = clone(fs["summary"].String())
			e.firstKept = clone(fs["firstKeptEntryId"].String())
			e.timestamp = clone(fs["timestamp"].String())
		}
		entries = append(entries, e)
		leaf = len(entries) - 1
	}
	sk.warn(fileName(ra), warn)
	return entries, leaf, nil
}

// load returns a line's bytes when it is a readable, non-blank JSON line
// (classify's size rule, Classify's blank and corrupt rules), loading a big
// line from the file.
func (r *reader) load(ln line) ([]byte, Status, error) {
	n := ln.len()
	if n > r.maxLine {
		if ln.final {
			return nil, StatusTorn, nil
		}
		return nil, StatusOversize, nil
	}
	data := ln.data
	if data == nil {
		data = make([]byte, n)
		if err := readFull(r.ra, data, ln.start); err != nil {
			return nil, StatusSilent, err
		}
	}
	if isBlank(data) {
		return nil, StatusSilent, nil
	}
	if !utf8.Valid(data) || !json.Valid(data) {
		if ln.final {
			return nil, StatusTorn, nil
		}
		return nil, StatusCorrupt, nil
	}
	return data, StatusSilent, nil
}
