package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Interrupts returns a context that the first SIGINT, SIGTERM or SIGHUP
// ends, its cause "interrupt signal received" or the like, and further,
// which returns a channel that the next of these signals closes: the
// first ends a trace cleanly, the next what the end of the trace waits
// for, such as a command that ignores SIGTERM. SIGPIPE is caught too,
// so that a write to a closed pipe fails with EPIPE rather than kill
// the process before it cleans up. stop undoes it all.
func Interrupts() (ctx context.Context, further func() <-chan struct{}, stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	var mu sync.Mutex
	var waiting []chan struct{}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				// Those waiting are told before ctx ends: a channel asked
				// for once ctx is done waits for a signal yet to come.
				mu.Lock()
				for _, ch := range waiting {
					close(ch)
				}
				waiting = nil
				mu.Unlock()
				cancel(fmt.Errorf("%v signal received", s))
			case <-done:
				return
			}
		}
	}()
	further = func() <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		ch := make(chan struct{})
		waiting = append(waiting, ch)
		return ch
	}
	return ctx, further, func() {
		signal.Stop(sigs)
		signal.Stop(pipe)
		close(done)
		cancel(context.Canceled)
	}
}

// NoEPIPE returns err, or nil for a write to a closed pipe (with the
// SIGPIPE of Interrupts caught): the reader of the output is gone, as
// with head(1), which ends the output cleanly.
func NoEPIPE(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}
