package dlopen_test

import (
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testdlopen"
	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// start starts path with args, and kills it when the test ends. It
// returns once the process runs path: Start may return before
// /proc/PID/exe names the program executed (seen on Linux 6.1 under
// qemu), and until then the process is the test's own executable.
func start(t *testing.T, path string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	want, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	exe := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if fi, err := os.Stat(exe); err == nil && os.SameFile(fi, want) {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d does not run %s within 10s", cmd.Process.Pid, path)
		}
	}
}

// TestLoader checks that the loader of a dynamically linked program is
// its interpreter, seen through /proc/PID/root, and that a static
// program without _dl_debug_state has none.
func TestLoader(t *testing.T) {
	t.Run("dynamic", func(t *testing.T) {
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			t.Skip("requires sleep")
		}
		interp, err := interpreter(sleep)
		if err != nil {
			t.Fatal(err)
		}
		if interp == "" {
			t.Skipf("requires a dynamically linked sleep, not %s", sleep)
		}
		pid := start(t, sleep, "60").Process.Pid
		want := "/proc/" + strconv.Itoa(pid) + "/root" + interp
		if got, err := dlopen.Loader(pid); got != want || err != nil {
			t.Errorf("Loader(%d) = %q, %v, want %q", pid, got, err, want)
		}
	})
	t.Run("static", func(t *testing.T) {
		providers, err := dtrace.Parse("p.d", []byte("provider p { probe q(int); };"))
		if err != nil {
			t.Fatal(err)
		}
		fx, err := fixture.Generate(providers, fixture.Options{Arch: runtime.GOARCH, Type: elfwriter.Exec})
		if err != nil {
			t.Fatal(err)
		}
		static := filepath.Join(t.TempDir(), "static")
		if err := os.WriteFile(static, fx.Bytes, 0o755); err != nil {
			t.Fatal(err)
		}
		pid := start(t, static, "0", "1000").Process.Pid
		if got, err := dlopen.Loader(pid); got != "" || err != nil {
			t.Errorf("Loader(%d) = %q, %v, want \"\"", pid, got, err)
		}
	})
}

// interpreter returns the PT_INTERP of the ELF file path, "" without.
func interpreter(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			return strings.TrimRight(string(b), "\x00"), err
		}
	}
	return "", nil
}

// TestFollower follows a process that loads a library with dlopen: the
// probes of the library are handed over once each, and the process,
// stopped meanwhile, runs on to its end.
func TestFollower(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("requires root (euid %d)", os.Geteuid())
	}
	prog, lib := testdlopen.Build(t)
	cmd := exec.Command(prog, lib)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	f, err := dlopen.New(&dlopen.Options{PID: pid, Specs: []probespec.Spec{{Provider: "plug", Name: "*"}}, Warn: func(err error) { t.Log(err) }})
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatalf("New(pid %d) = nil: no loader followed", pid)
	}
	defer f.Stop()
	var (
		mu  sync.Mutex
		got []string
	)
	f.Start(nil, func(_ int, probes []*probe.Probe) {
		mu.Lock()
		defer mu.Unlock()
		for _, pr := range probes {
			got = append(got, pr.Provider+":"+pr.Name)
		}
	})
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v", prog, err)
	}
	f.Stop()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if want := []string{"plug:fire", "plug:init"}; !slices.Equal(got, want) {
		t.Errorf("probes handed over: %q, want %q", got, want)
	}
}
