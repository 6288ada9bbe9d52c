package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCheckProc(t *testing.T) {
	pid := os.Getpid()
	// dir returns a directory whose self link names target, or that
	// has none when target is "".
	dir := func(target string) string {
		d := t.TempDir()
		if target != "" {
			if err := os.Symlink(target, filepath.Join(d, "self")); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	for _, tt := range []struct {
		name    string
		dir     string
		pid     int
		foreign bool
		want    string // in the error; "" for none
	}{
		{"ours", dir(strconv.Itoa(pid)), pid, false, ""},
		{"another namespace's", dir("4242"), 1, true,
			"/proc belongs to another PID namespace (it shows this process as pid 4242, not 1): mount a /proc of this PID namespace (unshare --fork --pid --mount-proc"},
		// The real one, read by a process it numbers otherwise.
		{"real, another pid", "/proc", pid + 1, true,
			"it shows this process as pid " + strconv.Itoa(pid) + ", not " + strconv.Itoa(pid+1) + ")"},
		{"none", dir(""), pid, false, "no proc file system on "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkProc(tt.dir, tt.pid)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkProc(%s, %d) = %v, want nil", tt.dir, tt.pid, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkProc(%s, %d) = %v, want an error with %q", tt.dir, tt.pid, err, tt.want)
			}
			if errors.Is(err, ErrForeignProc) != tt.foreign {
				t.Errorf("checkProc(%s, %d) = %v, matches ErrForeignProc: %v, want %v", tt.dir, tt.pid, err, !tt.foreign, tt.foreign)
			}
		})
	}
}
