package attach

import (
	"github.com/sdtkit/sdtkit/pkg/process"
)

// stopOnExit calls stop when o.Until is closed or, without Until, when
// process o.PID exits, unless closing is closed first. It does nothing
// without either.
func stopOnExit(o *Options, closing <-chan struct{}, stop func()) {
	end := o.Until
	if end == nil && o.PID != 0 {
		end = exitOf(closing, o.PID)
	}
	if end == nil {
		return
	}
	go func() {
		select {
		case <-end:
			stop()
		case <-closing:
		}
	}()
}

// exitOf returns a channel that is closed when process pid exits. It
// stops watching when done is closed.
func exitOf(done <-chan struct{}, pid int) <-chan struct{} {
	exited, stop := process.WatchExit(pid)
	go func() {
		select {
		case <-exited:
		case <-done:
		}
		stop()
	}()
	return exited
}
