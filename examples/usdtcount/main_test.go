package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/rlimit"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// started is a writer that tells when run says it counts.
type started chan struct{}

func (s started) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("counting at")) {
		close(s)
	}
	return len(b), nil
}

// count runs usdtcount with args until fire returns, and returns what
// it prints.
func count(t *testing.T, args []string, fire func()) string {
	t.Helper()
	requireCookies(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	s := make(started)
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-d", "1m"}, args...), &stdout, s) }()
	select {
	case <-s:
	case err := <-done:
		t.Fatalf("usdtcount %s: %v", strings.Join(args, " "), err)
	}
	fire()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("usdtcount %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String()
}

// requireCookies skips unless run as root on a kernel with BPF cookies,
// which package usdt and libbpf need to attach to a position-independent
// program in every process. Before the kernel is probed, the limit on
// locked memory is lifted: kernels before 5.11 charge BPF objects to
// it, and a probe that cannot load its program says nothing of cookies.
func requireCookies(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("requires root (euid %d)", os.Geteuid())
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	switch err := features.HaveProgramHelper(ebpf.Kprobe, asm.FnGetAttachCookie); {
	case errors.Is(err, ebpf.ErrNotSupported):
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies): %v", err)
	case err != nil:
		t.Fatalf("probe BPF cookies: %v", err)
	}
}

// TestFixture counts the hits of a probe shaped as python's
// function__entry in an sdtgen fixture: two sites, three iterations, each
// passing the string python:function__entry:arg1 as its second argument.
func TestFixture(t *testing.T) {
	providers, err := dtrace.Parse("p.d", []byte("provider python { probe function__entry(char *, char *, int); };"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := fixture.Generate(providers, fixture.Options{Arch: runtime.GOARCH, Type: elfwriter.PIE, Semaphores: true, Sites: 2, Forms: []fixture.Form{fixture.Mem, fixture.RIP, fixture.Reg}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fixture")
	if err := os.WriteFile(path, prog.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	got := count(t, []string{path, "python", "function__entry"}, func() {
		if out, err := exec.Command(path, "3", "1").CombinedOutput(); err != nil {
			t.Errorf("%s: %v %s", path, err, out)
		}
	})
	if want := "6 python:function__entry:arg1\n"; got != want {
		t.Errorf("usdtcount = %q, want %q", got, want)
	}
}

const python = "/usr/bin/python3"

// script calls usdtcount_target five times once it reads a line, and
// nothing else that python code defines but print.
const script = `import sys
def usdtcount_target(n):
    return n + 1
print('ready', flush=True)
sys.stdin.readline()
for i in range(5):
    usdtcount_target(i)
`

// TestPython counts the functions a python3 process runs. CPython 3.11
// fires function__entry only for a few frames it enters from C (not for
// calls from python code), so the count is of function__return, which
// passes the same arguments, and fires for every call.
func TestPython(t *testing.T) {
	f, err := stapsdt.Open(python)
	if err != nil {
		t.Skipf("requires %s: %v", python, err)
	}
	found := false
	for _, s := range f.Sites {
		found = found || s.Provider == "python" && s.Name == "function__return"
	}
	if !found {
		t.Skipf("requires %s built with USDT probes (--with-dtrace, as Debian builds it)", python)
	}
	cmd := exec.Command(python, "-c", script)
	stdin, stdout := startPiped(t, cmd)
	// Started up: the functions of its imports have run.
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	got := count(t, []string{"-p", strconv.Itoa(cmd.Process.Pid), python, "python", "function__return"}, func() {
		stdin.Write([]byte("\n"))
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v", python, err)
		}
	})
	if !strings.Contains(got, "5 usdtcount_target\n") {
		t.Errorf("usdtcount = %q, want a line %q", got, "5 usdtcount_target")
	}
}

// startPiped starts cmd with pipes to its standard input and from its
// standard output, and kills it at the end of the test.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.Reader) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return stdin, stdout
}
