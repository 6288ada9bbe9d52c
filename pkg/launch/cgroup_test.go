package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The command starts in the cgroup, before its first instruction, and
// so do its children; Remove moves out the one it leaves running and
// removes the cgroup.
func TestCgroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("requires sh")
	}
	cg, err := NewCgroup("launch-test-*")
	if errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS) {
		t.Skipf("requires a writable cgroup (%v)", err)
	}
	if err != nil {
		t.Skipf("requires cgroup v2 (%v)", err)
	}
	removed := false
	defer func() {
		if !removed {
			cg.Remove()
		}
	}()
	var st unix.Stat_t
	if err := unix.Stat(cg.Path, &st); err != nil || st.Ino != cg.ID {
		t.Fatalf("Stat(%s) = ino %d, %v; want %d", cg.Path, st.Ino, err, cg.ID)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	c, err := Start([]string{"sh", "-c", "sleep 60 & echo $! >" + pidFile}, &Options{Cgroup: cg})
	if err != nil {
		t.Fatalf("Start in a cgroup = %v", err)
	}
	if got := procs(t, cg); got != strconv.Itoa(c.Pid) {
		t.Errorf("stopped command: cgroup.procs = %q, want %d", got, c.Pid)
	}
	c.Release()
	if status, err := c.Wait(); status != 0 || err != nil {
		t.Fatalf("Wait() = %d, %v", status, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	defer unix.Kill(child, unix.SIGKILL)
	if got := procs(t, cg); got != strconv.Itoa(child) {
		t.Errorf("after the command: cgroup.procs = %q, want its child %d", got, child)
	}
	if dir, err := CgroupOf(child); dir != cg.Path || err != nil {
		t.Errorf("CgroupOf(the child) = %q, %v, want %q", dir, err, cg.Path)
	}
	if dir, err := CgroupOf(os.Getpid()); dir != filepath.Dir(cg.Path) || err != nil {
		t.Errorf("CgroupOf(this process) = %q, %v, want %q, where the cgroup was made", dir, err, filepath.Dir(cg.Path))
	}
	moved, err := cg.Remove()
	removed = err == nil
	if moved != 1 || err != nil {
		t.Errorf("Remove() = %d, %v; want 1, nil", moved, err)
	}
	if _, err := os.Stat(cg.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Remove: Stat(%s) = %v", cg.Path, err)
	}
	if err := unix.Kill(child, 0); err != nil {
		t.Errorf("the child moved out: %v", err)
	}
}

func procs(t *testing.T, cg *Cgroup) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cg.Path, "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestUnescape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/sys/fs/cgroup", "/sys/fs/cgroup"},
		{`/a\040b`, "/a b"},
		{`/a\\`, `/a\\`},
	} {
		if got := unescape(tt.in); got != tt.want {
			t.Errorf("unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Emptied is closed once the last process of the cgroup, not the
// command, has exited; Signal reaches the processes the command left.
func TestCgroupEmptied(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("requires sh")
	}
	cg, err := NewCgroup("launch-test-*")
	if err != nil {
		t.Skipf("requires a writable cgroup v2 (%v)", err)
	}
	defer cg.Remove()
	c, err := Start([]string{"sh", "-c", "sleep 60 & sleep 0.2"}, &Options{Cgroup: cg})
	if err != nil {
		t.Fatalf("Start in a cgroup = %v", err)
	}
	empty := cg.Emptied()
	c.Release()
	if status, err := c.Wait(); status != 0 || err != nil {
		t.Fatalf("Wait() = %d, %v", status, err)
	}
	select {
	case <-empty:
		t.Fatal("Emptied closed while the command's child runs")
	case <-time.After(200 * time.Millisecond):
	}
	if err := cg.Signal(unix.SIGTERM); err != nil {
		t.Fatalf("Signal(SIGTERM) = %v", err)
	}
	select {
	case <-empty:
	case <-time.After(5 * time.Second):
		t.Fatalf("Emptied not closed 5s after SIGTERM; cgroup.procs = %q", procs(t, cg))
	}
}

// RemoveStale removes the empty cgroups of gone tracers, and leaves
// those of live ones, those still in use, those of another PID
// namespace, and others'.
func TestRemoveStale(t *testing.T) {
	probe, err := NewCgroup("launch-stale-probe-*")
	if err != nil {
		t.Skipf("requires a writable cgroup v2 (%v)", err)
	}
	probe.Remove()
	// A pid that is gone: a child waited for.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("requires true: %v", err)
	}
	const prefix = "launch-stale-"
	ns := strconv.FormatUint(pidNamespace(), 10)
	gone := ns + "-" + strconv.Itoa(cmd.Process.Pid)
	var made []*Cgroup
	mk := func(pattern string) *Cgroup {
		cg, err := NewCgroup(pattern)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, cg)
		return cg
	}
	stale, mine, busy := mk(prefix+gone+"-*"), mk(OwnerPattern(prefix)), mk(prefix+gone+"-*")
	otherNS := mk(prefix + "1-" + strconv.Itoa(cmd.Process.Pid) + "-*")
	other := mk("launch-other-" + gone + "-*")
	defer func() {
		for _, cg := range made {
			cg.Remove()
		}
	}()
	c, err := Start([]string{"sleep", "60"}, &Options{Cgroup: busy})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c.Release()
	defer func() { busy.Signal(unix.SIGKILL); c.Wait() }()

	n, err := RemoveStale(prefix)
	if err != nil || n != 1 {
		t.Errorf("RemoveStale = %d, %v; want 1", n, err)
	}
	for _, tt := range []struct {
		cg   *Cgroup
		kept bool
	}{{stale, false}, {mine, true}, {busy, true}, {otherNS, true}, {other, true}} {
		_, err := os.Stat(tt.cg.Path)
		if kept := err == nil; kept != tt.kept {
			t.Errorf("%s kept: %v, want %v", filepath.Base(tt.cg.Path), kept, tt.kept)
		}
	}
}
