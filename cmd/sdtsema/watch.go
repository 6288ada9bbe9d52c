package main

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// watchExit sends pid on exited once process pid exits, until stop is
// called. exited must have room, so that the watcher never blocks.
func watchExit(pid int, exited chan<- int) (stop func()) {
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return pollExit(pid, exited)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		unix.Close(pfd)
		return pollExit(pid, exited)
	}
	go func() {
		defer unix.Close(pfd)
		defer unix.Close(p[0])
		fds := []unix.PollFd{
			{Fd: int32(pfd), Events: unix.POLLIN},
			{Fd: int32(p[0]), Events: unix.POLLIN},
		}
		for {
			_, err := unix.Poll(fds, -1)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		if fds[0].Revents != 0 {
			exited <- pid
		}
	}()
	// Closing the write end wakes the poll with POLLHUP.
	return func() { unix.Close(p[1]) }
}

// pollExit is watchExit for kernels without pidfd_open (before 5.3).
func pollExit(pid int, exited chan<- int) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if errors.Is(unix.Kill(pid, 0), syscall.ESRCH) {
					exited <- pid
					return
				}
			}
		}
	}()
	return func() { close(done) }
}
