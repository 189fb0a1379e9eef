// Package usage counts what OpenClaw's agents spent: the tokens and cost of
// every assistant message's `usage` (pi format), read from JSONL transcripts
// and from the events of the 2026.8+ SQLite store, rolled up by day, week,
// month, model, provider, agent, session, kind, channel or cron job.
//
// The scan is the fast path: a transcript is streamed through a fixed
// buffer, and a line is parsed only when a byte search finds `"usage"` in it
// (only assistant messages carry usage). ScanNaive is the plain path that
// parses every line; a fuzz target and the tests hold them equal. Rollup is
// pure: no I/O. Cache keeps each file's records keyed by its identity
// (device, inode, size, mtime) so a second run reads only what changed.
package usage

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Message is the usage of one assistant message as a scan reads it. Its
// strings are views of the line: valid only during the scan's callback
// (Clone keeps one; Part.Add stores it compactly).
type Message struct {
	EntryID    string // the transcript entry's id ("" when it has none)
	TS         int64  // ms since the epoch (message.timestamp, else the entry's)
	Provider   string
	Model      string
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
	// CostMicros is the cost OpenClaw recorded (usage.cost.total) in
	// micro-USD, when HasCost.
	CostMicros int64
	HasCost    bool
}

// Skips counts the lines a scan left out.
type Skips struct {
	InvalidUTF8 int // not valid UTF-8
	Corrupt     int // not JSON
	Torn        int // the last line, unterminated and not JSON (being written)
	Oversize    int // longer than MaxLine
}

// Total is the number of skipped lines.
func (s Skips) Total() int { return s.InvalidUTF8 + s.Corrupt + s.Torn + s.Oversize }

// Add adds o to s.
func (s *Skips) Add(o Skips) {
	s.InvalidUTF8 += o.InvalidUTF8
	s.Corrupt += o.Corrupt
	s.Torn += o.Torn
	s.Oversize += o.Oversize
}

// MaxLine bounds a line the scan will parse (a longer one is skipped and
// counted, never held in memory whole). Assistant messages with usage are
// far smaller; the big lines of a transcript are tool results and images.
const MaxLine = 16 << 20

// bufSize is the scan buffer: lines up to it are handled in place.
const bufSize = 256 << 10

var usageKey = []byte(`"usage"`)

// lineStatus is what Extract made of one line.
type lineStatus int

const (
	lineNone    lineStatus = iota // valid, but no assistant usage in it
	lineRecord                    // an assistant message with usage
	lineBadUTF8                   // invalid UTF-8
	lineCorrupt                   // not JSON
)

// Extract reads the usage of one transcript line (a JSONL line, or one
// event of the SQLite store): an entry {"type":"message","id",
// "timestamp","message":{"role":"assistant","usage":{…},"provider",
// "model","timestamp"}}. Only lines that are valid UTF-8 and valid JSON
// count.
func Extract(line []byte) (Message, lineStatus) {
	if !utf8.Valid(line) {
		return Message{}, lineBadUTF8
	}
	if !gjson.ValidBytes(line) {
		return Message{}, lineCorrupt
	}
	// A view of the line, not a copy (gjson.ParseBytes copies): the
	// message's strings are views too, valid while the line is.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	if !root.IsObject() {
		return Message{}, lineNone
	}
	// One pass over each object (a Get per key would walk the message's
	// content again for every key); the first of duplicate keys wins, as
	// for gjson.Get.
	var id, ets, m gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == "id" && !id.Exists():
			id = v
		case k.Str == "timestamp" && !ets.Exists():
			ets = v
		case k.Str == "message" && !m.Exists():
			m = v
		}
		return true
	})
	if !m.IsObject() {
		return Message{}, lineNone
	}
	var role, u, prov, model, mts gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			if !role.Exists() {
				role = v
				if v.Type != gjson.String || v.Str != "assistant" {
					return false
				}
			}
		case "usage":
			if !u.Exists() {
				u = v
			}
		case "provider":
			if !prov.Exists() {
				prov = v
			}
		case "model":
			if !model.Exists() {
				model = v
			}
		case "timestamp":
			if !mts.Exists() {
				mts = v
			}
		}
		return true
	})
	if role.Type != gjson.String || role.Str != "assistant" || !u.IsObject() {
		return Message{}, lineNone
	}
	var r Message
	if id.Type == gjson.String {
		r.EntryID = id.Str
	}
	if prov.Type == gjson.String {
		r.Provider = prov.Str
	}
	if model.Type == gjson.String {
		r.Model = model.Str
	}
	if mts.Type == gjson.Number && finite(mts.Num) {
		r.TS = int64(mts.Num)
	} else if ets.Type == gjson.String {
		if t, err := time.Parse(time.RFC3339Nano, ets.Str); err == nil {
			r.TS = t.UnixMilli()
		}
	}
	var in, out, cr, cw, cost gjson.Result
	u.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "input":
			if !in.Exists() {
				in = v
			}
		case "output":
			if !out.Exists() {
				out = v
			}
		case "cacheRead":
			if !cr.Exists() {
				cr = v
			}
		case "cacheWrite":
			if !cw.Exists() {
				cw = v
			}
		case "cost":
			if !cost.Exists() {
				cost = v
			}
		}
		return true
	})
	r.Input, r.Output, r.CacheRead, r.CacheWrite = tokens(in), tokens(out), tokens(cr), tokens(cw)
	if cost.IsObject() {
		if t := cost.Get("total"); t.Type == gjson.Number && finite(t.Num) && t.Num >= 0 {
			r.CostMicros = int64(math.Round(t.Num * 1e6))
			r.HasCost = true
		}
	}
	return r, lineRecord
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// tokens reads a token count: a non-negative finite number, else 0.
func tokens(v gjson.Result) int64 {
	if v.Type != gjson.Number || !finite(v.Num) || v.Num < 0 || v.Num > 1e15 {
		return 0
	}
	return int64(math.Round(v.Num))
}

