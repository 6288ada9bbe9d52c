package process

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoProcess is returned, wrapped, for a process that does not exist or
// has exited.
var ErrNoProcess = errors.New("no such process")

// ErrZombie is matched by the error Exists returns for a zombie: a process
// that has exited and whose parent has not reaped it yet. It maps nothing
// and has no memory; the error matches ErrNoProcess too.
var ErrZombie = errors.New("zombie process")

type zombieError struct{ pid int }

func (e *zombieError) Error() string {
	return fmt.Sprintf("process %d is a zombie: it has exited and its parent has not reaped it", e.pid)
}

func (e *zombieError) Is(target error) bool { return target == ErrZombie || target == ErrNoProcess }

// ErrLeaderExited is matched by the error Exists returns for a process
// whose main thread has exited while other threads run on: the process
// maps nothing through its pid any more, and the kernel's uprobe filter
// for the process, which compares its main thread's memory, matches no
// thread of it.
var ErrLeaderExited = errors.New("main thread exited")

type leaderExitedError struct{ pid, threads int }

func (e *leaderExitedError) Error() string {
	return fmt.Sprintf("process %d: its main thread has exited, while %d other threads run on; the kernel traces such a process by its pid no more: trace its files without -p (PATH:PROVIDER:NAME)", e.pid, e.threads)
}

func (e *leaderExitedError) Is(target error) bool { return target == ErrLeaderExited }

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
// returns nil, an error wrapping ErrNoProcess, an error matching ErrZombie
// for a process that has exited but not been reaped (whose maps read as
// empty), one matching ErrLeaderExited for a process whose main thread
// has exited while others run, or a *PermissionError that says what
// grants access.
func Exists(pid int) error {
	f, err := os.Open(procPath(pid, "maps"))
	if err != nil {
		return procError(pid, "read maps", accessRead, err)
	}
	f.Close()
	stat, err := os.ReadFile(procPath(pid, "stat"))
	if err != nil {
		return procError(pid, "read stat", accessRead, err)
	}
	if state(stat) == 'Z' {
		if n := liveThreads(pid); n > 0 {
			return &leaderExitedError{pid, n}
		}
		return &zombieError{pid}
	}
	return nil
}

// liveThreads returns the number of threads of process pid that have not
// exited.
func liveThreads(pid int) int {
	task := procPath(pid, "task")
	ents, err := os.ReadDir(task)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if stat, err := os.ReadFile(filepath.Join(task, e.Name(), "stat")); err == nil && state(stat) != 'Z' && state(stat) != 'X' {
			n++
		}
	}
	return n
}

// state returns the state letter of /proc/PID/stat, "PID (COMM) S ...",
// or 0.
func state(stat []byte) byte {
	f := statFields(stat)
	if len(f) == 0 || len(f[0]) != 1 {
		return 0
	}
	return f[0][0]
}

// statFields returns the fields of /proc/PID/stat after COMM, from the
// state (field 3) on. COMM may hold parentheses and spaces, so they are
// found after the last ')'.
func statFields(stat []byte) []string {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+1 >= len(stat) || stat[i+1] != ' ' {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}

// StartTime returns when process pid started, in clock ticks after boot
// (field 22 of /proc/PID/stat): with the pid, it tells a process from a
// later one that reuses its pid.
func StartTime(pid int) (uint64, error) {
	stat, err := os.ReadFile(procPath(pid, "stat"))
	if err != nil {
		return 0, procError(pid, "read stat", accessRead, err)
	}
	f := statFields(stat)
	if len(f) < 20 {
		return 0, fmt.Errorf("process %d: unexpected stat %q", pid, stat)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}
