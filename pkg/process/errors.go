package process

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoProcess is returned, wrapped, for a process that does not exist or
// has exited.
var ErrNoProcess = errors.New("no such process")

// A PermissionError reports that the process may not be inspected the way
// Op needs. Hint says what grants the access.
type PermissionError struct {
	Pid  int
	Op   string // "read maps", "open memory", "open mapped file"
	Hint string
	Err  error // matches fs.ErrPermission
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("process %d: %s: %v (%s)", e.Pid, e.Op, e.Err, e.Hint)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Access modes, as the kernel checks them: reading maps and opening files
// through /proc/PID/root is PTRACE_MODE_READ, which Yama does not restrict;
// opening /proc/PID/mem is PTRACE_MODE_ATTACH, which it does; map_files
// additionally needs a capability in the initial user namespace.
type access int

const (
	accessRead access = iota
	accessAttach
	accessMapFiles
)

const ptraceScopeFile = "/proc/sys/kernel/yama/ptrace_scope"

func (a access) hint() string {
	switch a {
	case accessAttach:
		h := "needs CAP_SYS_PTRACE, or the same user as the process and a Yama ptrace_scope that allows attaching: 0 in " + ptraceScopeFile
		if b, err := os.ReadFile(ptraceScopeFile); err == nil {
			h += ", now " + strings.TrimSpace(string(b))
		}
		return h
	case accessMapFiles:
		return "deleted and memfd files are opened through /proc/PID/map_files, which needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE: run as root"
	default:
		return "needs CAP_SYS_PTRACE, or the same user as the process and a process that is dumpable"
	}
}

// procError classifies err from opening or reading a file under /proc/PID.
func procError(pid int, op string, a access, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ESRCH):
		if _, serr := os.Stat("/proc/self"); serr != nil {
			return fmt.Errorf("process %d: %s: %w (is /proc mounted?)", pid, op, err)
		}
		return fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	case errors.Is(err, fs.ErrPermission):
		return &PermissionError{Pid: pid, Op: op, Hint: a.hint(), Err: err}
	}
	return fmt.Errorf("process %d: %s: %w", pid, op, err)
}

// Exists reports whether the process exists and its maps may be read: it
// returns nil, an error wrapping ErrNoProcess, or a *PermissionError that
// says what grants access.
func Exists(pid int) error {
	f, err := os.Open(procPath(pid, "maps"))
	if err != nil {
		return procError(pid, "read maps", accessRead, err)
	}
	return f.Close()
}

func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}
