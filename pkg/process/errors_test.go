package process

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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

func TestState(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want byte
	}{
		{"42 (sleep) S 1 42 42 0 -1", 'S'},
		{"42 (a) Z 1", 'Z'},
		{"42 (x) Z (y) R 1 2", 'R'}, // a comm that looks like the rest
		{"42 (x)", 0},
		{"", 0},
	} {
		if got := state([]byte(tt.stat)); got != tt.want {
			t.Errorf("state(%q) = %q, want %q", tt.stat, got, tt.want)
		}
	}
}

// A child that has exited and that the test has not waited for yet is a
// zombie.
func TestExistsZombie(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("requires the test binary's path: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	// Once its thread group leader has exited, its other threads may
	// still be exiting; the kernel reports a child that waitid can
	// wait for when the last has: WNOWAIT leaves it a zombie.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			t.Fatalf("waitid(%d): %v", pid, err)
		}
	}
	err = Exists(pid)
	if !errors.Is(err, ErrZombie) || !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Exists(zombie %d) = %v, want an error matching ErrZombie and ErrNoProcess", pid, err)
	}
	if want := fmt.Sprintf("process %d is a zombie: it has exited and its parent has not reaped it", pid); err.Error() != want {
		t.Errorf("Exists(zombie %d) = %q, want %q", pid, err, want)
	}
}

// TestStartTime checks that the start time of this process reads the
// same twice, and that of a process gone is an error matching
// ErrNoProcess.
func TestStartTime(t *testing.T) {
	a, err := StartTime(os.Getpid())
	if err != nil || a == 0 {
		t.Fatalf("StartTime(self) = %d, %v, want a time", a, err)
	}
	if b, err := StartTime(os.Getpid()); b != a || err != nil {
		t.Errorf("StartTime(self) again = %d, %v, want %d", b, err, a)
	}
	if _, err := StartTime(1 << 30); !errors.Is(err, ErrNoProcess) {
		t.Errorf("StartTime(1<<30) = %v, want an error matching ErrNoProcess", err)
	}
}
