package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEnd checks how End ends a command: one never released is killed,
// one that exited gives its status, one that runs gets SIGTERM, and one
// that ignores it SIGKILL once again delivers.
func TestEnd(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("requires sh")
	}
	for _, tt := range []struct {
		name    string
		script  string
		release bool
		again   bool
		want    int
	}{
		{"never released", "exit 3", false, false, 128 + int(unix.SIGKILL)},
		{"exited", "exit 3", true, false, 3},
		{"runs", "touch $READY; while :; do sleep 0.1; done", true, false, 128 + int(unix.SIGTERM)},
		{"ignores SIGTERM", "trap '' TERM; touch $READY; while :; do sleep 0.1; done", true, true, 128 + int(unix.SIGKILL)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "ready")
			t.Setenv("READY", ready)
			c, err := Start([]string{"sh", "-c", tt.script}, nil)
			if errors.Is(err, unix.EPERM) {
				t.Skipf("requires ptrace (%v)", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.release {
				if err := c.Release(); err != nil {
					t.Fatal(err)
				}
			}
			if tt.script == "exit 3" && tt.release {
				c.Wait()
			}
			// Signals come once the script has set itself up.
			for i := 0; strings.Contains(tt.script, "READY") && i < 500; i++ {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			again := make(chan struct{})
			var warned []error
			if tt.again {
				close(again)
			}
			got, err := c.End(again, func(err error) { warned = append(warned, err) })
			if got != tt.want || err != nil {
				t.Errorf("End() = %d, %v, want %d", got, err, tt.want)
			}
			if tt.again != (len(warned) == 1) {
				t.Errorf("End() warned %v", warned)
			}
		})
	}
}

// A command of Options.OwnCgroup starts in a cgroup of its own, which
// End empties (the command's child gets SIGTERM too) and removes.
func TestEndOwnCgroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("requires sh")
	}
	if probe, err := NewCgroup("launch-own-probe-*"); err != nil {
		t.Skipf("requires a writable cgroup v2 (%v)", err)
	} else {
		probe.Remove()
	}
	if _, err := Start([]string{"true"}, &Options{OwnCgroup: "launch-own-", Cgroup: &Cgroup{}}); err == nil {
		t.Error("Start with Cgroup and OwnCgroup succeeded")
	}
	c, err := Start([]string{"sh", "-c", "sleep 60 & wait"}, &Options{OwnCgroup: "launch-own-"})
	if errors.Is(err, unix.EPERM) {
		t.Skipf("requires ptrace (%v)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Cgroup == nil || !strings.HasPrefix(filepath.Base(c.Cgroup.Path), "launch-own-") {
		t.Fatalf("Cgroup = %+v, want one named launch-own-*", c.Cgroup)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	var warned []error
	status, err := c.End(nil, func(err error) { warned = append(warned, err) })
	if status != 128+int(unix.SIGTERM) || err != nil || len(warned) != 0 {
		t.Errorf("End() = %d, %v, warned %v; want %d", status, err, warned, 128+int(unix.SIGTERM))
	}
	if _, err := os.Stat(c.Cgroup.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left after End: %v", c.Cgroup.Path, err)
	}
}
