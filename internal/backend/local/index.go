package local

import (
	"context"

	"github.com/openclaw/sessions/internal/hostread"
)

// SearchIndex shows, updates, rebuilds or removes the search index of this
// host's state dir (the host operator only).
func (l *Local) SearchIndex(ctx context.Context, q hostread.IndexQuery) (*hostread.IndexAnswer, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return hostread.Index(ctx, s, q)
}
