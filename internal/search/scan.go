package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"

	"github.com/openclaw/sessions/internal/transcript"
)

const (
	// DefaultMaxLine is the longest transcript line (or event) read; longer
	// ones are skipped and counted. It bounds a scanner's buffer, and so the
	// memory of a search (one buffer per worker).
	DefaultMaxLine = 16 << 20
	// chunk is the size of a scanner's reads (and its buffer when no line
	// is longer): small enough that what read() copied is still in the
	// CPU's cache when it is searched (128 KiB cost ~10% less CPU than
	// 1 MiB over the bench's 1 GB).
	chunk = 128 << 10
	// SnippetBefore and SnippetAfter bound a hit's snippet around the match.
	SnippetBefore, SnippetAfter = 60, 100
)

// Options say which messages are hits.
type Options struct {
	Matcher      *Matcher
	IncludeTools bool     // search tool results and tool calls too
	Roles        []string // only these roles ("user", "assistant", "tool"); nil = all
	Since, Until int64    // epoch ms, since inclusive, until exclusive; 0 = unbounded
	MaxLine      int      // 0 = DefaultMaxLine
	// Mask, when set, masks every message's searchable text before it is
	// matched (ExtractMasked): the caller is an agent, and what it finds,
	// counts and reads is the masked text only.
	Mask Masker
	// Budget, with Mask, bounds the bytes of text a search masks (0: no
	// bound): once a line takes the count to Budget the search stops, and
	// the result is Partial. Since every line in scope is masked whatever
	// the query, where it stops depends on the data and the scope only;
	// the sources are then searched one after another (one worker), so it
	// is the same place every time.
	Budget int64
	// Relevance ranks the hits of a words query by BM25 (rank.go) instead
	// of newest first; it has no effect on other queries.
	Relevance bool
	// stats, set by NewScanner when ranking, counts the messages searched.
	stats *rankStats
}

// filter is the byte pre-filter the scan may use on raw lines (nil: every
// line is parsed). A masked search (an agent's) has none: which lines it
// parses, how many and how far it reads must not depend on anything the
// mask hides, and a pre-filter on the raw bytes would parse (and mask, at
// a cost) exactly the lines that hold a right guess of a masked secret —
// its time would tell the guess (issue 34). So every line in scope is
// parsed and masked, then matched on the masked text.
func (o *Options) filter() *prefilter {
	p := &o.Matcher.pre
	if p.needle == nil || o.Mask != nil {
		return nil
	}
	return p
}

// maskText is a text as the search's caller may read it.
func (o *Options) maskText(s string) string {
	if o.Mask != nil {
		s, _ = o.Mask.Redact(s)
	}
	return s
}

func (o *Options) maxLine() int {
	if o.MaxLine <= 0 {
		return DefaultMaxLine
	}
	return o.MaxLine
}

// Hit is one message that matches.
type Hit struct {
	Pos       int64 // the line's byte offset in its file, or the event's seq
	ID        string
	Role      string
	Timestamp int64
	Snippet   string
	// MatchStart and MatchEnd are the match's byte offsets in Snippet.
	MatchStart, MatchEnd int
	// Score is the hit's relevance (Options.Relevance; else 0).
	Score float64
	tf    []int32 // a words query's term counts in the message
	words int     // the message's length in words
}

// passes reports whether m passes the filters (tools, roles, times).
func (o *Options) passes(m Message) bool {
	if m.Role == "tool" && !o.IncludeTools {
		return false
	}
	if len(o.Roles) > 0 && !slices.Contains(o.Roles, m.Role) {
		return false
	}
	return (o.Since == 0 || m.Timestamp >= o.Since) && (o.Until == 0 || m.Timestamp < o.Until)
}

// Accepts reports whether Accept would make m a hit, without making the
// hit (its snippet): for a caller that counts the hits it does not show.
// A ranked search counts every message it examines: it uses Accept.
func (o *Options) Accepts(m Message) bool {
	if !o.passes(m) {
		return false
	}
	_, _, ok := o.Matcher.Find(m.Text)
	return ok
}

// Accept applies the filters and the query to a message.
func (o *Options) Accept(m Message, pos int64) (Hit, bool) {
	if !o.passes(m) {
		return Hit{}, false
	}
	var tf []int32
	var words int
	var s, e int
	if w := o.Matcher.words; w != nil {
		wm := w.match(m.Text, o.stats != nil)
		if o.stats != nil {
			o.stats.add(&wm)
		}
		if !wm.ok {
			return Hit{}, false
		}
		s, e, tf, words = wm.start, wm.end, wm.tf, wm.words
	} else {
		var ok bool
		if s, e, ok = o.Matcher.Find(m.Text); !ok {
			return Hit{}, false
		}
	}
	snip, ms, me := Snippet(m.Text, s, e, SnippetBefore, SnippetAfter)
	return Hit{Pos: pos, ID: m.ID, Role: m.Role, Timestamp: m.Timestamp, Snippet: snip, MatchStart: ms, MatchEnd: me, tf: tf, words: words}, true
}

