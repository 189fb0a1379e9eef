package searchindex

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/transcript"
)

// ErrBusy: another process holds the index's write lock past the caller's
// deadline (Update's context). The index is not changed; search scans.
var ErrBusy = errors.New("search index is being updated by another process")

// Index is one state dir's search index in the cache (raw text, or masked
// text for agents: OpenMasked). Candidates never takes a lock; Update
// takes the index's write lock. An Index is safe for use by several
// goroutines.
type Index struct {
	dir  string
	mask search.Masker

	mu  sync.Mutex
	man *manifest
	at  fsutil.Stamp // the manifest file's stamp when man was read
	gen uint64       // counts the manifests man has been (Texts checks a Result's)
	// jat: the journal's stamp when man was read; jEnd its valid length
	// (0: none of man's generation).
	jat  fsutil.Stamp
	jEnd int64
	segs map[uint32]*segment
	maps map[uint32][]byte
	// queries counts Candidates; blocks keeps decoded text blocks from
	// the second on (blockCache: a process that asks again asks often).
	queries int
	blocks  *blockCache
	// scan: Result.Scan of manifest man for maxLine (scanSet).
	scan struct {
		man     *manifest
		maxLine int
		ids     map[string]bool
	}
	// segBuf: the buffer an update writes its segments through.
	segBuf *bufio.Writer
	// known: the sources last weighed or updated, and where their
	// records are (Index.sourcesOf); knownOf: the slice they were last
	// given as (Index.Positions).
	known   sourcePlan
	knownOf sourcesRef
	// stamps: the stores' stamps of the update under way; checks what
	// changed in each since its record (*storeCheck), asked once.
	stamps, checks sync.Map

	// segText is the text of a segment built by Update before it is
	// written; maxSegs the segments kept before they are merged.
	segText, maxSegs int
	// pieceText: a file is read in pieces of about this many bytes of
	// complete lines, each added before the next is read (bounded memory,
	// and an update interrupted inside a source keeps the pieces it added).
	pieceText int
}

// DefaultCacheDir is where indexes are kept: os.UserCacheDir()/sessions/index
// (never under OpenClaw's state dir).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sessions", "index"), nil
}

// StateKey names a state dir's index: a hash of its absolute path.
func StateKey(stateDir string) string {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		abs = stateDir
	}
	h := sha256.Sum256([]byte(filepath.Clean(abs)))
	return hex.EncodeToString(h[:12])
}

// Open opens (creating it when missing) the index of the state dir stateKey
// names under cacheDir, of the searchable text as search.Extract gives it.
// Every directory it creates is 0700 and must be the user's own; every
// file is 0600.
func Open(cacheDir, stateKey string) (*Index, error) {
	return open(filepath.Join(cacheDir, stateKey, "raw"), nil)
}

// OpenMasked is Open for what an agent may read: the index of the text of
// search.ExtractMasked under mask, so that an agent's candidates never come
// from raw text. maskKey names the mask (its patterns): an index built under
// one mask is never read under another.
func OpenMasked(cacheDir, stateKey, maskKey string, mask search.Masker) (*Index, error) {
	h := sha256.Sum256([]byte(maskKey))
	return open(filepath.Join(cacheDir, stateKey, "masked-"+hex.EncodeToString(h[:8])), mask)
}

func open(dir string, mask search.Masker) (*Index, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	return &Index{dir: dir, mask: mask, segs: map[uint32]*segment{}, maps: map[uint32][]byte{}, segText: 4 << 20, maxSegs: 8, pieceText: 1 << 20}, nil
}

// ensureDir makes dir and its missing parents 0700, and checks that dir
// and the two above it (the state's and the cache dir of indexes) are
// directories of this user (not links) that no one else may write; a
// directory of ours with a wider mode is narrowed.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("search index: %s is not a directory", d)
		}
		if err := checkOwner(fi); err != nil {
			return fmt.Errorf("search index: %s: %w", d, err)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(d, 0o700); err != nil {
				return fmt.Errorf("search index: %w", err)
			}
		}
	}
	return nil
}

// Dir is the index's directory.
func (ix *Index) Dir() string { return ix.dir }

// Close releases the mapped segments.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for id := range ix.maps {
		ix.drop(id)
	}
	ix.man = nil
	ix.gen++
	return nil
}

