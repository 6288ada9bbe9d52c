package semaphore

import (
	"errors"
	"fmt"
)

var (
	// ErrNoSemaphore is matched by the error for a probe that has no
	// semaphore, so that there is nothing to enable.
	ErrNoSemaphore = errors.New("probe has no semaphore")
	// ErrNoProbe is matched by the error for a specification that
	// matches no probe in the process.
	ErrNoProbe = errors.New("no probe matches")
	// ErrNotMapped is matched by the error for a specification whose
	// file the process does not map.
	ErrNotMapped = errors.New("file not mapped by the process")
	// ErrRefused is matched by every *RefusedError.
	ErrRefused = errors.New("refused")
	// ErrOverflow and ErrUnderflow are matched by the error for a change
	// that would take a semaphore past 65535 or below 0.
	ErrOverflow  = errors.New("semaphore would overflow past 65535")
	ErrUnderflow = errors.New("semaphore would underflow below 0")
	// ErrChanged is matched by every *ChangedError.
	ErrChanged = errors.New("semaphore changed concurrently")
)

// A RefusedError reports a semaphore that is not written because its
// address is not safe to write: not 2-byte aligned, or not inside a private
// writable mapping of its own file at its file offset.
type RefusedError struct {
	Pid    int
	File   string
	Probe  string // PROVIDER:NAME
	Addr   uint64
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("process %d: %s: %s: semaphore at %#x: refused to write: %s", e.Pid, e.File, e.Probe, e.Addr, e.Reason)
}

// Is makes a *RefusedError match ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// A ChangedError reports that the value read back right after a write is
// not the one written: something else updated the semaphore at the same
// time. The write did happen.
type ChangedError struct {
	Pid         int
	Addr        uint64
	Wrote, Read uint16
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("process %d: semaphore at %#x: wrote %d, read back %d: %v", e.Pid, e.Addr, e.Wrote, e.Read, ErrChanged)
}

// Is makes a *ChangedError match ErrChanged.
func (e *ChangedError) Is(target error) bool { return target == ErrChanged }
