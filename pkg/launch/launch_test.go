package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestStartWait(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("requires sh")
	}
	for _, tt := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 7", 7},
		{"kill -USR1 $$", 128 + int(unix.SIGUSR1)},
	} {
		c, err := Start([]string{"sh", "-c", tt.script}, nil)
		if errors.Is(err, unix.EPERM) {
			t.Skipf("requires ptrace (%v)", err)
		}
		if err != nil {
			t.Fatalf("Start(sh -c %q) = %v", tt.script, err)
		}
		// Stopped at its first instruction: it maps its program, and
		// runs nothing until released.
		var st unix.Stat_t
		if err := unix.Stat(c.Path, &st); err != nil {
			t.Errorf("Stat(%s) = %v", c.Path, err)
		}
		if err := c.Release(); err != nil {
			t.Fatalf("Release = %v", err)
		}
		if !c.Released() {
			t.Error("Released() = false after Release")
		}
		if got, err := c.Wait(); got != tt.want || err != nil {
			t.Errorf("sh -c %q: Wait() = %d, %v; want %d", tt.script, got, err, tt.want)
		}
	}
}

func TestKillUnreleased(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	c, err := Start([]string{"sh", "-c", "touch " + mark}, nil)
	if err != nil {
		t.Skipf("requires sh and ptrace (%v)", err)
	}
	c.Kill()
	if got, _ := c.Wait(); got != 128+int(unix.SIGKILL) {
		t.Errorf("Wait() after Kill = %d, want %d", got, 128+int(unix.SIGKILL))
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a command killed before Release ran")
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		argv   []string
		status int
	}{
		{[]string{"sdtkit-no-such-command"}, StatusNotFound},
		{[]string{filepath.Join(dir, "missing")}, StatusNotFound},
		{[]string{plain}, StatusNotRunnable},
		{nil, StatusNotFound},
	} {
		_, err := Start(tt.argv, nil)
		var se *StartError
		if !errors.As(err, &se) || se.Status() != tt.status {
			t.Errorf("Start(%q) = %v, want a *StartError of status %d", tt.argv, err, tt.status)
		}
	}
}

func TestStatusString(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   string
	}{
		{0, "exit status 0"},
		{7, "exit status 7"},
		{128 + 9, "killed by signal 9 (SIGKILL)"},
	} {
		if got := StatusString(tt.status); got != tt.want {
			t.Errorf("StatusString(%d) = %q, want %q", tt.status, got, tt.want)
		}
	}
}