func (ix *Index) drop(id uint32) {
	if s := ix.segs[id]; s != nil && ix.blocks != nil {
		ix.blocks.forget(s)
	}
	mapfile.Unmap(ix.maps[id])
	delete(ix.maps, id)
	delete(ix.segs, id)
}

// Reset removes the index's files (to rebuild a corrupt index): under the
// write lock, so no writer is mid-update.
func (ix *Index) Reset(ctx context.Context) error {
	unlock, err := ix.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for id := range ix.maps {
		ix.drop(id)
	}
	ix.man = nil
	ix.gen++
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != "lock" {
			if err := os.Remove(filepath.Join(ix.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// lock takes the index's write lock, waiting until ctx is done or for its
// lock wait (WithLockWait), and says who holds it (WithHolder).
func (ix *Index) lock(ctx context.Context) (func(), error) {
	if err := ix.remake(); err != nil {
		return nil, err
	}
	path := filepath.Join(ix.dir, "lock")
	fl := flock.New(path, flock.SetPermissions(0o600))
	lctx, cancel := lockContext(ctx)
	defer cancel()
	ok, err := fl.TryLockContext(lctx, 5*time.Millisecond)
	if err != nil && !ok && lctx.Err() != nil {
		fl.Close()
		return nil, ErrBusy
	}
	if err != nil {
		fl.Close()
		return nil, fmt.Errorf("search index: %w", err)
	}
	if !ok {
		fl.Close()
		return nil, ErrBusy
	}
	writeHolder(ctx, path)
	return func() { clearHolder(path); fl.Unlock(); fl.Close() }, nil
}

// remake makes the index's directory again when it is gone (removed by
// sessions index --remove while this process held the index open): the
// update that takes the lock then builds it anew, as the first one did,
// and the next load finds no manifest and drops what was mapped.
func (ix *Index) remake() error {
	if _, err := os.Lstat(ix.dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return ensureDir(ix.dir)
}

// load brings ix up to the manifest on disk (mu held): the manifest read
// again when its file changed, the segments it names mapped and checked.
// A segment a concurrent merge removed sends it back to the manifest.
func (ix *Index) load() error {
	for attempt := 0; ; attempt++ {
		err := ix.loadOnce()
		var pe *fs.PathError
		if err == nil || attempt == 4 || !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		ix.man = nil // a segment went away under us: read the manifest again
	}
}

func (ix *Index) loadOnce() error {
	path := filepath.Join(ix.dir, "manifest")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		ix.man, ix.at = &manifest{}, fsutil.Stamp{}
		ix.gen++
		for id := range ix.maps {
			ix.drop(id)
		}
		return nil
	}
	if err != nil {
		return err
	}
	var jat fsutil.Stamp
	if ji, err := os.Stat(filepath.Join(ix.dir, "journal")); err == nil {
		jat = fsutil.StampOf(ji)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if st := fsutil.StampOf(fi); ix.man != nil && st.Equal(ix.at) && jat.Equal(ix.jat) {
		return nil
	}
	data, err := fsutil.ReadFileRegular(path)
	if err != nil {
		return err
	}
	m, err := decodeManifest(data)
	if err != nil {
		return err
	}
	m, jEnd, err := readJournal(ix.dir, m)
	if err != nil {
		return err
	}
	if ix.man == nil || m.uid != ix.man.uid {
		// another index than the one mapped (removed and built again
		// there): nothing mapped of the old one is the new one's
		for id := range ix.maps {
			ix.drop(id)
		}
	}
	for _, id := range m.segs {
		if ix.segs[id] != nil {
			continue
		}
		if err := ix.mapSeg(id); err != nil {
			return err
		}
	}
	for id := range ix.segs {
		if !slices.Contains(m.segs, id) {
			ix.drop(id)
		}
	}
	ix.man, ix.at, ix.jat, ix.jEnd = m, fsutil.StampOf(fi), jat, jEnd
	ix.gen++
	return nil
}

func (ix *Index) mapSeg(id uint32) error {
	f, err := fsutil.OpenRegular(filepath.Join(ix.dir, segName(id)))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	data, err := mapfile.Map(f, int(fi.Size()))
	if err != nil {
		return err
	}
	var s *segment
	err = mapfile.Guard(func() (err error) {
		s, err = parseSegment(id, segName(id), data)
		return err
	})
	if err != nil {
		mapfile.Unmap(data)
		return err
	}
	ix.segs[id], ix.maps[id] = s, data
	return nil
}

// Filter is what search filters by besides the text (search.Options):
// candidates are only messages it may accept.
type Filter struct {
	IncludeTools bool     // tool messages are candidates too
	Roles        []string // only these roles; nil: all
	Since, Until int64    // epoch ms, since inclusive, until exclusive; 0 unbounded
	// MaxLine is the longest line the search reads (search.Options.MaxLine;
	// 0: search.DefaultMaxLine): a source holding a longer line is in
	// Result.Scan, so that the scan skips and warns about it as it does.
	MaxLine int
}

func (f *Filter) accept(d doc) bool {
	role := roles[min(int(d.flags&flagRoleMask), len(roles)-1)]
	if role == "tool" && !f.IncludeTools {
		return false
	}
	if len(f.Roles) > 0 && !slices.Contains(f.Roles, role) {
		return false
	}
	return (f.Since == 0 || d.ts >= f.Since) && (f.Until == 0 || d.ts < f.Until)
}

// Candidate is an indexed message that may match: where to read it again
// (Lines), and what the filters need.
type Candidate struct {
	Pos       int64 // the line's byte offset in its file (or stream), or the event's seq
	Role      string
	Timestamp int64
	// ToolCalls: a message whose text differs with --include-tools (an
	// assistant's with tool calls; flagToolCalls).
	ToolCalls bool
	// ID, Text and TextNoTools (ToolCalls only) are the message's id and
	// searchable text with and without tool calls, as the index extracted
	// them: filled in by Index.Texts (Message makes the search.Message).
	ID, Text, TextNoTools string
	// Matched: the query matched its text (Index.Match says).
	Matched bool

	seg, doc uint32 // where the index keeps it (Texts)
	// proved: its trigrams alone prove that it matches (exact).
	proved bool
}

// Result is the candidates of a query.
type Result struct {
	// All: the query cannot select (a regex with no literal of three
	// bytes, a literal shorter than three bytes): every message is a
	// candidate, and search scans.
	All bool
	// Sources holds, by SourceID, the candidates of each source in
	// position order; a source not in it has none. Every message the query
	// matches and the filter accepts is among them.
	Sources map[string][]Candidate
	// Scan holds, by SourceID, the sources whose last indexing met what
	// the scan warns about (a corrupt or oversize line, an unreadable
	// unterminated last line) or that hold a line longer than the
	// Filter's MaxLine: the index keeps messages only, so the caller scans
	// these to answer and warn exactly as the scan does. Read-only: the
	// queries of one version of the index share it.
	Scan map[string]bool

	ix  *Index // the index and the version of it that it was read from (Texts)
	gen uint64
}

// Candidates returns the messages that may match q and pass f, from the
// index as it is on disk (no lock, no wait: call Update first to bring it
// up to date). An index that cannot be read is an error (a
// *CorruptError when it is damaged): never a wrong answer.
func (ix *Index) Candidates(q search.Query, f Filter) (*Result, error) {
	if q.Pattern == "" {
		return nil, fmt.Errorf("the query is empty")
	}
	n, err := plan(q)
	if err != nil {
		return nil, err
	}
	if n.op == opAll {
		return &Result{All: true}, nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.load(); err != nil {
		return nil, err
	}
	if ix.queries++; ix.queries == 2 && ix.blocks == nil {
		ix.blocks = newBlockCache(blockCacheBytes)
	}
	m := ix.man
	exact := exactly(q)
	res := &Result{Sources: map[string][]Candidate{}, Scan: ix.scanSet(m, f.MaxLine), ix: ix, gen: ix.gen}
	// The candidates are gathered first (small records, in segment and
	// document order), then laid out in one array, each source's in a
	// run of it: no slice per source grown candidate by candidate.
	type sel struct {
		r        *srcRec
		d        doc
		seg, doc uint32
	}
	var sels []sel
	err = mapfile.Guard(func() error {
		var r *srcRec
		last, known := uint32(0), false
		for _, id := range m.segs {
			s := ix.segs[id]
			ids, err := s.eval(n)
			if err == nil {
				err = s.checkDocs(ids)
			}
			if err != nil {
				return err
			}
			sels = slices.Grow(sels, len(ids))
			for _, di := range ids {
				d := s.doc(di)
				if !known || d.src != last {
					// a source's documents lie together in a segment
					r, last, known = m.rec(d.src), d.src, true
				}
				if r == nil || !live(r, id, d) || !f.accept(d) {
					continue
				}
				sels = append(sels, sel{r, d, id, di})
			}
		}
		return nil
	})
	if err == nil && len(sels) > 0 {
		// runs of one source (a source's documents lie together in a
		// segment; one source may have runs in several segments): its
		// candidates counted, then laid out, one map operation per run
		count := make(map[*srcRec]int, len(m.srcs)/4)
		for i := 0; i < len(sels); {
			j := i + 1
			for j < len(sels) && sels[j].r == sels[i].r {
				j++
			}
			count[sels[i].r] += j - i
			i = j
		}
		res.Sources = make(map[string][]Candidate, len(count))
		all := make([]Candidate, 0, len(sels))
		for i := 0; i < len(sels); {
			r := sels[i].r
			l, ok := res.Sources[r.id]
			if !ok {
				k := len(all)
				all = all[:k+count[r]]
				l = all[k:k:len(all)]
			}
			for ; i < len(sels) && sels[i].r == r; i++ {
				c := &sels[i]
				d := c.d
				l = append(l, Candidate{
					Pos: d.pos, Role: roles[min(int(d.flags&flagRoleMask), len(roles)-1)],
					Timestamp: d.ts, ToolCalls: d.flags&flagToolCalls != 0, seg: c.seg, doc: c.doc,
					proved: exact && d.flags&flagToolCalls == 0,
				})
			}
			res.Sources[r.id] = l
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// scanSet is Result.Scan of manifest m for a search reading lines of at
// most maxLine bytes (0: search.DefaultMaxLine), found once per manifest
// and MaxLine (mu held): each query walked every source's record.
func (ix *Index) scanSet(m *manifest, maxLine int) map[string]bool {
	if sc := &ix.scan; sc.man == m && sc.maxLine == maxLine {
		return sc.ids
	}
	var ids map[string]bool
	for i := range m.srcs {
		if m.srcs[i].unclean != 0 || (maxLine > 0 && m.srcs[i].longest > int64(maxLine)) {
			if ids == nil {
				ids = map[string]bool{}
			}
			ids[m.srcs[i].id] = true
		}
	}
	ix.scan.man, ix.scan.maxLine, ix.scan.ids = m, maxLine, ids
	return ids
}

// live reports whether document d of segment seg is still its source's.
func live(r *srcRec, seg uint32, d doc) bool {
	return seg >= r.minSeg && (d.flags&flagTail == 0 || seg == r.lastSeg)
}

// eval returns the documents of s that may match n, ascending.
func (s *segment) eval(n *node) ([]uint32, error) {
	switch n.op {
	case opAnd:
		// The rarest trigram first: every other list only narrows it.
		idx := make([]int, 0, len(n.tris))
		for _, t := range n.tris {
			i, err := s.find(t)
			if i < 0 {
				return nil, err
			}
			idx = append(idx, i)
		}
		slices.SortFunc(idx, func(a, b int) int { return s.count(a) - s.count(b) })
		var cur []uint32
		first := true
		for _, i := range idx {
			if !first && few(cur, s.count(i)) {
				// The rest would only narrow a handful of candidates,
				// which their text decides anyway: a rare word's last
				// trigrams are common ones ("are" of zqxrare17), whose
				// lists are most of a segment's postings.
				return cur, nil
			}
			l, err := s.postingsAt(nil, i)
			if err != nil {
				return nil, err
			}
			if first {
				cur, first = l, false
			} else {
				cur = intersect(cur, l)
			}
			if len(cur) == 0 {
				return nil, nil
			}
		}
		for _, sub := range n.subs {
			if !first && len(cur) <= fewCandidates {
				return cur, nil
			}
			l, err := s.eval(sub)
			if err != nil {
				return nil, err
			}
			if first {
				cur, first = l, false
			} else {
				cur = intersect(cur, l)
			}
			if len(cur) == 0 {
				return nil, nil
			}
		}
		return cur, nil
	case opOr:
		var cur []uint32
		for _, sub := range n.subs {
			l, err := s.eval(sub)
			if err != nil {
				return nil, err
			}
			cur = union(cur, l)
		}
		return cur, nil
	}
	ids := make([]uint32, s.nDocs)
	for i := range ids {
		ids[i] = uint32(i)
	}
	return ids, nil
}

// fewCandidates: an intersection left with at most this many documents
// stops reading posting lists at least fewRatio times as long (few): each
// candidate it keeps that a list would have dropped costs the decode of one
// text block, which is less than the decode of such a list.
const (
	fewCandidates = 16
	fewRatio      = 64
)

// few reports whether cur is few enough to stop before a list of n.
func few(cur []uint32, n int) bool {
	return len(cur) <= fewCandidates && n >= fewRatio*max(len(cur), 1)
}

func intersect(a, b []uint32) []uint32 {
	out := a[:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// extract is the message of a line with tool calls and its text without
// them (search.ExtractBoth), as the index's requester reads it.
func (ix *Index) extract(line []byte) (search.Message, string, transcript.Status) {
	if ix.mask != nil {
		return search.ExtractBoth(line, ix.mask)
	}
	return search.ExtractBoth(line, nil)
}

// addDoc adds to res the document of one line or event, if it is a
// message: its trigrams are those of its searchable text with tool calls
// and without (a document is a candidate for a query either holds), its
// record both texts.
func (ix *Index) addDoc(res *readResult, pos int64, line []byte, tail bool) {
	res.grab()
	res.longest = max(res.longest, int64(len(line)))
	m, noTools, st := ix.extract(line)
	if st != transcript.StatusMessage {
		switch {
		case st == transcript.StatusCorrupt || st == transcript.StatusOversize:
			res.unclean |= uncleanCorrupt
		case tail:
			res.unclean |= uncleanTorn
		}
		return
	}
	p := pdoc{d: doc{pos: pos, ts: m.Timestamp, flags: roleFlag(m.Role)}, text: len(m.Text)}
	if tail {
		p.d.flags |= flagTail
	}
	switch {
	case noTools == m.Text || m.Role == "tool":
		// (a tool result is searched with tools only: search passes its
		// role over without them)
		noTools = ""
		res.tris = docTrigrams(res.tris, m.Text)
	case withinText(m.Text, noTools):
		// (an assistant's text before its tool calls: no trigram of its own)
		p.d.flags |= flagToolCalls
		p.text += len(noTools)
		res.tris = docTrigrams(res.tris, m.Text)
	default:
		p.d.flags |= flagToolCalls
		p.text += len(noTools)
		res.tris = docTrigrams(res.tris, m.Text, noTools)
	}
	res.recs = appendRecord(res.recs, m.ID, m.Text, noTools)
	p.triEnd, p.recEnd = len(res.tris), len(res.recs)
	res.docs = append(res.docs, p)
}

// withinText reports whether every trigram of part is one of text's
// (docTrigrams): part is text's start, cut before an ASCII byte — which
// ends any rune the part's last bytes begin, so that the part folds as
// text's start does. An assistant's text without its tool calls is that
// when its texts come before its calls, as OpenClaw writes them.
func withinText(text, part string) bool {
	return len(part) < len(text) && text[len(part)] < utf8.RuneSelf && text[:len(part)] == part
}

// Stats is what an Update did.
type Stats struct {
	Unchanged, Appended, Whole, Removed int
	// Unreadable: sources that could not be read, left out of the index
	// (search reads them itself and says why).
	Unreadable []string
	// Failed are those sources' SourceIDs, in the same order: a caller
	// scans them (the scan says why they cannot be read).
	Failed   []string
	Segments int // segments after the update
	Merged   bool
}

func (s Stats) String() string {
	return fmt.Sprintf("%d unchanged, %d appended, %d indexed whole, %d removed, %d unreadable, %d segments",
		s.Unchanged, s.Appended, s.Whole, s.Removed, len(s.Unreadable), s.Segments)
}

// IsCorrupt reports whether err says the index is damaged (rebuild it).
func IsCorrupt(err error) bool {
	var c *CorruptError
	return errors.As(err, &c)
}

func sourceName(id string) string { return strings.ReplaceAll(id, "\x00", " ") }
