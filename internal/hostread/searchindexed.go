package hostread

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/dirstat"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// SearchIndex says that a search answers from the search index of the
// state dir (internal/searchindex) when it can, with the scan as its
// fallback: the answer is the scan's either way.
type SearchIndex struct {
	Ctx     context.Context // the catch-up's context (nil: Background)
	Pattern srch.Query      // what Options.Matcher was compiled from: what selects
	// CacheDir holds the indexes ("": searchindex.DefaultCacheDir).
	CacheDir string
	// MaskKey names a masked search's index (Options.Mask): the mask and
	// the requester, so that an index is built and read under one mask,
	// over the transcripts one requester may see.
	MaskKey string
	Debug   func(string) // why the scan answered (nil: not said)
	// Background starts one detached process that brings this search's
	// index up to date (`sessions index --update`; for a masked search,
	// as the same requester, its masked index only: IndexQuery.Mask), for
	// a search that finds it far behind (Backlog past catchUpBudget): the
	// search then scans at once instead of paying for the build. nil: no
	// background builds (SESSIONS_INDEX_BACKGROUND=0): such a search
	// updates inline, for up to indexWait, as a catch-up does.
	Background func() error
	// Build asks the host to set Background (when it is nil): the
	// builder's command-line flags that make it the same requester. nil:
	// no background builds.
	Build *BackgroundBuild
}

// BackgroundBuild is what a search that may start a background build of
// its index says about it; the host that holds the state dir starts the
// process (local.Local).
type BackgroundBuild struct {
	// Flags are the builder's global flags naming the requester (--as KEY,
	// --sandboxed, --redact): the detached process inherits neither
	// $OPENCLAW_SESSION_KEY nor $OPENCLAW_SANDBOXED. None: the operator.
	Flags []string
	// Notice is told once the build started (nil: nothing said).
	Notice func(string)
}

func (x *SearchIndex) debug(format string, a ...any) {
	if x.Debug != nil {
		x.Debug(fmt.Sprintf(format, a...))
	}
}

// indexWait is how long a search waits for another process's update of
// the index before the scan answers (searchindex.ErrBusy), and how long an
// update inline may run.
const indexWait = 2 * time.Second

// A search brings the index up to date inline when what is left to index
// (searchindex.Backlog: new and changed transcripts' bytes, told from
// their stamps) indexes in about the time a scan of the whole state takes:
// at most catchUpBudget(total) bytes. Past it the search scans (it would
// have anyway) and, where it may, starts a build in the background.
//
// The index is built at about 1/scanPerIndex the speed the scan reads:
// on the benchmark's state (BenchmarkSearchFirst: 10,000 sessions, 64 MiB;
// docs/PERFORMANCE.md) a whole build took 16.6× a scan's time (medians of
// 5, one run). So catchUpBudget is the state's bytes over scanPerIndex —
// what indexes in about one scan's time, so that a catch-up costs a search
// at most about what scanning costs — and never less than catchUpFloor,
// 4 MiB (a small state's whole index, built inline by its first search).
const (
	scanPerIndex = 16
	catchUpFloor = 4 << 20
)

// catchUpBudget is the most a search indexes inline before it answers, of
// a state whose transcripts hold total bytes.
func catchUpBudget(total int64) int64 {
	return max(catchUpFloor, total/scanPerIndex)
}

// inlineUpdate says whether a search updates the index itself before it
// answers (a catch-up), or leaves the backlog to a background build.
func inlineUpdate(b searchindex.Backlog) bool {
	return b.Bytes <= catchUpBudget(b.Total)
}

// open indexes, kept for the life of the process: a long-lived one (the
// MCP server, the UI) keeps its segments mapped between questions.
var (
	indexMu sync.Mutex
	indexes = map[string]*searchindex.Index{}
)

