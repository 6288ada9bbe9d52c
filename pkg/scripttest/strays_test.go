package scripttest

import (
	"os/exec"
	"testing"
)

// KillStrays kills the processes working under the directory, and no
// other.
func TestKillStrays(t *testing.T) {
	under, other := t.TempDir(), t.TempDir()
	start := func(dir string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Skipf("requires sleep: %v", err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	stray, kept := start(under), start(other)
	n, err := KillStrays(under)
	if n != 1 || err != nil {
		t.Fatalf("KillStrays = %d, %v; want 1", n, err)
	}
	if err := stray.Wait(); err == nil {
		t.Error("the process under the directory exited by itself")
	}
	if kept.ProcessState != nil {
		t.Error("the other process ended")
	}
}
