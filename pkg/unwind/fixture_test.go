package unwind

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