// openIndex is the index the search asks, opened once per process.
func openIndex(s *state.State, x *SearchIndex, mask srch.Masker) (*searchindex.Index, error) {
	dir := x.CacheDir
	if dir == "" {
		d, err := searchindex.DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	key := searchindex.StateKey(s.Dir.Path)
	id := dir + "\x00" + key + "\x00" + x.MaskKey
	indexMu.Lock()
	defer indexMu.Unlock()
	if ix := indexes[id]; ix != nil {
		return ix, nil
	}
	var ix *searchindex.Index
	var err error
	if mask != nil {
		ix, err = searchindex.OpenMasked(dir, key, x.MaskKey, mask)
	} else {
		ix, err = searchindex.Open(dir, key)
	}
	if err != nil {
		return nil, err
	}
	indexes[id] = ix
	return ix, nil
}

// indexSources are every transcript of the state dir the requester may see
// (every agent, archived copies and orphans): what the index is kept up to,
// whatever one search reads of it. Their warnings are not the search's.
func indexSources(s *state.State, labelAs func(string) string) ([]srch.Source, error) {
	return indexSourcesReusing(s, labelAs, nil)
}

// indexSourcesReusing is indexSources with reads (nil: none), the agents
// the search read already: their stores and directories are not read and
// listed again.
func indexSourcesReusing(s *state.State, labelAs func(string) string, reads map[string]*transcripts.Agent) ([]srch.Source, error) {
	srcs, _, err := searchSourcesReusing(s.Quiet(), &SearchQuery{AllAgents: true, IncludeArchived: true, NoIndex: true}, labelAs, reads, nil)
	return srcs, err
}

// stampFiles sets the Stat of every transcript file of srcs: one batch of
// lstats per directory (dirstat, on one open handle of it), where a stat
// by path each would walk the path again. A directory that cannot be
// opened leaves its files without a stamp (the index stats them itself).
func stampFiles(srcs []srch.Source) {
	byDir := map[string][]int{}
	for i := range srcs {
		if src := &srcs[i]; src.DB == nil && src.Path != "" {
			d := filepath.Dir(src.Path)
			byDir[d] = append(byDir[d], i)
		}
	}
	for dir, idx := range byDir {
		names := make([]string, len(idx))
		for k, i := range idx {
			names[k] = filepath.Base(srcs[i].Path)
		}
		st, err := dirstat.StatNames(dir, dirstat.NewNames(names))
		if err != nil {
			continue
		}
		for k, i := range idx {
			srcs[i].Stat = &st[k]
		}
	}
}

// searchIndexed answers q over srcs from the index, or says why it cannot
// (nil: the scan answers).
func searchIndexed(s *state.State, q *SearchQuery, srcs []srch.Source, reads map[string]*transcripts.Agent) *srch.Result {
	x, o := q.Index, q.Options
	ctx := x.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ix, err := openIndex(s, x, o.Mask)
	if err != nil {
		x.debug("search index: %v; scanning", err)
		return nil
	}
	// A search of everything (every agent, archived copies and orphans, no
	// key, label or kind) reads what the index covers: listed once.
	all := srcs
	if !q.AllAgents || !q.IncludeArchived || q.Key != "" || q.Label != "" || len(q.Kinds) > 0 {
		var err error
		if all, err = indexSourcesReusing(s, q.LabelAs, reads); err != nil {
			x.debug("search index: listing the transcripts: %v; scanning", err)
			return nil
		}
	}
	// The stamps the backlog took are the catch-up's: not taken twice.
	// Each transcript file's is its lstat, taken here in one batch per
	// directory.
	var stamps searchindex.Stamps
	if x.Background != nil {
		stampFiles(all)
		inline, b := x.catchUp(ix, all)
		if !inline {
			return nil
		}
		stamps = b.Stamps
	}
	update := func() (searchindex.Stats, error) {
		uctx, cancel := context.WithTimeout(ctx, indexWait)
		defer cancel()
		return ix.UpdateStamped(uctx, all, stamps)
	}
	st, err := update()
	if searchindex.IsCorrupt(err) {
		x.debug("search index: %v; rebuilding it", err)
		if err = ix.Reset(ctx); err == nil {
			st, err = update()
		}
	}
	if err != nil {
		x.debug("search index: %v; scanning", err)
		return nil
	}
	x.debug("search index: %s", st)
	return answerIndexed(ix, q, srcs, all, st.Failed)
}

// answerIndexed is the query's own part of a search from an index brought
// up to date over all (failed: the sources it could not read): the
// candidates, their match on the kept text, the page of hits; nil when the
// scan answers.
func answerIndexed(ix *searchindex.Index, q *SearchQuery, srcs, all []srch.Source, failed []string) *srch.Result {
	x, o := q.Index, q.Options
	cands, err := ix.Candidates(x.Pattern, searchindex.Filter{IncludeTools: o.IncludeTools, Roles: o.Roles, Since: o.Since, Until: o.Until, MaxLine: o.MaxLine})
	if err != nil {
		x.debug("search index: %v; scanning", err)
		return nil
	}
	if cands.All {
		x.debug("search index: the query selects nothing by itself (a literal shorter than three bytes, a regex without one); scanning")
		return nil
	}
	// The sources the index covers: all but those it could not read. A
	// search of everything reads all itself (one slice): every source of
	// it is covered, and the index, brought up to date over that very
	// slice, knows where the few with candidates are (a SourceID made and
	// looked up for each of 10,000 sources was half of a rare query).
	whole := len(srcs) == len(all) && (len(srcs) == 0 || &srcs[0] == &all[0])
	var want map[int][]searchindex.Candidate
	var scan []int
	if pos, ok := ix.Positions(all); ok && whole {
		want, scan = placeByPosition(srcs, o, cands, failed, pos)
	} else {
		want, scan = placeByID(srcs, all, whole, o, cands, failed)
	}
	// Only the candidates this search verifies get their text decoded
	// (nothing to drop when every source with candidates is in want).
	if len(want) != len(cands.Sources) {
		inScope := make(map[*searchindex.Candidate]bool, len(want)) // by each source's first candidate
		for _, cs := range want {
			inScope[&cs[0]] = true
		}
		for id, cs := range cands.Sources {
			if len(cs) == 0 || !inScope[&cs[0]] {
				delete(cands.Sources, id)
			}
		}
	}
	return indexedAnswer(srcs, o, q.Limit, q.Context, want, ix, cands, scan, x)
}

// The sources read from the index's candidates (want), and those scanned
// (scan, in increasing order): a session OpenClaw's own index answers (its
// rows, "index"), one the index could not read (failed: the scan says
// why), one holding lines the scan warns about or longer than this search
// reads (cands.Scan: the scan's hits and warnings for it).
//
// placeByPosition places them when srcs is the slice the index was last
// brought up to date over (pos): only the sources named in cands or
// failed are looked up, by id. placeByID makes each source's SourceID
// and looks it up (srcs a part of all: one agent, a key, a label).
func placeByPosition(srcs []srch.Source, o *srch.Options, cands *searchindex.Result, failed []string, pos *searchindex.Positions) (map[int][]searchindex.Candidate, []int) {
	scanned := map[int]bool{}
	if !o.IncludeTools {
		for i := range srcs {
			if srcs[i].Index {
				scanned[i] = true
			}
		}
	}
	mark := func(i int) { scanned[i] = true }
	for _, id := range failed {
		pos.Each(id, mark)
	}
	for id := range cands.Scan {
		pos.Each(id, mark)
	}
	want := map[int][]searchindex.Candidate{}
	for id, cs := range cands.Sources {
		if len(cs) == 0 {
			continue
		}
		pos.Each(id, func(i int) {
			if !scanned[i] {
				want[i] = cs
			}
		})
	}
	return want, slices.Sorted(maps.Keys(scanned))
}

func placeByID(srcs, all []srch.Source, whole bool, o *srch.Options, cands *searchindex.Result, failed []string) (map[int][]searchindex.Candidate, []int) {
	// Each source is looked up by its SourceID's bytes, made in one
	// buffer (no string per source).
	var buf []byte
	var indexed map[string]bool
	if !whole {
		indexed = make(map[string]bool, len(all))
		for i := range all {
			buf = searchindex.AppendSourceID(buf[:0], &all[i])
			indexed[string(buf)] = true
		}
	}
	failedID := make(map[string]bool, len(failed))
	for _, id := range failed {
		failedID[id] = true
	}
	want := map[int][]searchindex.Candidate{}
	var scan []int
	for i := range srcs {
		src := &srcs[i]
		buf = searchindex.AppendSourceID(buf[:0], src)
		covered := (whole || indexed[string(buf)]) && (len(failedID) == 0 || !failedID[string(buf)])
		if (src.Index && !o.IncludeTools) || !covered || (len(cands.Scan) > 0 && cands.Scan[string(buf)]) {
			scan = append(scan, i)
			continue
		}
		if cs := cands.Sources[string(buf)]; len(cs) > 0 {
			want[i] = cs
		}
	}
	return want, scan
}

// catchUp weighs what is left to index of srcs before a search pays for an
// update (the backlog, whose stamps the update then takes): true when the search brings the index up to date itself (a
// catch-up, or an index it cannot weigh: the update says why); false when
// the scan answers now — the index far behind, with a build started in the
// background unless one holds the index's lock already.
func (x *SearchIndex) catchUp(ix *searchindex.Index, srcs []srch.Source) (bool, searchindex.Backlog) {
	b, err := ix.Backlog(srcs)
	if err != nil {
		return true, searchindex.Backlog{} // corrupt or unreadable: the update resets it or says why
	}
	if inlineUpdate(b) {
		return true, b
	}
	busy, err := ix.Busy()
	switch {
	case err != nil:
		x.debug("search index: %v; scanning", err)
	case busy:
		x.debug("search index: %d transcript(s), %d bytes to index, being indexed by another process; scanning", b.Sources, b.Bytes)
	default:
		marker := filepath.Join(ix.Dir(), backgroundMarker)
		if fi, err := os.Stat(marker); err == nil {
			if d := time.Since(fi.ModTime()); d >= 0 && d < backgroundRetry {
				x.debug("search index: %d transcript(s), %d bytes to index; a build started in the background %s ago stopped before it finished; scanning", b.Sources, b.Bytes, d.Round(time.Second))
				return false, b
			}
		}
		// written first: a build quick enough to finish before the search
		// goes on removes it
		_ = os.WriteFile(marker, nil, 0o600)
		if err := x.Background(); err != nil {
			os.Remove(marker)
			x.debug("search index: %d transcript(s), %d bytes to index; cannot build it in the background: %v; scanning", b.Sources, b.Bytes, err)
			return false, b
		}
		x.debug("search index: %d transcript(s), %d bytes to index (more than %d inline); building it in the background; scanning", b.Sources, b.Bytes, catchUpBudget(b.Total))
	}
	return false, b
}

// backgroundMarker is the file in the index's directory that says when a
// search last started a build in the background. A build that finishes
// writes a new manifest, whose clean-up removes it; one that stopped
// before (killed, the disk full) leaves it, and searches start no other
// for backgroundRetry: a build that cannot finish is not started by every
// search.
const (
	backgroundMarker = "background"
	backgroundRetry  = time.Minute
)

// indexedAnswer is Run's answer over srcs: the candidates of want (of
// cands, from ix) verified by the real match, the sources of scan
// scanned. The match runs on the text the index keeps (Index.Match and
// TextsOf, or Texts), else, when that text cannot be read, on the
// candidates' lines read again.
func indexedAnswer(srcs []srch.Source, o *srch.Options, limit, context int, want map[int][]searchindex.Candidate, ix *searchindex.Index, cands *searchindex.Result, scan []int, x *SearchIndex) *srch.Result {
	res := &srch.Result{}
	warns := map[int][]string{} // by source: few have any
	var hits []srch.Found
	var err error
	n := 0
	for _, cs := range want {
		n += len(cs)
	}
	if limit > 0 && n > limit {
		// more candidates than the page shows: counted without their text
		hits, res.Total, err = matchKept(srcs, o, limit, want, ix, cands, &res.Work)
	} else if err = ix.Texts(cands); err == nil {
		// every candidate may be shown: each block is decoded once, here
		hits, res.Total = acceptKept(srcs, o, want, &res.Work)
	}
	if err != nil {
		x.debug("search index: the kept text: %v; reading the candidates' lines", err)
		res.Work = srch.Work{}
		var failed map[int]error
		hits, failed = acceptLines(srcs, o, want, &res.Work)
		for i := range failed {
			// what was read of it is dropped: the scan reads it again and says why
			kept := hits[:0]
			for _, h := range hits {
				if h.Src != i {
					kept = append(kept, h)
				}
			}
			hits = kept
			scan = append(scan, i)
		}
		res.Total = len(hits)
	}
	for _, i := range scan {
		r := srch.Run(srcs[i:i+1], o, limit, 0, 1)
		for _, h := range r.Hits {
			h.Src = i
			hits = append(hits, h)
		}
		res.Total += r.Total
		warns[i] = append(warns[i], r.Warnings...)
		res.Work.Lines += r.Work.Lines
		res.Work.Parsed += r.Work.Parsed
		res.Work.BytesMasked += r.Work.BytesMasked
		res.Work.Hits += r.Work.Hits
		res.Partial = res.Partial || r.Partial
	}
	srch.SortFound(hits)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	if context > 0 {
		for i, w := range srch.AddContext(srcs, o, hits, context) {
			warns[i] = append(warns[i], w...)
		}
	}
	res.Hits = hits
	for _, i := range slices.Sorted(maps.Keys(warns)) {
		res.Warnings = append(res.Warnings, warns[i]...)
	}
	return res
}

// from is where the hits of source src come from.
func from(src *srch.Source) string {
	if src.DB != nil && src.Archive == nil {
		return srch.FromEvents
	}
	return srch.FromTranscript
}

// keptCand is a candidate of source src, in the order of the hits.
type keptCand struct {
	c   *searchindex.Candidate
	src int
}

// hitOrder is search.SortFound's order of the hits: newest first, then
// by source, then last in the source first.
func hitOrder(a, b keptCand) int {
	return cmp.Or(cmp.Compare(b.c.Timestamp, a.c.Timestamp), cmp.Compare(a.src, b.src), cmp.Compare(b.c.Pos, a.c.Pos))
}

// inHitOrder is every candidate of want, newest first (search.SortFound's
// order of the hits).
func inHitOrder(want map[int][]searchindex.Candidate) []keptCand {
	var all []keptCand
	for i, cs := range want {
		for k := range cs {
			all = append(all, keptCand{&cs[k], i})
		}
	}
	slices.SortFunc(all, hitOrder)
	return all
}

// firstMatched is the limit first candidates of want in hit order among
// those that matched (Candidate.Matched), in that order, and how many
// matched: a selection of the page (a heap of limit, its last on top), not
// a sort of every candidate.
func firstMatched(want map[int][]searchindex.Candidate, limit int) ([]keptCand, int) {
	var top []keptCand // a heap: top[0] the last in hit order
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(top) {
				return
			}
			if r := l + 1; r < len(top) && hitOrder(top[r], top[l]) > 0 {
				l = r
			}
			if hitOrder(top[l], top[i]) <= 0 {
				return
			}
			top[i], top[l] = top[l], top[i]
			i = l
		}
	}
	total := 0
	for i, cs := range want {
		for k := range cs {
			if !cs[k].Matched {
				continue
			}
			total++
			kc := keptCand{&cs[k], i}
			switch {
			case len(top) < limit:
				top = append(top, kc)
				for j := len(top) - 1; j > 0; {
					p := (j - 1) / 2
					if hitOrder(top[j], top[p]) <= 0 {
						break
					}
					top[j], top[p] = top[p], top[j]
					j = p
				}
			case limit > 0 && hitOrder(kc, top[0]) < 0:
				top[0] = kc
				down(0)
			}
		}
	}
	slices.SortFunc(top, hitOrder)
	return top, total
}

