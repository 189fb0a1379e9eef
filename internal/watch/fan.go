package watch

import (
	"context"
	"errors"
	"sync"
)

// Source is one thing a feed watches (a host's sessions, a run store):
// Run snapshots it, calls ready once it watches, then sends its changes
// until ctx ends.
type Source struct {
	Where string
	Run   func(ctx context.Context, ready func()) error
}

// FanOptions shape Fan.
type FanOptions struct {
	// Fleet: a source that fails is warned about and the others go on.
	Fleet bool
	Warn  func(string)
	// Ready (may be nil) is called once every source watches.
	Ready func()
	// Started (may be nil) is told how many sources watch, as Ready is.
	Started func(n int)
}

// Fan runs the sources that sources builds, all at once, and hands what
// they send to emit, one batch at a time (never concurrently): the first
// error of emit ends them all and is returned; else Fan returns when ctx
// ends (nil) or the sources' errors once all have ended.
func Fan[T any](ctx context.Context, emit func(T) error, o FanOptions, sources func(ctx context.Context, send func([]T) error) ([]Source, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var emitErr error
	send := func(evs []T) error {
		mu.Lock()
		defer mu.Unlock()
		if emitErr != nil {
			return emitErr
		}
		for _, ev := range evs {
			if err := emit(ev); err != nil {
				emitErr = err
				cancel()
				return err
			}
		}
		return nil
	}
	srcs, err := sources(ctx, send)
	if err != nil {
		return err
	}
	// Every source snapshots first; ready once all of them watch.
	var readyWG sync.WaitGroup
	readyWG.Add(len(srcs))
	errs := make([]error, len(srcs))
	var done sync.WaitGroup
	for i, src := range srcs {
		done.Add(1)
		go func() {
			defer done.Done()
			var once sync.Once
			mark := func() { once.Do(readyWG.Done) }
			defer mark()
			err := src.Run(ctx, mark)
			mu.Lock()
			emitted := emitErr != nil
			mu.Unlock()
			if err != nil && o.Fleet && ctx.Err() == nil && !emitted {
				// One host of a fleet lost: said, and the others go on.
				o.Warn("watch: " + src.Where + ": " + err.Error())
				err = nil
			}
			if err != nil {
				errs[i] = err
				cancel()
			}
		}()
	}
	started := make(chan struct{})
	go func() { readyWG.Wait(); close(started) }()
	select {
	case <-started:
		if ctx.Err() == nil {
			if o.Started != nil {
				o.Started(len(srcs))
			}
			if o.Ready != nil {
				o.Ready()
			}
		}
	case <-ctx.Done():
	}
	done.Wait()
	mu.Lock()
	defer mu.Unlock()
	if emitErr != nil {
		return emitErr
	}
	return errors.Join(errs...)
}
