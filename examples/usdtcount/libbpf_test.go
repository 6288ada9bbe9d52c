package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
)

// TestLibbpf checks that count.bpf.c, built against libbpf's own
// usdt.bpf.h and attached by libbpf (testdata/libbpf.c), counts what it
// counts built against sdtkit's and attached by package usdt, in the
// same fixture.
func TestLibbpf(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (fixtures are x86-64), not %s", runtime.GOARCH)
	}
	// libbpf, like package usdt, attaches to a PIE in every process by
	// cookie only.
	requireCookies(t)
	if _, err := os.Stat("/usr/include/bpf/usdt.bpf.h"); err != nil {
		t.Skip("requires libbpf's headers (libbpf-dev)")
	}
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if clang, err = exec.LookPath("clang"); err != nil {
			t.Skip("requires clang")
		}
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	dir := t.TempDir()
	obj, loader := filepath.Join(dir, "count.o"), filepath.Join(dir, "libbpf")
	for _, c := range [][]string{
		{clang, "-O2", "-g", "-Wall", "-Werror", "-target", "bpf", "-D__TARGET_ARCH_x86", "-idirafter", "/usr/include/x86_64-linux-gnu", "-c", "count.bpf.c", "-o", obj},
		{"gcc", "-O2", "-Wall", "-o", loader, "testdata/libbpf.c", "-lbpf"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}

	// Forms libbpf 1.1 (Debian 12's) reads: it refuses SIB operands.
	providers, err := dtrace.Parse("p.d", []byte("provider python { probe function__entry(char *, char *, int); };"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := fixture.Generate(providers, fixture.Options{Type: elfwriter.PIE, Semaphores: true, Sites: 2, Forms: []fixture.Form{fixture.Mem, fixture.Reg}})
	if err != nil {
		t.Fatal(err)
	}
	fx := filepath.Join(dir, "fixture")
	if err := os.WriteFile(fx, prog.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	fire := func() {
		if out, err := exec.Command(fx, "3", "1").CombinedOutput(); err != nil {
			t.Errorf("%s: %v %s", fx, err, out)
		}
	}

	cmd := exec.Command(loader, obj, fx, "python", "function__entry")
	cmd.Stderr = os.Stderr
	stdin, stdout := startPiped(t, cmd)
	r := bufio.NewReader(stdout)
	if line, err := r.ReadString('\n'); line != "attached\n" {
		t.Fatalf("libbpf: %q, %v", line, err)
	}
	fire()
	stdin.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("libbpf: %v", err)
	}
	libbpf := string(b)

	sdtkit := count(t, []string{fx, "python", "function__entry"}, fire)
	if want := "6 python:function__entry:arg1\n"; libbpf != want || sdtkit != want {
		t.Errorf("libbpf counted %q, sdtkit %q, want %q from both", libbpf, sdtkit, want)
	}
}
