package search

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/dirstat"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/transcript"
)

// Source is one transcript to search: a JSONL file (Path), or a session of
// a 2026.8+ SQLite store (DB and SessionID).
type Source struct {
	Agent, Key, Kind, Label, SessionID string
	// Archived is the file name of a .deleted/.reset archived transcript.
	Archived string
	// Orphan: a transcript no entry points to (transcripts.Orphan); Key is
	// the session it belonged to when that is known.
	Orphan bool
	Path   string
	Zstd   bool // Path is zstd-compressed (a 2026.9 archive, *.zst)
	DB     *sqlitestore.DB
	// Archive: an archived transcript kept in DB's store (2026.9), read
	// from there instead of Path.
	Archive *sqlitestore.Archive
	// Index: OpenClaw's search index is current for this session (see
	// sqlitestore.FTSCurrent); it is read instead of the events unless tool
	// messages are searched (the index holds user and assistant text only).
	Index bool
	// Stat is the lstat of Path the listing took (nil: none taken; a
	// store's session has none): the search index weighs and catches up
	// from it instead of taking another (searchindex.Index.Backlog).
	Stat *dirstat.Stat
}

// Where a hit was found.
const (
	FromTranscript = "transcript" // a JSONL file
	FromIndex      = "index"      // OpenClaw's FTS5 index (2026.9+)
	FromEvents     = "events"     // the store's transcript events (and cold archive)
)

// Found is a hit in a source.
type Found struct {
	Hit
	Src           int    // index in the sources
	From          string // FromTranscript, FromIndex or FromEvents
	Before, After []Message
}

// Result is a whole search.
type Result struct {
	Total    int     // every hit
	Hits     []Found // newest first, at most the limit
	Warnings []string
	Work     Work // what the search did (context reads not counted)
	// Partial: the mask budget (Options.Budget) ran out; the sources after
	// the one it ran out in were not searched, nor the rest of that one.
	Partial bool
}

// Run searches the sources on up to workers goroutines (0: GOMAXPROCS),
// keeping the newest limit hits (0: all) and, with context > 0, that many
// messages before and after each of them. Order: timestamp descending, then
// source order, then position descending (a file's later line first). A
// source that cannot be read is a warning, not a failure.
func Run(srcs []Source, o *Options, limit, context, workers int) *Result {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if o.Mask != nil && o.Budget > 0 {
		workers = 1 // the budget runs out at the same place every time
	}
	stopped := make([]bool, workers)
	workers = max(1, min(workers, len(srcs)))
	warns := make([][]string, len(srcs))
	cols := make([]collector, workers)
	works := make([]Work, workers)
	scanners := make([]*Scanner, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &cols[w]
			c.limit = limit
			if o.ranking() {
				c.limit = 0 // a score is known only once every message is counted
			}
			sc := NewScanner(o)
			scanners[w] = sc
			for i := int(next.Add(1) - 1); i < len(srcs) && !sc.Stopped(); i = int(next.Add(1) - 1) {
				warns[i] = searchOne(sc, &srcs[i], i, c)
			}
			works[w], stopped[w] = sc.Work(), sc.Stopped()
		}()
	}
	wg.Wait()
	res := &Result{}
	for i := range cols {
		res.Total += cols[i].total
		res.Hits = append(res.Hits, cols[i].hits...)
		res.Work.add(works[i])
		res.Partial = res.Partial || stopped[i]
	}
	if o.ranking() {
		st := newRankStats(len(o.Matcher.words.terms))
		for _, sc := range scanners {
			if sc != nil {
				st.merge(sc.o.stats)
			}
		}
		for i := range res.Hits {
			res.Hits[i].Score = st.score(&res.Hits[i].Hit)
		}
		sortRanked(res.Hits)
	} else {
		sortFound(res.Hits)
	}
	if limit > 0 && len(res.Hits) > limit {
		res.Hits = res.Hits[:limit]
	}
	if context > 0 {
		addContext(srcs, o, res.Hits, context, warns)
	}
	for _, w := range warns {
		res.Warnings = append(res.Warnings, w...)
	}
	return res
}

// collector keeps one worker's newest hits: at most 2×limit, cut back to
// limit when full, so memory is bounded whatever the number of hits.
type collector struct {
	limit int
	total int
	hits  []Found
}

func (c *collector) add(f Found) {
	c.total++
	c.hits = append(c.hits, f)
	if c.limit > 0 && len(c.hits) >= 2*c.limit {
		sortFound(c.hits)
		clear(c.hits[c.limit:])
		c.hits = c.hits[:c.limit]
	}
}

