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
			got, err := c.End(nil, again, func(err error) { warned = append(warned, err) })
			if got != tt.want || err != nil {
				t.Errorf("End() = %d, %v, want %d", got, err, tt.want)
			}
			if tt.again != (len(warned) == 1) {
				t.Errorf("End() warned %v", warned)
			}
		})
	}
}
