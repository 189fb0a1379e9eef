package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// signals is the one place the process's signals are handled (Main): when
// the running command said it returns by itself on them (Graceful), the
// first SIGINT or SIGTERM cancels the context every command gets
// (cmd.Context()) and later ones are swallowed until it returns; else the
// signal ends the process as the default handler would.
type signals struct {
	ctx      context.Context
	cancel   context.CancelFunc
	ch       chan os.Signal
	done     chan struct{}
	graceful atomic.Bool
	pipeOnce sync.Once
	pipe     chan os.Signal
}

func newSignals() *signals {
	ctx, cancel := context.WithCancel(context.Background())
	s := &signals{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	go s.loop()
	return s
}

func (s *signals) loop() {
	select {
	case sig := <-s.ch:
		if s.graceful.Load() {
			s.cancel()
			return
		}
		signal.Stop(s.ch)
		raise(sig)
	case <-s.done:
	}
}

// stop restores the default handling (Main's end).
func (s *signals) stop() {
	close(s.done)
	signal.Stop(s.ch)
	if s.pipe != nil {
		signal.Stop(s.pipe)
	}
	s.cancel()
}

func (s *signals) Graceful() { s.graceful.Store(true) }

func (s *signals) PipeErrors() {
	s.pipeOnce.Do(func() {
		s.pipe = make(chan os.Signal, 1)
		signal.Notify(s.pipe, syscall.SIGPIPE)
	})
}

func (s *signals) Detached() { signal.Ignore(syscall.SIGHUP) }
