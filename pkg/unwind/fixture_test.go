package unwind

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A chain is chain.c built with its library.
type chain struct {
	dir, exe, lib string
}

// buildChain builds chain.c and chainlib.c at -O2 without sibling calls:
// the program with frame pointers and the library without them, or,
// with progFP false, the reverse. With probe, leaf fires a USDT probe
// rather than copying its stack.
func buildChain(t *testing.T, progFP bool, cflags ...string) chain {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("requires x86-64 (the fixture copies its stack with x86-64 assembly)")
	}
	fp := map[bool]string{true: "-fno-omit-frame-pointer", false: "-fomit-frame-pointer"}
	dir := t.TempDir()
	c := chain{dir: dir, exe: filepath.Join(dir, "chain"), lib: filepath.Join(dir, "libchain.so")}
	gcc(t, append([]string{"-O2", "-fno-optimize-sibling-calls", fp[!progFP], "-shared", "-fPIC", "-o", c.lib, "testdata/chainlib.c"}, cflags...)...)
	gcc(t, append([]string{"-O2", "-fno-optimize-sibling-calls", fp[progFP], "-o", c.exe, "testdata/chain.c", "-L" + dir, "-lchain", "-Wl,-rpath," + dir}, cflags...)...)
	return c
}

func gcc(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("gcc", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, out)
	}
}

// libc returns the path of the C library this test is linked against,
// or of the system's.
func libc(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6", "/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("requires the C library at a known path")
	return ""
}

// snapshot runs fx, whose leaf writes its registers and the top of its
// stack to the file snap and waits for its standard input to close, and
// returns the running command, its standard input and that stack; the
// test's end closes the input and waits for the command.
func snapshot(t *testing.T, fx chain) (*exec.Cmd, io.Closer, *Stack) {
	t.Helper()
	cmd := exec.Command(fx.exe)
	cmd.Dir = fx.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() })
	t.Cleanup(func() { stdin.Close() })
	snap := filepath.Join(fx.dir, "snap")
	var b []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err = os.ReadFile(snap); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(b) < 24 {
		t.Fatalf("no snapshot: %v (%d bytes)", err, len(b))
	}
	return cmd, stdin, &Stack{Regs: Regs{PC: le(b), SP: le(b[8:]), FP: le(b[16:])}, Bytes: b[24:]}
}
