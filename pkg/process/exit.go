package process

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// exitPoll is how often WatchExit looks a process up where the kernel
// gives no pidfd.
const exitPoll = 100 * time.Millisecond

// WatchExit watches process pid and returns a channel that is closed once
// the process has exited, every thread of it (a zombie has), or at once
// when there is no such process; stop ends the watch, and the channel may
// then stay open. It waits on a pidfd where the kernel gives one (Linux
// 5.3), else looks the process up every 100 ms, by its start time too, so
// that another process given the same pid is not taken for it.
func WatchExit(pid int) (exited <-chan struct{}, stop func()) {
	return watchExit(pid, unix.PidfdOpen)
}

// watchExit is WatchExit with the pidfd from pidfdOpen; tests give one
// that fails as a kernel without pidfd_open does.
func watchExit(pid int, pidfdOpen func(int, int) (int, error)) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	done := make(chan struct{})
	stop := sync.OnceFunc(func() { close(done) })
	fd, err := pidfdOpen(pid, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		close(ch)
		return ch, stop
	case err == nil:
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err == nil {
			go waitPidfd(fd, p[0], ch)
			// Closing the write end wakes the poll with POLLHUP.
			return ch, sync.OnceFunc(func() { unix.Close(p[1]) })
		}
		unix.Close(fd)
	}
	start, err := StartTime(pid)
	if err != nil {
		close(ch)
		return ch, stop
	}
	go pollExit(pid, start, ch, done)
	return ch, stop
}

// waitPidfd closes ch once the pidfd fd is readable, which it is once its
// process has exited, unless the pipe end stop is woken first.
func waitPidfd(fd, stop int, ch chan struct{}) {
	defer unix.Close(fd)
	defer unix.Close(stop)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if fds[0].Revents != 0 {
		close(ch)
	}
}

// pollExit closes ch once process pid, which started at start, has
// exited, unless done is closed first.
func pollExit(pid int, start uint64, ch chan struct{}, done <-chan struct{}) {
	tick := time.NewTicker(exitPoll)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if hasExited(pid, start) {
				close(ch)
				return
			}
		}
	}
}

// hasExited reports whether process pid, which started at start, has
// exited: it is gone, another process has its pid, or it is a zombie
// with no thread left.
func hasExited(pid int, start uint64) bool {
	if s, err := StartTime(pid); err != nil || s != start {
		return true
	}
	err := Exists(pid)
	return errors.Is(err, ErrNoProcess) || errors.Is(err, ErrZombie)
}
