package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// guestFixtures is where a guest finds the fixtures (vmcheck.Plan's
// Fixtures).
const guestFixtures = "/vmtest/fx"

// ustackDir is the directory of the fixtures of --ustack=dwarf under
// the fixtures: chain, its library and the C library they run with.
const ustackDir = "ustack"

// A crossTarget is how the host builds C programs that run in the
// guests of an arch whose root is not the host's.
type crossTarget struct {
	triple string // the compiler's prefix: TRIPLE-gcc
	pkg    string // the Debian package of TRIPLE-gcc
	loader string // the name of the dynamic loader
}

// crossTargets are those of the arches the guests do not share the
// host's root with.
var crossTargets = map[string]crossTarget{
	"arm64": {"aarch64-linux-gnu", "gcc-aarch64-linux-gnu", "ld-linux-aarch64.so.1"},
}

// ustackFixtures builds pkg/unwind's chain fixture (see package
// testchain) with the probe
// chain:hit for the guests of bd's arch, with TRIPLE-gcc at -O2 without
// frame pointers nor sibling calls, into the fixtures' ustack
// directory: the program, its library libchain.so, and the dynamic
// loader and C library of the cross compiler, which the program names
// by their paths in the guest, whose own root has none. It reports why
// it built nothing: an arch of no cross target, or no cross compiler.
func (b *builder) ustackFixtures(bd *build) (skipped string, err error) {
	ct, ok := crossTargets[bd.arch]
	if !ok {
		return "no cross compiler for " + bd.arch, nil
	}
	cc := ct.triple + "-gcc"
	if _, err := exec.LookPath(cc); err != nil {
		return fmt.Sprintf("requires %s (package %s)", cc, ct.pkg), nil
	}
	sdt := sdtInclude()
	if sdt == "" {
		return "requires sys/sdt.h (package systemtap-sdt-dev)", nil
	}
	dir := filepath.Join(bd.fixtures, ustackDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	guestDir := guestFixtures + "/" + ustackDir
	src := filepath.Join(b.repo, "pkg", "unwind", "testdata")
	flags := []string{"-O2", "-fomit-frame-pointer", "-fno-optimize-sibling-calls", "-idirafter", sdt}
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", filepath.Join(dir, "libchain.so"), filepath.Join(src, "chainlib.c")},
		{"-DPROBE", "-o", filepath.Join(dir, "chain"), filepath.Join(src, "chain.c"),
			"-L" + dir, "-lchain", "-Wl,-rpath," + guestDir, "-Wl,--dynamic-linker=" + guestDir + "/" + ct.loader},
	} {
		if out, err := exec.Command(cc, append(flags, args...)...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s %v: %w\n%s", cc, args, err, out)
		}
	}
	for _, lib := range []string{ct.loader, "libc.so.6"} {
		out, err := exec.Command(cc, "-print-file-name="+lib).Output()
		if err != nil {
			return "", fmt.Errorf("%s -print-file-name=%s: %w", cc, lib, err)
		}
		b, err := os.ReadFile(strings.TrimSpace(string(out)))
		if err != nil {
			return "", fmt.Errorf("the C library of %s: %w", cc, err)
		}
		if err := os.WriteFile(filepath.Join(dir, lib), b, 0o755); err != nil {
			return "", err
		}
	}
	return "", nil
}

// sdtInclude returns the directory that holds sys/sdt.h, whose macros
// serve every arch: /usr/include or a multiarch one under it; "" if
// none does.
func sdtInclude() string {
	dirs, _ := filepath.Glob("/usr/include/*-linux-gnu")
	for _, d := range append([]string{"/usr/include"}, dirs...) {
		if _, err := os.Stat(filepath.Join(d, "sys", "sdt.h")); err == nil {
			return d
		}
	}
	return ""
}
