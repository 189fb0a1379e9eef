package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// revLines yields a file's lines from the last to the first, reading fixed
// blocks backwards from EOF (DEPS §4). Of the line being assembled it keeps
// at most about bigLine+blockSize bytes: beyond that it only tracks where
// the line starts, and the caller re-reads the line from the file if it
// needs it. Every block is read once; a line spanning blocks is joined once.
type revLines struct {
	ra   io.ReaderAt
	size int64
	off  int64 // file[0:off] is not loaded yet
	// buf = file[off:off+len(buf)]: loaded bytes not yet split into lines.
	buf []byte
	// tail: the current line's bytes after buf, in file order (pieces of
	// earlier blocks); tailLen is their total length.
	tail    [][]byte
	tailLen int
	lineEnd int64 // end of the current line (its "\n" or EOF)
	big     bool  // the current line is longer than bigLine: tail dropped
	scratch []byte
	done    bool
	blk     int // size of the next block (firstBlock, doubling to blockSize)
}

func newRevLines(ra io.ReaderAt, size int64) *revLines {
	return &revLines{ra: ra, size: size, off: size, lineEnd: size}
}

// next returns the previous line; ok is false when the first line has been
// returned. The line's data is valid until the next call.
func (r *revLines) next() (ln line, ok bool, err error) {
	for !r.done {
		if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 {
			ln = r.take(r.off+int64(i)+1, r.buf[i+1:])
			r.buf = r.buf[:i]
			r.lineEnd = r.off + int64(i)
			if ln.final && ln.start == ln.end {
				continue // the file ends with "\n": nothing after it
			}
			return ln, true, nil
		}
		// No "\n" in buf: all of it belongs to the current line.
		if !r.big && len(r.buf) > 0 {
			r.tail = append([][]byte{r.buf}, r.tail...)
			r.tailLen += len(r.buf)
			if r.tailLen > bigLine {
				r.big = true
				r.tail, r.tailLen = nil, 0
			}
		}
		r.buf = nil
		if r.off == 0 {
			r.done = true
			ln = r.take(0, nil)
			if ln.final && ln.start == ln.end {
				return line{}, false, nil // empty file
			}
			return ln, true, nil
		}
		if r.blk == 0 {
			r.blk = min(firstBlock, blockSize)
		}
		k := int(min(int64(r.blk), r.off))
		r.blk = min(2*r.blk, blockSize)
		r.off -= int64(k)
		var b []byte
		if r.big {
			// Nothing keeps a reference to scratch while the line is big.
			if cap(r.scratch) < k {
				r.scratch = make([]byte, k)
			}
			b = r.scratch[:k]
		} else {
			b = make([]byte, k)
		}
		if err := readFull(r.ra, b, r.off); err != nil {
			return line{}, false, err
		}
		r.buf = b
	}
	return line{}, false, nil
}

// take ends the current line at start; head is its first bytes (the rest is
// in tail).
func (r *revLines) take(start int64, head []byte) line {
	ln := line{start: start, end: r.lineEnd, final: r.lineEnd == r.size}
	if !r.big {
		switch {
		case len(r.tail) == 0:
			ln.data = head
		default:
			data := make([]byte, 0, len(head)+r.tailLen)
			data = append(data, head...)
			for _, p := range r.tail {
				data = append(data, p...)
			}
			ln.data = data
		}
		if ln.data == nil {
			ln.data = []byte{}
		}
	}
	r.tail, r.tailLen, r.big = nil, 0, false
	return ln
}

func readBackward(ra io.ReaderAt, size int64, opts Options) (*Result, error) {
	rd := newReader(ra, opts)
	sk := Skips{MaxLine: rd.maxLine}
	res := &Result{Size: size}
	var newest []json.RawMessage // newest first
	var pos []int64
	var checks []uint32
	want := opts.Limit
	if opts.More {
		want++ // one more tells whether an older message exists
	}
	lines := newRevLines(ra, size)
	for len(newest) < want {
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
			newest = append(newest, msg)
			pos = append(pos, ln.start)
			checks = append(checks, rd.check)
		}
	}
	if len(newest) > opts.Limit {
		newest, pos, checks, res.More = newest[:opts.Limit], pos[:opts.Limit], checks[:opts.Limit], true
	}
	n := len(newest)
	res.Messages = make([]json.RawMessage, n)
	res.Positions = make([]int64, n)
	res.Checks = make([]uint32, n)
	for i, m := range newest {
		res.Messages[n-1-i] = m
		res.Positions[n-1-i] = pos[i]
		res.Checks[n-1-i] = checks[i]
	}
	res.Skipped = sk.Total()
	sk.warn(fileName(ra), opts.Warn)
	return res, nil
}

// LastEntryID returns the id of the last entry in file order that has a
// string id (the session header excluded; lines that are unreadable or have
// no id are passed over) — the parentId for an append — and whether the
// file holds an assistant message (an entry of type "message" whose
// message.role is "assistant"). It reads backwards from EOF and stops as
// soon as it knows both. id is "" when no entry has one. A missing file is
// an error wrapping fs.ErrNotExist.
func LastEntryID(path string) (id string, hasAssistant bool, err error) {
	f, size, err := open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	id, hasAssistant, err = lastEntryID(f, size)
	if err != nil {
		return "", false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return id, hasAssistant, nil
}

func lastEntryID(ra io.ReaderAt, size int64) (id string, hasAssistant bool, err error) {
	rd := newReader(ra, Options{IncludeTools: true})
	lines := newRevLines(ra, size)
	found := false
	for !found || !hasAssistant {
		ln, ok, err := lines.next()
		if err != nil {
			return "", false, err
		}
		if !ok {
			break
		}
		data, _, err := rd.load(ln)
		if err != nil {
			return "", false, err
		}
		if data == nil {
			continue
		}
		fs := fields(data, "type", "id", "message")
		typ := fs["type"]
		isHeader := typ.Type == gjson.String && typ.Str == "session"
		if v := fs["id"]; !found && !isHeader && v.Type == gjson.String {
			id, found = clone(v.Str), true
		}
		if m := fs["message"]; !hasAssistant && typ.Type == gjson.String && typ.Str == "message" && m.IsObject() {
			if start, end, ok := span(str(data), m); ok && lastString(data[start:end], "role") == "assistant" {
				hasAssistant = true
			}
		}
	}
	return id, hasAssistant, nil
}