// Line examines one complete line (or event) at pos: its hit, if any, and
// its status (StatusCorrupt / StatusOversize are to be counted).
func (o *Options) Line(line []byte, pos int64) (Hit, bool, transcript.Status) {
	if len(line) > o.maxLine() {
		return Hit{}, false, transcript.StatusOversize
	}
	m, st := extract(line, o.IncludeTools, o.Mask)
	if st != transcript.StatusMessage {
		return Hit{}, false, st
	}
	h, ok := o.Accept(m, pos)
	return h, ok, st
}

// Work is what a search did, counted the same way whatever it looks for:
// for an agent (Options.Mask) it must not depend on the query — every
// line in scope is read, parsed and masked whether or not a guessed
// string is in its raw bytes — and the counters prove it without a clock
// (adversarial_search_oracle_test.go).
type Work struct {
	Lines       int64 // lines, events and index rows examined (with a byte pre-filter: those it let through)
	Parsed      int64 // of them, those within MaxLine handed to Options.Line (parsed, masked, matched)
	BytesMasked int64 // bytes handed to the mask (a message's JSON, a text)
	Hits        int64 // hits found
}

func (w *Work) add(v Work) {
	w.Lines += v.Lines
	w.Parsed += v.Parsed
	w.BytesMasked += v.BytesMasked
	w.Hits += v.Hits
}

// CountingMask is m counting the bytes it is handed into w, as the scan
// counts them (Work.BytesMasked): for a search answered another way (the
// index) that must report the same work.
func CountingMask(m Masker, w *Work) Masker { return countingMask{m: m, w: w} }

// countingMask is a Masker that counts the bytes it is handed into a
// scanner's Work.
type countingMask struct {
	m Masker
	w *Work
}

func (c countingMask) Redact(text string) (string, bool) {
	c.w.BytesMasked += int64(len(text))
	return c.m.Redact(text)
}

func (c countingMask) MaskJSON(raw []byte) ([]byte, bool) {
	c.w.BytesMasked += int64(len(raw))
	return c.m.MaskJSON(raw)
}

func (c countingMask) MaskMessage(raw json.RawMessage) (json.RawMessage, bool) {
	c.w.BytesMasked += int64(len(raw))
	return c.m.MaskMessage(raw)
}

// Stats is what a scan skipped.
type Stats struct {
	Skips transcript.Skips
	Torn  bool // the unterminated last line was not JSON (a writer mid-append)
}

// Scanner streams transcript files through one bounded buffer; use one per
// goroutine.
type Scanner struct {
	o   *Options // the caller's options, the mask counting into work
	buf []byte
	// work is what the scanner did, over every Scan.
	work Work
	// stopped: the mask budget is spent (Options.Budget); nothing more is
	// examined.
	stopped bool
	// pre is the byte pre-filter (nil: none; Options.filter).
	pre *prefilter
	// lineFn, when set, gets every line (no pre-filter, no parsing).
	lineFn func(pos int64, line []byte)
}

// NewScanner returns a scanner for o.
func NewScanner(o *Options) *Scanner {
	s := &Scanner{}
	oc := *o
	if oc.Mask != nil {
		oc.Mask = countingMask{m: oc.Mask, w: &s.work}
	}
	if oc.Relevance && oc.Matcher != nil && oc.Matcher.words != nil {
		oc.stats = newRankStats(len(oc.Matcher.words.terms))
	} else {
		oc.stats = nil
	}
	s.o = &oc
	if oc.stats == nil {
		// ranking counts every message in scope: no line is ruled out
		s.pre = oc.filter()
	}
	return s
}

// ranking reports whether o ranks by relevance.
func (o *Options) ranking() bool {
	return o.Relevance && o.Matcher != nil && o.Matcher.words != nil
}

// Work is what the scanner did so far.
func (s *Scanner) Work() Work { return s.work }

// examine is Options.Line for one line, event or row, counted.
func (s *Scanner) examine(line []byte, pos int64) (Hit, bool, transcript.Status) {
	s.work.Lines++
	if len(line) <= s.o.maxLine() {
		s.work.Parsed++
	}
	h, ok, st := s.o.Line(line, pos)
	if ok {
		s.work.Hits++
	}
	s.spent()
	return h, ok, st
}

