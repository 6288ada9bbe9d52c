package launch

import (
	"errors"
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// Exit statuses of a command that could not be run, as shells and env
// give them.
const (
	StatusNotFound    = 127 // no such command
	StatusNotRunnable = 126 // found, but execve failed
)

// A StartError is a command that could not be run.
type StartError struct {
	Name string // as given
	Err  error  // exec.ErrNotFound, or why execve failed
}

func (e *StartError) Error() string {
	if errors.Is(e.Err, exec.ErrNotFound) {
		if e.Name == "" {
			return "empty command"
		}
		return fmt.Sprintf("%s: command not found", e.Name)
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Status returns the exit status a shell gives for the error: 127 for a
// command not found, 126 for one that cannot be run.
func (e *StartError) Status() int {
	if errors.Is(e.Err, exec.ErrNotFound) || errors.Is(e.Err, unix.ENOENT) {
		return StatusNotFound
	}
	return StatusNotRunnable
}

// waitStatus returns the exit status of ws as a shell gives it: the
// status of exit, or 128+N for a process killed by signal N.
func waitStatus(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// StatusString describes an exit status as Wait returns it.
func StatusString(status int) string {
	if status > 128 && status < 128+65 {
		return fmt.Sprintf("killed by signal %d (%v)", status-128, unix.SignalName(unix.Signal(status-128)))
	}
	return fmt.Sprintf("exit status %d", status)
}
