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

// Record is the usage of one assistant message.
type Record struct {
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
func Extract(line []byte) (Record, lineStatus) {
	if !utf8.Valid(line) {
		return Record{}, lineBadUTF8
	}
	if !gjson.ValidBytes(line) {
		return Record{}, lineCorrupt
	}
	// A view of the line, not a copy (gjson.ParseBytes copies): every
	// string kept below is cloned, so a record never pins a line (or the
	// scan buffer) in memory.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	if !root.IsObject() {
		return Record{}, lineNone
	}
	m := root.Get("message")
	if !m.IsObject() {
		return Record{}, lineNone
	}
	f := m.Get("role")
	if f.Type != gjson.String || f.Str != "assistant" {
		return Record{}, lineNone
	}
	u := m.Get("usage")
	if !u.IsObject() {
		return Record{}, lineNone
	}
	var r Record
	if id := root.Get("id"); id.Type == gjson.String {
		r.EntryID = strings.Clone(id.Str)
	}
	if p := m.Get("provider"); p.Type == gjson.String {
		r.Provider = strings.Clone(p.Str)
	}
	if p := m.Get("model"); p.Type == gjson.String {
		r.Model = strings.Clone(p.Str)
	}
	if ts := m.Get("timestamp"); ts.Type == gjson.Number && finite(ts.Num) {
		r.TS = int64(ts.Num)
	} else if ts := root.Get("timestamp"); ts.Type == gjson.String {
		if t, err := time.Parse(time.RFC3339Nano, ts.Str); err == nil {
			r.TS = t.UnixMilli()
		}
	}
	r.Input = tokens(u.Get("input"))
	r.Output = tokens(u.Get("output"))
	r.CacheRead = tokens(u.Get("cacheRead"))
	r.CacheWrite = tokens(u.Get("cacheWrite"))
	if c := u.Get("cost"); c.IsObject() {
		if t := c.Get("total"); t.Type == gjson.Number && finite(t.Num) && t.Num >= 0 {
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

// wanted is the byte pre-filter: only a line that mentions "usage" can hold
// an assistant message's usage. (OpenClaw writes JSON.stringify output: a key
// is never escaped.)
func wanted(line []byte) bool { return bytes.Contains(line, usageKey) }

// Scan streams one JSONL transcript and calls fn for every assistant
// message with usage, in file order. Memory is bounded (one buffer, and a
// line longer than it only while it is read, up to MaxLine). The last line,
// unterminated and not JSON, is a torn write and counted in Skips.Torn.
func Scan(r io.Reader, fn func(Record)) (Skips, error) {
	return scan(r, bufSize, MaxLine, fn)
}

// readers recycles the scan buffers across files (1,000 files, 2 workers:
// 2 buffers, not 1,000).
var readers sync.Pool

func scan(r io.Reader, size, maxLine int, fn func(Record)) (Skips, error) {
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
	var long []byte // a line longer than the buffer, while it is read
	oversize := false
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !oversize {
				if len(long)+len(frag) > maxLine {
					oversize, long = true, nil
				} else {
					long = append(long, frag...)
				}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return sk, err
		}
		terminated := err == nil
		line := frag
		if oversize {
			sk.Oversize++
			oversize, line = false, nil
		} else if long != nil {
			long = append(long, frag...)
			line, long = long, nil
		}
		if line != nil {
			if terminated {
				line = line[:len(line)-1]
			}
			if len(line) > maxLine {
				sk.Oversize++
			} else if wanted(line) {
				rec, st := Extract(line)
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
		}
		if !terminated {
			return sk, nil
		}
	}
}

// ScanNaive is the plain path Scan must equal: split every line, parse
// every line, no pre-filter. Tests and the fuzz target compare the two.
func ScanNaive(data []byte, fn func(Record)) Skips { return scanNaive(data, MaxLine, fn) }

func scanNaive(data []byte, maxLine int, fn func(Record)) Skips {
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
