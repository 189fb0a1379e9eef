package searchindex

import (
	"context"
	"errors"
)

// interrupted ends an update whose reading of the sources stopped with err.
// A context cancelled or past its deadline (Ctrl-C, SIGTERM, a search's
// wait) keeps what was finished: the sources added so far go to their
// segments and into the manifest, so that the next update goes on from
// there (a file read in pieces, ix.pieceText, keeps the pieces added,
// its record that of a file ending after them: sources keepPart); a
// source not reached yet keeps its record as it was (the old
// segments stay named), and one the index held but no longer among the
// sources is removed, as a whole update would. Any other error, or a
// failure to keep the work, leaves the index as it was.
func (u *updater) interrupted(ctx context.Context, err error) (Stats, error) {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		u.abort()
		return Stats{}, err
	}
	ix := u.ix
	// A source not reached (or gone: the next update says so) keeps its
	// record: only the unlisted and the unreadable are removed.
	u.removed = append(u.unlisted(), u.failed...)
	// Not every session of a store was reached: its record stays.
	u.next.stores = u.old.stores
	// The sources' readers may still be at work on the old records.
	u.keepOld = true
	if ferr := u.flushAll(); ferr != nil {
		u.abort()
		return Stats{}, err
	}
	u.next.nextSeg = u.cur
	if cerr := u.commit(); cerr != nil {
		u.abort()
		return Stats{}, err
	}
	// The next use reads the manifest (or journal) just written.
	ix.man = nil
	ix.gen++
	u.st.Segments = len(u.next.segs)
	return u.st, err
}