// matchKept is the answer of a search that shows at most limit hits, from
// the text the index keeps: every candidate is matched without a copy of
// its text (Index.Match: those the postings prove are not even decoded),
// and only the limit newest that matched get their text and a hit made
// (TextsOf, then Options.Accept, with their snippets). No transcript is
// read or parsed. For an agent that text was masked when it was indexed,
// so nothing is masked here and the work counted is the masked index's
// own — the candidates it selected from masked text and the hits among
// them — whatever a query guesses of a raw secret. It returns the hits
// made and the number of hits.
func matchKept(srcs []srch.Source, o *srch.Options, limit int, want map[int][]searchindex.Candidate, ix *searchindex.Index, cands *searchindex.Result, w *srch.Work) ([]srch.Found, int, error) {
	if _, err := ix.Match(cands, o.IncludeTools, o.Accepts); err != nil {
		return nil, 0, err
	}
	for _, cs := range want {
		w.Lines += int64(len(cs))
		w.Parsed += int64(len(cs))
	}
	first, total := firstMatched(want, limit)
	page := make([]*searchindex.Candidate, len(first))
	srcOf := make([]int, len(first))
	for k, a := range first {
		page[k], srcOf[k] = a.c, a.src
	}
	if err := ix.TextsOf(cands, page); err != nil {
		return nil, 0, err
	}
	hits := make([]srch.Found, 0, len(page))
	for k, c := range page {
		h, ok := o.Accept(c.Message(o.IncludeTools), c.Pos)
		if !ok {
			return nil, 0, fmt.Errorf("a candidate matched its kept text but makes no hit")
		}
		hits = append(hits, srch.Found{Hit: h, Src: srcOf[k], From: from(&srcs[srcOf[k]])})
	}
	w.Hits += int64(total)
	return hits, total, nil
}