func sortFound(h []Found) {
	slices.SortFunc(h, func(a, b Found) int {
		if c := cmp.Compare(b.Timestamp, a.Timestamp); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Src, b.Src); c != 0 {
			return c
		}
		return cmp.Compare(b.Pos, a.Pos)
	})
}

// searchOne searches one source into c and returns its warnings.
func searchOne(sc *Scanner, src *Source, i int, c *collector) []string {
	o := sc.o
	if src.DB == nil || src.Archive != nil {
		return searchFile(sc, src, func(h Hit) { c.add(Found{Hit: h, Src: i, From: FromTranscript}) })
	}
	var found []Found // a read may be redone: results are kept once it succeeds
	var err error
	what := fmt.Sprintf("session %s in %s", src.SessionID, src.DB.Path())
	before := sc.work // a redone read counts from here again
	var statsBefore *rankStats
	if o.stats != nil {
		statsBefore = o.stats.clone()
	}
	redo := func() {
		sc.work, sc.stopped = before, false
		if statsBefore != nil {
			*o.stats = *statsBefore.clone()
		}
	}
	if src.Index && !o.IncludeTools {
		err = src.DB.FTSRows(src.SessionID, func() { found = found[:0]; redo() }, func(r sqlitestore.FTSRow) {
			if sc.stopped {
				return
			}
			sc.work.Lines++
			sc.work.Parsed++
			m := Message{ID: r.MessageID, Role: r.Role, Timestamp: r.Timestamp, Text: o.maskText(r.Text)}
			if h, ok := o.Accept(m, r.Seq); ok {
				sc.work.Hits++
				found = append(found, Found{Hit: h, Src: i, From: FromIndex})
			}
			sc.spent()
		})
	} else {
		var sk transcript.Skips
		pre := sc.pre
		err = src.DB.Events(src.SessionID, int64(o.maxLine()), func() {
			found, sk = found[:0], transcript.Skips{MaxLine: int64(o.maxLine())}
			redo()
		},
			func(seq int64, data []byte, st transcript.Status) {
				if sc.stopped {
					return // the rest is read by the store, never examined
				}
				if st != transcript.StatusMessage {
					sc.work.Lines++
					sk.Add(st)
					return
				}
				if pre != nil && pre.index(data) < 0 && pre.escIndex(data) < 0 {
					return
				}
				h, ok, st := sc.examine(data, seq)
				sk.Add(st)
				if ok {
					found = append(found, Found{Hit: h, Src: i, From: FromEvents})
				}
			})
		if msg := sk.Summary("event", "corrupt JSON, invalid UTF-8 or an undecodable zstd payload", "corrupt, undecodable"); err == nil && msg != "" {
			addAll(c, found)
			return []string{"transcript of " + what + ": " + msg}
		}
	}
	if err != nil {
		return []string{fmt.Sprintf("cannot search %s: %v", what, err)}
	}
	addAll(c, found)
	return nil
}

func addAll(c *collector, found []Found) {
	for _, f := range found {
		c.add(f)
	}
}

// searchFile scans one JSONL transcript: a file (zstd-compressed or not) or
// an archive kept in a store.
func searchFile(sc *Scanner, src *Source, emit func(Hit)) []string {
	name := src.Path
	if src.Archive != nil {
		name = src.Archive.Name + " in " + src.DB.Path()
	}
	r, closeFn, err := openTranscript(src)
	if err != nil {
		return []string{fmt.Sprintf("cannot search transcript %s: %v", name, err)}
	}
	defer closeFn()
	st, err := sc.Scan(r, emit)
	var warns []string
	if err != nil {
		warns = append(warns, fmt.Sprintf("cannot search transcript %s: %v", name, err))
	}
	msg := st.Skips.Summary("line", "corrupt JSON or invalid UTF-8", "corrupt JSON, invalid UTF-8")
	if st.Torn {
		if msg != "" {
			msg += " and "
		}
		msg += "skipped its incomplete last line (a writer mid-append?)"
	}
	if msg != "" {
		warns = append(warns, "transcript "+name+": "+msg)
	}
	return warns
}

// maxWindow bounds the memory of a zstd stream's decoder.
const maxWindow = 32 << 20

