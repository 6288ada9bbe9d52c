package process

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWatchExit checks both ways of watching, the pidfd and the lookup
// of kernels without one: a process that exits is seen to (a zombie
// not yet reaped counts), one that runs is not, a pid with no process is
// at once, and a stopped watch closes nothing.
func TestWatchExit(t *testing.T) {
	for _, tt := range []struct {
		name  string
		watch func(int) (<-chan struct{}, func())
	}{
		{"pidfd", WatchExit},
		{"lookup", func(pid int) (<-chan struct{}, func()) {
			// As on Linux before 5.3.
			return watchExit(pid, func(int, int) (int, error) { return -1, unix.ENOSYS })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "10")
			if err := cmd.Start(); err != nil {
				t.Skip("requires sleep:", err)
			}
			exited, stop := tt.watch(cmd.Process.Pid)
			defer stop()
			select {
			case <-exited:
				t.Fatal("exited while it runs")
			case <-time.After(300 * time.Millisecond):
			}
			// Not reaped: a zombie has exited.
			cmd.Process.Signal(os.Kill)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatal("exit not seen in 5 s")
			}
			cmd.Wait()
			gone, stop2 := tt.watch(cmd.Process.Pid)
			defer stop2()
			select {
			case <-gone:
			case <-time.After(5 * time.Second):
				t.Fatal("a process gone not seen so in 5 s")
			}
			run := exec.Command("sleep", "10")
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { run.Process.Kill(); run.Wait() }()
			ch, stop3 := tt.watch(run.Process.Pid)
			stop3()
			stop3() // a second stop is harmless
			select {
			case <-ch:
				t.Fatal("a stopped watch closed its channel")
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}
