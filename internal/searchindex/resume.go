package searchindex

import (
	"context"
	"errors"
	"slices"
	"strings"
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
func (u *updater) interrupted(ctx context.Context, err error, ids []string) (Stats, error) {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		u.abort()
		return Stats{}, err
	}
	ix := u.ix
	reached := make(map[string]bool, len(u.next.srcs)+len(u.st.Failed))
	for _, r := range u.next.srcs {
		reached[r.id] = true
	}
	for _, id := range u.st.Failed {
		reached[id] = true
	}
	for _, id := range ids {
		if reached[id] {
			continue
		}
		if i, ok := u.old.find(id); ok {
			u.next.srcs = append(u.next.srcs, u.old.srcs[i])
		}
	}
	if ferr := u.flush(); ferr != nil {
		u.abort()
		return Stats{}, err
	}
	slices.SortFunc(u.next.srcs, func(a, b srcRec) int { return strings.Compare(a.id, b.id) })
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
