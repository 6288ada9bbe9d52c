package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// exitedError returns err, or when the -p process pid has exited since
// it was found, an error that says so: the files it mapped, reached
// through /proc/PID/root, are gone with it. An error that already says
// the process is gone is returned as it is.
func exitedError(pid int, err error) error {
	if pid != 0 && !errors.Is(err, process.ErrNoProcess) && errors.Is(process.Exists(pid), process.ErrNoProcess) {
		return fmt.Errorf("process %d exited while attaching", pid)
	}
	return err
}

// watchExit returns a channel that is closed when process pid exits, or
// nil when pid is 0. It stops watching when ctx is done.
func watchExit(ctx context.Context, pid int) <-chan struct{} {
	if pid == 0 {
		return nil
	}
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
			case <-ctx.Done():
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
