// Package testdlopen builds, for tests, a program that loads a library
// with probes by dlopen once it reads a line on its standard input: the
// library's constructor fires plug:init(7), which runs before dlopen
// returns, and the program then calls its plugfire, which fires
// plug:fire(55, 110).
package testdlopen

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The sources, kept here rather than in a package's testdata so that the
// test binaries of several packages find them wherever they run.
const (
	plugC = `#include <sys/sdt.h>

__attribute__((constructor)) static void init(void)
{
	STAP_PROBE1(plug, init, 7);
}

void plugfire(int x)
{
	STAP_PROBE2(plug, fire, x, x * 2);
}
`
	progC = `#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char line[16];
	void *h;
	void (*f)(int);

	if (argc != 2 || !fgets(line, sizeof(line), stdin))
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	f = h ? (void (*)(int))dlsym(h, "plugfire") : NULL;
	if (f == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	f(55);
	return 0;
}
`
)

// Build compiles the program and the library with gcc into a directory
// of t's, and returns their paths; the program takes the library's path
// as its argument. It skips t without gcc or sys/sdt.h.
func Build(t *testing.T) (prog, lib string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	if _, err := os.Stat("/usr/include/sys/sdt.h"); err != nil {
		if _, err := os.Stat("/usr/include/x86_64-linux-gnu/sys/sdt.h"); err != nil {
			t.Skip("requires sys/sdt.h (systemtap-sdt-dev)")
		}
	}
	dir := t.TempDir()
	prog, lib = filepath.Join(dir, "prog"), filepath.Join(dir, "libplug.so")
	for name, src := range map[string]string{"plug.c": plugC, "prog.c": progC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-O2", "-shared", "-fPIC", "-o", lib, filepath.Join(dir, "plug.c")},
		{"-O2", "-o", prog, filepath.Join(dir, "prog.c"), "-ldl"},
	} {
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return prog, lib
}
