// Package testdemo gives tests a private copy of the demo fixture
// (pkg/stapsdt/testdata/demo, built by its build.sh).
//
// Tests that attach to a file by its path patch every process that runs
// it, and raise the semaphores of all of them: go test runs the tests of
// several packages at once, and those of one package would see the
// uprobes of another's. A copy is a file of its own, which no other
// test attaches to.
//
// It also writes programs with the demo's probes for the host's machine
// (Native), where the demo, x86-64, cannot run, and waits for a process
// to run its program (WaitRunning).
package testdemo

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Source is the path of the fixture in the source tree.
func Source() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "pkg", "stapsdt", "testdata", "demo")
}

// Copy copies the fixture, with its mode, into a new directory under dir
// (os.TempDir() when dir is "") and returns the copy's path.
func Copy(dir string) (string, error) {
	in, err := os.Open(Source())
	if err != nil {
		return "", fmt.Errorf("demo fixture: %w", err)
	}
	defer in.Close()
	d, err := os.MkdirTemp(dir, "sdtkit-demo-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(d, "demo")
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return path, out.Close()
}

// Main runs the tests of m with *path set to a private copy of the
// fixture, removes the copy and exits with the tests' status: a
// package's TestMain.
func Main(m *testing.M, path *string) {
	p, err := Copy("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*path = p
	code := m.Run()
	os.RemoveAll(filepath.Dir(p))
	os.Exit(code)
}

// RunPrivateLoader runs the program exe, with args, through a private
// copy of its dynamic loader, which no other test's tracer patches, until
// the end of the test, and returns its pid once it maps exe and sleeps.
// It skips the test when the loader cannot be copied.
func RunPrivateLoader(t testing.TB, exe string, args ...string) int {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	var interp string
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, _ := io.ReadAll(p.Open())
			interp = string(bytes.TrimRight(b, "\x00"))
		}
	}
	f.Close()
	ld := filepath.Join(t.TempDir(), "ld.so")
	b, err := os.ReadFile(interp)
	if err == nil {
		err = os.WriteFile(ld, b, 0o755)
	}
	if err != nil {
		t.Skipf("requires the loader %q of %s: %v", interp, exe, err)
	}
	cmd := exec.Command(ld, append([]string{exe}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	WaitRunning(t, cmd.Process.Pid, exe)
	return cmd.Process.Pid
}

// WaitRunning waits until process pid has mapped the program exe and
// sleeps, past its execve and its loader: once /proc/PID/exe names exe,
// the kernel has yet to map its segments, which a slow machine takes a
// while to. It fails t after 10 s.
func WaitRunning(t testing.TB, pid int, exe string) {
	t.Helper()
	real, err := filepath.Abs(exe)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		t.Fatal(err)
	}
	proc := "/proc/" + strconv.Itoa(pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		maps, _ := os.ReadFile(proc + "/maps")
		status, _ := os.ReadFile(proc + "/status")
		if bytes.Contains(maps, []byte(" "+real+"\n")) && bytes.Contains(status, []byte("State:\tS")) {
			return
		}
	}
	t.Fatalf("process %d did not start %s in 10 s", pid, exe)
}
