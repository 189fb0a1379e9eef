package hostread

import (
	"context"
	"errors"
	"github.com/openclaw/sessions/internal/hostdoc"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/lock"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/state"
)

// IndexQuery is what `sessions index` asks of the state dir's search
// index: its status (none of the actions), or one action and then its
// status.
type IndexQuery struct {
	// CacheDir holds the indexes ("": searchindex.DefaultCacheDir).
	CacheDir string
	// Update brings the index up to date now (builds it when there is
	// none, goes on with a build that was interrupted); Rebuild throws
	// it away first; Remove removes it and its masked siblings.
	Update, Rebuild, Remove bool
	// Progress is told how far a build has got (nil: not told).
	Progress func(searchindex.Progress)
	// LockTimeout bounds the wait for another process's update (0: the
	// default lock timeout).
	LockTimeout time.Duration
	// Background is Update as the build a search started in the
	// background runs it: nothing to do when another process holds the
	// index's lock (it is that build, or another update), and stopped,
	// keeping what it finished, when the state dir goes away. Its answer
	// has no status of the indexes (nothing asks it).
	Background bool
	// Mask, with Background, makes it the build a masked search (an
	// agent's, --redact) starts in the background: of that search's
	// masked index only — MaskKey's (SearchIndex.MaskKey), over the
	// transcripts the requester may see, labels shown through LabelAs,
	// the text masked by Mask before it is indexed — never the raw one.
	// The one index action a requester may run: its own masked index is
	// what its searches read.
	Mask    srch.Masker
	MaskKey string
	LabelAs func(string) string
}

// IndexAnswer is the state dir's indexes after the query.
type IndexAnswer struct {
	CacheDir, StateDir string
	// Indexes: the raw index first, then the masked ones (none: no index).
	Indexes []searchindex.Status
	// Sources is how many transcripts the state dir holds (what the raw
	// index is kept up to).
	Sources int
	// Stats is what an update or rebuild did; Removed the index
	// directories removed.
	Stats   *searchindex.Stats
	Removed []string
	// Updating: a process holds the raw index's lock now (a build in the
	// background a search started, or another update).
	Updating bool
}

// Index shows, brings up to date, rebuilds or removes the search index of
// the state dir of s. Only the host operator may: the index covers every
// agent's transcripts (exit 3) — but for the background build of a
// masked search's own index (IndexQuery.Mask), which a requester's
// search starts. An update interrupted (ctx done) keeps
// what it finished and is an error saying so; another process's update
// held past the lock timeout is exit 11.
func Index(ctx context.Context, s *state.State, q IndexQuery) (*IndexAnswer, error) {
	masked := q.Background && q.Mask != nil
	if masked && q.MaskKey == "" {
		return nil, apperr.Errorf("a masked index has a mask key")
	}
	if !masked && !s.Req.Operator() {
		return nil, apperr.Forbiddenf("sessions index is for the host operator: the index covers every agent's transcripts (run it without --as and OPENCLAW_SESSION_KEY)")
	}
	dir := q.CacheDir
	if dir == "" {
		d, err := searchindex.DefaultCacheDir()
		if err != nil {
			return nil, apperr.Statef("no cache dir for the search index: %v", err)
		}
		dir = d
	}
	key := searchindex.StateKey(s.Dir.Path)
	x := &SearchIndex{CacheDir: dir}
	var labelAs func(string) string
	if masked {
		x.MaskKey, labelAs = q.MaskKey, q.LabelAs
	}
	all, err := indexSources(s, labelAs)
	if err != nil {
		return nil, err
	}
	a := &IndexAnswer{CacheDir: dir, StateDir: s.Dir.Path, Sources: len(all)}
	if q.Background {
		return a, background(ctx, s, x, q.Mask, all)
	}
	wait := q.LockTimeout
	if wait <= 0 {
		wait = lock.DefaultTimeout
	}
	busy := func(err error) error {
		if errors.Is(err, searchindex.ErrBusy) {
			who := ""
			if h, ok := searchindex.Holder(filepath.Join(dir, key, "raw")); ok {
				who = h.String() + "; "
			}
			return apperr.Lockf("the search index is being updated by another process (%swaited %s): try again, or raise --lock-timeout", who, wait)
		}
		return err
	}
	switch {
	case q.Remove:
		lctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		removed, err := searchindex.Remove(lctx, dir, key)
		a.Removed = removed
		if err != nil {
			return nil, busy(apperr.Errorf("remove the search index: %v", err).Wrap(err))
		}
	case q.Update || q.Rebuild:
		ix, err := openIndex(s, &SearchIndex{CacheDir: dir}, nil)
		if err != nil {
			return nil, apperr.Errorf("%v", err)
		}
		if err := busy(waitFor(ctx, wait, func(c context.Context) error {
			if q.Rebuild {
				return ix.Reset(c)
			}
			return nil
		})); err != nil {
			return nil, err
		}
		// the lock waited for up to the lock timeout, the build itself
		// until it is done or interrupted
		uctx := searchindex.WithLockWait(ctx, wait)
		if q.Progress != nil {
			uctx = searchindex.WithProgress(uctx, q.Progress)
		}
		st, err := ix.Update(uctx, all)
		if searchindex.IsCorrupt(err) {
			if err = busy(waitFor(ctx, wait, ix.Reset)); err == nil {
				st, err = ix.Update(uctx, all)
			}
		}
		if err != nil && ctx.Err() != nil {
			return nil, apperr.Errorf("interrupted: the index keeps the %d transcript(s) it finished; `sessions index --update` (or any search) goes on from there", st.Unchanged+st.Appended+st.Whole)
		}
		if err != nil {
			return nil, busy(err)
		}
		a.Stats = &st
	}
	sts, err := searchindex.Inspect(dir, key, all)
	if err != nil {
		return nil, apperr.Errorf("read the search index: %v", err)
	}
	a.Indexes = sts
	if len(sts) > 0 && !sts[0].Masked {
		a.Updating = searchindex.Updating(sts[0].Dir)
	}
	return a, nil
}

