package watch

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// A fleet's failing source is warned about and the others go on; ready
// comes once every source watches; the first error of emit ends the feed.
func TestFan(t *testing.T) {
	var warned []string
	var ready atomic.Int32
	stop := errors.New("reader gone")
	n := 0
	gate := make(chan struct{})
	err := Fan(context.Background(), func(v int) error {
		if n++; v == 3 {
			return stop
		}
		return nil
	}, FanOptions{Fleet: true, Warn: func(s string) { warned = append(warned, s) }, Ready: func() { ready.Add(1); close(gate) }},
		func(ctx context.Context, send func([]int) error) ([]Source, error) {
			return []Source{
				{Where: "broken", Run: func(ctx context.Context, r func()) error { return errors.New("dial refused") }},
				{Where: "good", Run: func(ctx context.Context, r func()) error {
					r()
					<-gate
					if err := send([]int{1, 2, 3, 4}); err != nil {
						return err
					}
					<-ctx.Done()
					return nil
				}},
			}, nil
		})
	if !errors.Is(err, stop) {
		t.Fatalf("Fan returned %v, want emit's error", err)
	}
	if n != 3 {
		t.Errorf("emit called %d times, want 3 (nothing after its error)", n)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "watch: broken: dial refused") {
		t.Errorf("warnings %q", warned)
	}
	if ready.Load() != 1 {
		t.Errorf("ready called %d times", ready.Load())
	}
}

// Outside a fleet a failing source ends the feed with its error.
func TestFanOneHostFails(t *testing.T) {
	err := Fan(context.Background(), func(int) error { return nil }, FanOptions{},
		func(ctx context.Context, send func([]int) error) ([]Source, error) {
			return []Source{{Where: "h", Run: func(context.Context, func()) error { return errors.New("gone") }}}, nil
		})
	if err == nil || err.Error() != "gone" {
		t.Fatalf("Fan returned %v", err)
	}
}
