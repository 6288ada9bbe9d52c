package bpf

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startStopped starts the demo stopped at its execve (ptrace), before
// its dynamic loader runs, and returns it with a function that lets it
// run.
func startStopped(t *testing.T) (*exec.Cmd, func()) {
	t.Helper()
	runtime.LockOSThread() // ptrace requests come from the tracing thread
	t.Cleanup(runtime.UnlockOSThread)
	cmd := exec.Command(demo, "1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(cmd.Process.Pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		t.Fatalf("demo not stopped at execve: %v %v", ws, err)
	}
	return cmd, func() {
		if err := syscall.PtraceDetach(cmd.Process.Pid); err != nil {
			t.Fatalf("ptrace detach: %v", err)
		}
	}
}

// state returns the state letter of process pid, "" once gone.
func state(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

func waitState(t *testing.T, pid int, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); state(pid) != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d in state %q, want %q", pid, state(pid), want)
		}
	}
}

// A Stopper stops the process in the dynamic loader; once detached, Read
// still returns that stop, so that it gets its SIGCONT, and then
// ErrClosed. A Stopper of another cgroup stops nothing.
func TestStopper(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	const ld, fn = "/lib64/ld-linux-x86-64.so.2", "_dl_debug_state"
	if _, err := os.Stat(ld); err != nil {
		t.Skipf("requires %s: %v", ld, err)
	}

	cmd, run := startStopped(t)
	pid := cmd.Process.Pid
	s, err := NewStopper(ld, fn, &StopperOptions{PID: pid})
	if err != nil {
		t.Fatalf("NewStopper: %v", err)
	}
	defer s.Close()
	run()
	waitState(t, pid, "T")
	if err := s.Detach(); err != nil {
		t.Fatalf("Detach: %v", err)
	}
	st, err := s.Read()
	if err != nil || st.PID != pid || st.TID != pid || st.Err != nil {
		t.Fatalf("Read after Detach = %+v, %v; want the stop of process %d", st, err, pid)
	}
	if _, err := s.Read(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Read after Detach: %v, want ErrClosed", err)
	}
	unix.Kill(pid, unix.SIGCONT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("demo: %v", err)
	}

	// Once its process is gone, a Stopper is abandoned: Read ends.
	gone, err := NewStopper(ld, fn, &StopperOptions{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("NewStopper: %v", err)
	}
	gone.Abandon()
	if _, err := gone.Read(); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Abandon: %v, want ErrClosed", err)
	}
	if err := gone.Close(); err != nil {
		t.Errorf("Close after Abandon: %v", err)
	}

	// A cgroup no process is in: nothing stops.
	cmd, run = startStopped(t)
	other, err := NewStopper(ld, fn, &StopperOptions{Cgroup: 1 << 62, CgroupDir: t.TempDir()}) // the root cgroup's is 1

	if err != nil {
		t.Fatalf("NewStopper of a cgroup: %v", err)
	}
	defer other.Close()
	run()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("demo of another cgroup stopped: state %q", state(cmd.Process.Pid))
	}
}