// wanted is the byte pre-filter: a line can hold an assistant message's
// usage only if the key "usage" is in it — as such, or spelled with a \u
// escape (a letter can be escaped no other way in JSON; OpenClaw never does
// it, but the pre-filter must never drop what a parse would find).
func wanted(line []byte) bool {
	return bytes.Contains(line, usageKey) || bytes.Contains(line, escapeMark)
}

var escapeMark = []byte(`\u`)

// Scan streams one JSONL transcript and calls fn for every assistant
// message with usage, in file order. Memory is bounded (one buffer, and a
// line longer than it only while it is read, up to MaxLine). The last line,
// unterminated and not JSON, is a torn write and counted in Skips.Torn.
func Scan(r io.Reader, fn func(Message)) (Skips, error) {
	return scan(r, bufSize, MaxLine, fn)
}

// readers recycles the scan buffers across files (1,000 files, 2 workers:
// 2 buffers, not 1,000).
var readers sync.Pool

func scan(r io.Reader, size, maxLine int, fn func(Message)) (Skips, error) {
	var sk Skips
	br, _ := readers.Get().(*bufio.Reader)
	if br == nil || br.Size() != max(size, 16) {
		br = bufio.NewReaderSize(r, size)
	} else {
		br.Reset(r)
	}
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	// A line longer than the buffer (a big tool result, an image) is
	// searched for "usage" as it streams by, never copied: only when it has
	// it is it read again whole — with ReadAt from a file, else from a copy
	// kept while it streamed (a decompressed archive).
	ra, _ := r.(io.ReaderAt)
	var (
		pos       int64 // bytes consumed
		inLong    bool
		longStart int64
		longHas   bool
		oversize  bool
		long      []byte // the copy, when r is no ReaderAt
		tail      []byte // the last bytes of the previous fragment
	)
	edge := make([]byte, 0, 2*len(usageKey))
	handle := func(line []byte, terminated bool) {
		if !wanted(line) {
			return
		}
		rec, st := extractFast(line)
		switch st {
		case lineRecord:
			fn(rec)
		case lineBadUTF8:
			sk.InvalidUTF8++
		case lineCorrupt:
			if terminated {
				sk.Corrupt++
			} else {
				sk.Torn++
			}
		}
	}
	for {
		frag, err := br.ReadSlice('\n')
		fragStart := pos
		pos += int64(len(frag))
		full := errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !full && !errors.Is(err, io.EOF) {
			return sk, err
		}
		terminated := err == nil
		if !full && !inLong {
			line := frag
			if terminated {
				line = line[:len(line)-1]
			}
			if len(line) > maxLine {
				sk.Oversize++
			} else {
				handle(line, terminated)
			}
			if !terminated {
				return sk, nil
			}
			continue
		}
		// Part of a long line.
		if !inLong {
			inLong, longStart, longHas, oversize, long, tail = true, fragStart, false, false, long[:0], tail[:0]
		}
		if !longHas {
			edge = append(append(edge[:0], tail...), frag[:min(len(frag), len(usageKey)-1)]...)
			longHas = wanted(edge) || wanted(frag)
			tail = append(tail[:0], frag[max(0, len(frag)-(len(usageKey)-1)):]...)
		}
		n := pos - longStart // the line so far, newline included when terminated
		if terminated {
			n--
		}
		if n > int64(maxLine) {
			oversize, long = true, long[:0]
		} else if ra == nil {
			long = append(long, frag...)
		}
		if full {
			continue
		}
		inLong = false
		switch {
		case oversize:
			sk.Oversize++
		case longHas && ra != nil:
			line := make([]byte, n)
			if _, rerr := ra.ReadAt(line, longStart); rerr != nil && !errors.Is(rerr, io.EOF) {
				return sk, rerr
			}
			handle(line, terminated)
		case longHas:
			if terminated {
				long = long[:len(long)-1]
			}
			handle(long, terminated)
		}
		if cap(long) > size {
			long = nil // never keep a big copy around
		}
		if !terminated {
			return sk, nil
		}
	}
}

// ScanNaive is the plain path Scan must equal: split every line, parse
// every line, no pre-filter. Tests and the fuzz target compare the two.
func ScanNaive(data []byte, fn func(Message)) Skips { return scanNaive(data, MaxLine, fn) }

func scanNaive(data []byte, maxLine int, fn func(Message)) Skips {
	var sk Skips
	for len(data) > 0 {
		line := data
		terminated := false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, terminated = data[:i], data[i+1:], true
		} else {
			data = nil
		}
		if len(line) > maxLine {
			sk.Oversize++
			continue
		}
		rec, st := Extract(line)
		switch st {
		case lineRecord:
			fn(rec)
		case lineBadUTF8:
			if wanted(line) {
				sk.InvalidUTF8++
			}
		case lineCorrupt:
			if wanted(line) {
				if terminated {
					sk.Corrupt++
				} else {
					sk.Torn++
				}
			}
		}
	}
	return sk
}

// Clone returns m with strings of its own.
func (m Message) Clone() Message {
	m.EntryID, m.Provider, m.Model = strings.Clone(m.EntryID), strings.Clone(m.Provider), strings.Clone(m.Model)
	return m
}