// acceptKept runs the real match on the text the index keeps of every
// candidate (Index.Texts filled it in), making the hit of each: a search
// that shows them all. It returns the hits and their number.
func acceptKept(srcs []srch.Source, o *srch.Options, want map[int][]searchindex.Candidate, w *srch.Work) ([]srch.Found, int) {
	var hits []srch.Found
	for _, a := range inHitOrder(want) {
		w.Lines++
		w.Parsed++
		h, ok := o.Accept(a.c.Message(o.IncludeTools), a.c.Pos)
		if !ok {
			continue
		}
		hits = append(hits, srch.Found{Hit: h, Src: a.src, From: from(&srcs[a.src])})
	}
	w.Hits += int64(len(hits))
	return hits, len(hits)
}

// acceptLines runs the real match on the candidates' lines read again
// (when the kept text cannot be read): the sources that could not be
// read are failed.
func acceptLines(srcs []srch.Source, o *srch.Options, want map[int][]searchindex.Candidate, w *srch.Work) ([]srch.Found, map[int]error) {
	pos := make(map[int][]int64, len(want))
	for i, cs := range want {
		p := make([]int64, len(cs))
		for k := range cs {
			p[k] = cs[k].Pos
		}
		pos[i] = p
	}
	oc := *o
	if o.Mask != nil {
		oc.Mask = srch.CountingMask(o.Mask, w)
	}
	var hits []srch.Found
	var mu sync.Mutex
	failed := readEach(srcs, pos, func(i int, pos int64, line []byte) {
		mu.Lock()
		defer mu.Unlock()
		w.Lines++
		if len(line) <= maxLine(o) {
			w.Parsed++
		}
		h, ok, _ := oc.Line(line, pos)
		if !ok {
			return
		}
		w.Hits++
		hits = append(hits, srch.Found{Hit: h, Src: i, From: from(&srcs[i])})
	})
	return hits, failed
}

func maxLine(o *srch.Options) int {
	if o.MaxLine <= 0 {
		return srch.DefaultMaxLine
	}
	return o.MaxLine
}

// CloseIndexes closes every search index this process keeps open (before
// an index is removed, or when a server stops).
func CloseIndexes() error {
	indexMu.Lock()
	defer indexMu.Unlock()
	var first error
	for id, ix := range indexes {
		if err := ix.Close(); err != nil && first == nil {
			first = err
		}
		delete(indexes, id)
	}
	return first
}

// readEach is searchindex.Read one store at a time (the transcript files
// together): Read's redone store read clears what it had read of the other
// stores, so each gets a Read of its own.
func readEach(srcs []srch.Source, want map[int][]int64, fn func(i int, pos int64, line []byte)) map[int]error {
	groups := map[any]map[int][]int64{}
	for i, pos := range want {
		var k any = "files"
		if src := &srcs[i]; src.DB != nil && src.Archive == nil {
			k = src.DB
		}
		if groups[k] == nil {
			groups[k] = map[int][]int64{}
		}
		groups[k][i] = pos
	}
	failed := map[int]error{}
	for _, w := range groups {
		for i, err := range searchindex.Read(srcs, w, fn) {
			failed[i] = err
		}
	}
	return failed
}