// waitFor runs fn under a context that ends after wait (the lock's wait),
// or with ctx.
func waitFor(ctx context.Context, wait time.Duration, fn func(context.Context) error) error {
	c, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return fn(c)
}

// stateGoneEvery is how often a background build checks that the state dir
// is still there, besides after each transcript.
var stateGoneEvery = time.Second

// background brings the index x of s (the raw one, or with mask the
// masked one of x.MaskKey) up to srcs as a build started by a search runs
// it (IndexQuery.Background): not when another process holds the index's
// lock; stopped when the state dir is gone.
func background(ctx context.Context, s *state.State, x *SearchIndex, mask srch.Masker, srcs []srch.Source) error {
	ix, err := openIndex(s, x, mask)
	if err != nil {
		return apperr.Errorf("%v", err)
	}
	if busy, err := ix.Busy(); err != nil || busy {
		return err // another builder has it: nothing to do
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errGone := apperr.Statef("the state dir %s is gone: the background build stopped (the index keeps what it finished)", s.Dir.Path)
	gone := func() {
		if _, err := os.Stat(s.Dir.Path); errors.Is(err, fs.ErrNotExist) {
			cancel(errGone)
		}
	}
	go func() {
		t := time.NewTicker(stateGoneEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				gone()
			}
		}
	}()
	uctx := searchindex.WithProgress(searchindex.WithHolder(ctx, "background"), func(searchindex.Progress) { gone() })
	_, err = ix.Update(uctx, srcs)
	if searchindex.IsCorrupt(err) {
		if err = ix.Reset(ctx); err == nil {
			_, err = ix.Update(uctx, srcs)
		}
	}
	if cause := context.Cause(ctx); cause == errGone {
		return errGone
	}
	if errors.Is(err, searchindex.ErrBusy) {
		return nil
	}
	return err
}

// Doc is the document of the answer; disabled: $SESSIONS_NO_INDEX is set
// (IndexOff).
func (a *IndexAnswer) Doc(disabled bool) *hostdoc.IndexResult {
	res := &hostdoc.IndexResult{StateDir: a.StateDir, CacheDir: a.CacheDir, Transcripts: a.Sources, Masked: []hostdoc.IndexStatus{}, Removed: a.Removed,
		Disabled: disabled}
	for _, st := range a.Indexes {
		row := hostdoc.IndexStatus{Dir: st.Dir, SizeBytes: st.Size, Built: st.Built, Sources: st.Sources, Messages: st.Messages,
			TextBytes: st.Bytes, Corrupt: st.Corrupt}
		if !st.Updated.IsZero() {
			row.UpdatedAt = st.Updated.UnixMilli()
		}
		if st.Changed >= 0 {
			changed, fresh := st.Changed, st.Changed == 0 && st.Corrupt == ""
			row.Changed, row.Fresh = &changed, &fresh
		}
		if st.Masked {
			res.Masked = append(res.Masked, row)
		} else if res.Index == nil {
			row.Updating = a.Updating
			res.Index = &row
		}
	}
	if s := a.Stats; s != nil {
		res.Updated = &hostdoc.IndexUpdate{Unchanged: s.Unchanged, Appended: s.Appended, Whole: s.Whole, Removed: s.Removed,
			Unreadable: append([]string{}, s.Unreadable...), Segments: s.Segments}
	}
	return res
}
