// Package testchain gives the tests of user stacks the chain fixture
// (pkg/unwind/testdata/chain.c and chainlib.c) built with its probe
// chain:hit, at -O2 without frame pointers nor sibling calls, and checks
// the stacks taken at that probe.
//
// Its leaf is reached by two call chains that cross into a library and
// back: main -> outer (7 times) or other (3 times) -> middle -> lib_mid
// -> lib_inner (libchain.so) -> leaf, which fires chain:hit.
//
// Where the tests run without a compiler (the arm64 guests of the
// kernel matrix), the fixture is built ahead and named by the
// environment variable Env.
package testchain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Env names a chain built ahead, with its library beside it.
const Env = "SDTKIT_TEST_CHAIN"

// Hits is how often the fixture fires chain:hit.
const Hits = 10

// Source returns the directory of the fixture's sources.
func Source() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "pkg", "unwind", "testdata")
}

// Build returns the path of the chain named by Env, or builds one with
// gcc into a directory of t's; it skips t, saying why, where it cannot.
func Build(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("$%s: %v", Env, err)
		}
		return p
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skipf("requires gcc, or the chain fixture built ahead ($%s)", Env)
	}
	dir := t.TempDir()
	flags := []string{"-O2", "-fomit-frame-pointer", "-fno-optimize-sibling-calls"}
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", filepath.Join(dir, "libchain.so"), filepath.Join(Source(), "chainlib.c")},
		{"-DPROBE", "-o", filepath.Join(dir, "chain"), filepath.Join(Source(), "chain.c"), "-L" + dir, "-lchain", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command("gcc", append(flags, args...)...).CombinedOutput(); err != nil {
			if strings.Contains(string(out), "sys/sdt.h") {
				t.Skip("requires sys/sdt.h (package systemtap-sdt-dev)")
			}
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return filepath.Join(dir, "chain")
}

// inner are the frames of every stack at chain:hit, innermost first, up
// to the caller of middle.
var inner = []string{"leaf", "lib_inner", "lib_mid", "middle"}

// Check checks the stacks of the Hits hits of chain:hit, each the
// symbols of its frames innermost first: every one leaf, lib_inner,
// lib_mid, middle, then outer 7 times and other 3 times, then main, and
// _start outermost, with the C library's frames between main and
// _start.
func Check(stacks [][]string) error {
	if len(stacks) != Hits {
		return fmt.Errorf("%d stacks, want %d", len(stacks), Hits)
	}
	callers := map[string]int{}
	var errs []error
	for i, st := range stacks {
		n := len(inner)
		switch {
		case len(st) < n+3 || !slices.Equal(st[:n], inner) || st[n+1] != "main":
			errs = append(errs, fmt.Errorf("stack %d: %s, want %s;outer or other;main;...;_start", i, strings.Join(st, ";"), strings.Join(inner, ";")))
			continue
		case st[len(st)-1] != "_start":
			errs = append(errs, fmt.Errorf("stack %d: %s, which stops short of _start", i, strings.Join(st, ";")))
			continue
		}
		callers[st[n]]++
	}
	if len(errs) == 0 && (callers["outer"] != 7 || callers["other"] != 3) {
		errs = append(errs, fmt.Errorf("middle called by %v, want outer 7 times and other 3 times", callers))
	}
	return errors.Join(errs...)
}
