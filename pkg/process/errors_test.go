package process

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// noPID is above the largest pid_max Linux allows (2^22).
const noPID = 1 << 30

func TestNoProcess(t *testing.T) {
	for _, pid := range []int{noPID, 0, -1} {
		if _, err := ReadMaps(pid); !errors.Is(err, ErrNoProcess) {
			t.Errorf("ReadMaps(%d) error = %v, want ErrNoProcess", pid, err)
		}
		if _, err := OpenMem(pid, false); !errors.Is(err, ErrNoProcess) {
			t.Errorf("OpenMem(%d, false) error = %v, want ErrNoProcess", pid, err)
		}
		err := Exists(pid)
		if !errors.Is(err, ErrNoProcess) {
			t.Errorf("Exists(%d) = %v, want ErrNoProcess", pid, err)
		} else if want := "no such process"; !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Exists(%d) = %q, want it to end in %q", pid, err, want)
		}
	}
}

func TestProcError(t *testing.T) {
	for _, tt := range []struct {
		a      access
		err    error
		isPerm bool
		want   string
	}{
		{accessRead, &fs.PathError{Op: "open", Path: "/proc/7/maps", Err: syscall.EACCES}, true, "process 7: op: open /proc/7/maps: permission denied (needs CAP_SYS_PTRACE"},
		{accessAttach, &fs.PathError{Op: "open", Path: "/proc/7/mem", Err: syscall.EPERM}, true, "ptrace_scope"},
		{accessMapFiles, &fs.PathError{Op: "open", Path: "/proc/7/map_files/1-2", Err: syscall.EPERM}, true, "CAP_SYS_ADMIN"},
		{accessRead, &fs.PathError{Op: "open", Path: "/proc/7/maps", Err: syscall.ENOENT}, false, "process 7: no such process"},
		{accessRead, &fs.PathError{Op: "read", Path: "/proc/7/maps", Err: syscall.ESRCH}, false, "process 7: no such process"},
		{accessRead, &fs.PathError{Op: "read", Path: "/proc/7/maps", Err: syscall.EIO}, false, "process 7: op: read /proc/7/maps: input/output error"},
	} {
		err := procError(7, "op", tt.a, tt.err)
		var pe *PermissionError
		if errors.As(err, &pe) != tt.isPerm || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("procError(7, op, %v, %v) = %q, want a *PermissionError: %v, containing %q", tt.a, tt.err, err, tt.isPerm, tt.want)
		}
		if tt.isPerm && !errors.Is(err, fs.ErrPermission) {
			t.Errorf("procError(7, op, %v, %v) does not match fs.ErrPermission", tt.a, tt.err)
		}
	}
}
