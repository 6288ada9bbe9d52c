package process

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestStopped(t *testing.T) {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip("requires sleep:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	if Stopped(pid) {
		t.Fatal("Stopped of a running process = true")
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	for deadline := time.Now().Add(5 * time.Second); !Stopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Stopped after SIGSTOP = false")
		}
	}
	syscall.Kill(pid, syscall.SIGCONT)
	for deadline := time.Now().Add(5 * time.Second); Stopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Stopped after SIGCONT = true")
		}
	}
	if Stopped(1 << 30) {
		t.Error("Stopped of no process = true")
	}
}