// OpenTranscript opens the JSONL bytes of a file (never a FIFO or device)
// or store archive as a stream, zstd decoded on the fly with a bounded
// window: how the scan, and the index that stands in for it, read one.
func OpenTranscript(src *Source) (io.Reader, func(), error) { return openTranscript(src) }

// openTranscript is OpenTranscript.
func openTranscript(src *Source) (io.Reader, func(), error) {
	var r io.Reader
	closeFn := func() {}
	zst := src.Zstd
	if src.Archive != nil {
		blob, err := src.DB.ArchiveBlob(*src.Archive)
		if err != nil {
			return nil, nil, err
		}
		r, zst = bytes.NewReader(blob), src.Archive.Encoding == "zstd"
	} else {
		fh, err := openRegular(src.Path)
		if err != nil {
			return nil, nil, err
		}
		r, closeFn = fh, func() { fh.Close() }
	}
	if !zst {
		return r, closeFn, nil
	}
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return d, func() { d.Close(); closeFn() }, nil
}

// openRegular opens a regular file for reading (never a FIFO or device).
func openRegular(path string) (*os.File, error) {
	fh, err := fsutil.OpenRegular(path) // never blocks on a FIFO or device
	if err != nil {
		return nil, err
	}
	_, err = fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// ContextBytes bounds the text of a context message.
const ContextBytes = 300

// posMsg is a message and its position, for context.
type posMsg struct {
	pos int64
	m   Message
}

// Messages returns every searchable message of a source (each line or
// event parsed) with its position; tool messages only with includeTools.
func Messages(src *Source, includeTools bool, maxLine int) ([]int64, []Message, error) {
	return messages(src, includeTools, maxLine, nil)
}

// messages is Messages, each text masked with mask when it is not nil.
func messages(src *Source, includeTools bool, maxLine int, mask Masker) ([]int64, []Message, error) {
	var ps []posMsg
	o := &Options{IncludeTools: includeTools, MaxLine: maxLine}
	keep := func(pos int64, line []byte) {
		if len(line) > o.maxLine() {
			return
		}
		if m, st := extract(line, includeTools, mask); st == transcript.StatusMessage {
			ps = append(ps, posMsg{pos, m})
		}
	}
	var err error
	if src.DB != nil && src.Archive == nil {
		err = src.DB.Events(src.SessionID, int64(o.maxLine()), func() { ps = ps[:0] }, func(seq int64, data []byte, st transcript.Status) {
			if st == transcript.StatusMessage {
				keep(seq, data)
			}
		})
	} else {
		var r io.Reader
		var closeFn func()
		if r, closeFn, err = openTranscript(src); err == nil {
			err = eachLine(r, o.maxLine(), keep)
			closeFn()
		}
	}
	pos := make([]int64, len(ps))
	msgs := make([]Message, len(ps))
	for i, p := range ps {
		pos[i], msgs[i] = p.pos, p.m
	}
	return pos, msgs, err
}

// eachLine calls fn for every line of r (its offset and bytes, valid until
// fn returns) through a bounded buffer; longer lines are passed over.
func eachLine(r io.Reader, maxLine int, fn func(pos int64, line []byte)) error {
	o := &Options{MaxLine: maxLine, Matcher: &Matcher{}}
	sc := &Scanner{o: o}
	sc.lineFn = fn
	_, err := sc.Scan(r, nil)
	return err
}

// addContext fills Before/After of the selected hits, reading each source
// that holds one once more.
func addContext(srcs []Source, o *Options, hits []Found, n int, warns [][]string) {
	bySrc := map[int][]int{}
	for i, h := range hits {
		bySrc[h.Src] = append(bySrc[h.Src], i)
	}
	for si, idx := range bySrc {
		pos, msgs, err := messages(&srcs[si], o.IncludeTools, o.MaxLine, o.Mask)
		if err != nil {
			warns[si] = append(warns[si], fmt.Sprintf("context: %v", err))
			continue
		}
		for _, hi := range idx {
			h := &hits[hi]
			k := sort.Search(len(pos), func(j int) bool { return pos[j] >= h.Pos })
			if k == len(pos) || pos[k] != h.Pos {
				continue
			}
			h.Before = clip(msgs[max(0, k-n):k])
			h.After = clip(msgs[k+1 : min(len(msgs), k+1+n)])
		}
	}
}

func clip(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		if len(m.Text) > ContextBytes {
			s, _, _ := Snippet(m.Text, 0, 0, 0, ContextBytes)
			m.Text = s
		}
		out[i] = m
	}
	return out
}