// spent notes whether the mask budget is used up.
func (s *Scanner) spent() {
	if s.o.Mask != nil && s.o.Budget > 0 && s.work.BytesMasked >= s.o.Budget {
		s.stopped = true
	}
}

// Stopped reports whether the scanner stopped on the mask budget.
func (s *Scanner) Stopped() bool { return s.stopped }

// Scan reads r to its end and calls emit for every hit, in file order.
// Lines the pre-filter rules out are never parsed; no more than
// MaxLine+1 bytes (at least 1 MiB) are held at once. Lines longer than
// MaxLine, invalid UTF-8 and corrupt JSON are skipped and counted among
// the lines examined; an unterminated last line that is not JSON is torn.
func (s *Scanner) Scan(r io.Reader, emit func(Hit)) (Stats, error) {
	st := Stats{Skips: transcript.Skips{MaxLine: int64(s.o.maxLine())}}
	limit := s.o.maxLine() + 1 // a full line and its '\n'
	if s.buf == nil {
		s.buf = make([]byte, min(chunk, limit))
	}
	var (
		off      int64 // file offset of buf[0]
		n        int   // bytes held
		skipping bool  // discarding the rest of an oversize line
		eof      bool
	)
	for !eof && !s.stopped {
		if n == len(s.buf) {
			// No newline in a full buffer: grow up to the limit, then give up on the line.
			if len(s.buf) < limit {
				nb := make([]byte, min(2*len(s.buf), limit))
				copy(nb, s.buf[:n])
				s.buf = nb
			} else {
				st.Skips.Add(transcript.StatusOversize)
				skipping = true
				off += int64(n)
				n = 0
			}
		}
		m, err := io.ReadFull(r, s.buf[n:])
		n += m
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			eof = true
		} else if err != nil {
			return st, err
		}
		data := s.buf[:n]
		start := 0
		if skipping {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				off += int64(n)
				n = 0
				continue
			}
			skipping = false
			start = i + 1
		}
		last := bytes.LastIndexByte(data, '\n')
		if last >= start {
			s.block(data[start:last+1], off+int64(start), &st, emit)
			start = last + 1
		}
		copy(s.buf, data[start:])
		off += int64(start)
		n -= start
	}
	if n > 0 && !skipping && !s.stopped {
		s.tail(s.buf[:n], off, &st, emit)
	}
	return st, nil
}

// block handles complete lines (data ends with '\n'); base is data's offset.
func (s *Scanner) block(data []byte, base int64, st *Stats, emit func(Hit)) {
	p := s.pre
	if p == nil {
		for len(data) > 0 && !s.stopped {
			i := bytes.IndexByte(data, '\n')
			s.line(data[:i], base, st, emit)
			data, base = data[i+1:], base+int64(i+1)
		}
		return
	}
	// The next needle and the next \u escape that may stand for a
	// character of it, each searched once.
	nextN, nextE := -2, -2
	for pos := 0; pos < len(data); {
		if nextN != -1 && nextN < pos {
			if nextN = p.index(data[pos:]); nextN >= 0 {
				nextN += pos
			}
		}
		if nextE != -1 && nextE < pos {
			if nextE = p.escIndex(data[pos:]); nextE >= 0 {
				nextE += pos
			}
		}
		var i int
		switch {
		case nextN < 0 && nextE < 0:
			return
		case nextN < 0:
			i = nextE
		case nextE < 0:
			i = nextN
		default:
			i = min(nextN, nextE)
		}
		ls := bytes.LastIndexByte(data[:i], '\n') + 1
		le := i + bytes.IndexByte(data[i:], '\n')
		s.line(data[ls:le], base+int64(ls), st, emit)
		pos = le + 1
	}
}

func (s *Scanner) line(line []byte, pos int64, st *Stats, emit func(Hit)) {
	if s.lineFn != nil {
		s.lineFn(pos, line)
		return
	}
	h, ok, status := s.examine(line, pos)
	st.Skips.Add(status)
	if ok {
		emit(h)
	}
}

// tail handles the unterminated last line: a message when it is complete
// JSON, else torn (never counted as corrupt).
func (s *Scanner) tail(line []byte, pos int64, st *Stats, emit func(Hit)) {
	if p := s.pre; p != nil && p.index(line) < 0 && p.escIndex(line) < 0 {
		return
	}
	if s.lineFn != nil {
		s.lineFn(pos, line)
		return
	}
	h, ok, status := s.examine(line, pos)
	switch status {
	case transcript.StatusCorrupt:
		st.Torn = true
	default:
		st.Skips.Add(status)
	}
	if ok {
		emit(h)
	}
}
