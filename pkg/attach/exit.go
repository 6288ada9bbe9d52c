package attach

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// stopOnExit calls stop when o.Done is closed or, without Done, when
// process o.PID exits, unless closing is closed first. It does nothing
// without either.
func stopOnExit(o *Options, closing <-chan struct{}, stop func()) {
	end := o.Done
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
	ch := make(chan struct{})
	fd, err := unix.PidfdOpen(pid, 0)
	go func() {
		if errors.Is(err, unix.ESRCH) {
			close(ch)
			return
		}
		if err == nil {
			defer unix.Close(fd)
		}
		for {
			if exited(fd, err, pid) {
				close(ch)
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return ch
}

// exited waits up to a poll interval for the process to exit, through its
// pidfd when the kernel gave one (Linux 5.3), else by looking it up.
func exited(fd int, fdErr error, pid int) bool {
	const interval = 100 * time.Millisecond
	if fdErr != nil {
		time.Sleep(interval)
		return errors.Is(process.Exists(pid), process.ErrNoProcess)
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(interval/time.Millisecond))
	return err == nil && n > 0
}
