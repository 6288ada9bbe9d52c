package symbolize_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// counterFile is a source file with a static counter, whose value says
// which file it is, read by a probe in a local function.
const counterFile = `#include <sys/sdt.h>
static volatile long counter = VALUE;
static __attribute__((noinline)) void hit(void) { DTRACE_PROBE1(p, hit, counter); }
void FUNC(void) { counter++; hit(); }
`

// Each probe site's counter(%rip) is the counter of its own source file,
// as the debug information (addr2line) places the site, in the program
// and in a stripped copy of it read through its debug file.
func TestSymbolAddrStatics(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("requires x86-64 (the fixture's operand is counter(%rip))")
	}
	requireTools(t, "gcc", "addr2line", "objcopy")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.c":    strings.NewReplacer("VALUE", "100", "FUNC", "run_a").Replace(counterFile),
		"b.c":    strings.NewReplacer("VALUE", "200", "FUNC", "run_b").Replace(counterFile),
		"main.c": "void run_a(void), run_b(void);\nint main(void) { run_a(); run_b(); return 0; }\n",
	})
	cmd := exec.Command("gcc", "-O2", "-g", "-Wl,--build-id", "-o", "prog", "main.c", "a.c", "b.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("sys/sdt.h")) {
			t.Skipf("requires sys/sdt.h (systemtap-sdt-dev): %s", out)
		}
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	prog := filepath.Join(dir, "prog")
	// The stripped copy's debug file, by build-id under a debug directory.
	debugDir := filepath.Join(dir, "debug")
	run(t, dir, "objcopy", "--only-keep-debug", "prog", "prog.debug")
	run(t, dir, "objcopy", "--strip-all", "prog", "stripped")
	obj, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(dir, "prog.debug"), filepath.Join(debugDir, ".build-id", obj.BuildID[:2], obj.BuildID[2:]+".debug"))
	stripped, err := symbolize.Open(filepath.Join(dir, "stripped"), &symbolize.Options{DebugDirs: []string{debugDir}})
	if err != nil {
		t.Fatal(err)
	}
	if stripped.DebugPath == "" {
		t.Fatalf("the stripped copy's debug file was not found: %v", stripped.Warnings)
	}

	f, err := stapsdt.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	if len(f.Sites) != 2 {
		t.Fatalf("%d probe sites, want 2", len(f.Sites))
	}
	for _, s := range f.Sites {
		args := argspec.ParseArgs(s.Args, f.Machine)
		if len(args) != 1 || args[0].Symbol != "counter" {
			t.Fatalf("site at %#x: arguments %q, want one naming counter", s.PC, s.Args)
		}
		file := filepath.Base(strings.SplitN(run(t, dir, "addr2line", "-e", prog, fmt.Sprintf("%#x", s.PC)), ":", 2)[0])
		want := map[string]uint64{"a.c": 100, "b.c": 200}[file]
		if want == 0 {
			t.Fatalf("addr2line places the site at %#x in %q, want a.c or b.c", s.PC, file)
		}
		for _, o := range []*symbolize.Object{obj, stripped} {
			addr, err := o.SymbolAddr("counter", s.PC)
			if err != nil {
				t.Errorf("%s: SymbolAddr(counter, %#x): %v", o.Path, s.PC, err)
				continue
			}
			if got := readLong(t, ef, addr); got != want {
				t.Errorf("%s: SymbolAddr(counter, %#x) = %#x, holding %d, want the counter of %s, %d", o.Path, s.PC, addr, got, file, want)
			}
		}
	}
}

// readLong reads the 8-byte value the file gives addr.
func readLong(t *testing.T, ef *elf.File, addr uint64) uint64 {
	t.Helper()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+8 <= p.Vaddr+p.Filesz {
			b := make([]byte, 8)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				t.Fatal(err)
			}
			return ef.ByteOrder.Uint64(b)
		}
	}
	t.Fatalf("address %#x in no loaded part of the file", addr)
	return 0
}

// glibc's probes read statics of malloc.c (8@32+mp_(%rip) in
// memory_mallopt_*): in a libc stripped of .symtab, as distributions ship
// it, they come from its debug file, at the address nm gives them there.
func TestSymbolAddrLibc(t *testing.T) {
	requireTools(t, "nm")
	var libc string
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			libc = p
			break
		}
	}
	if libc == "" {
		t.Skip("requires glibc's libc.so.6")
	}
	f, err := stapsdt.Open(libc)
	if err != nil {
		t.Fatal(err)
	}
	type use struct {
		site *stapsdt.Site
		name string
	}
	var uses []use
	for i := range f.Sites {
		for _, a := range argspec.ParseArgs(f.Sites[i].Args, f.Machine) {
			if a.Symbol != "" && a.Err == nil {
				uses = append(uses, use{&f.Sites[i], a.Symbol})
			}
		}
	}
	if len(uses) == 0 {
		t.Skipf("%s has no probe whose argument names a symbol (glibc built without --enable-systemtap)", libc)
	}
	obj, err := symbolize.Open(libc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if obj.DebugPath == "" {
		t.Skipf("requires the debug file of %s (package libc6-dbg or glibc-debuginfo): %v", libc, obj.Warnings)
	}
	addrs := make(map[string][]uint64)
	for _, s := range nm(t, obj.DebugPath) {
		addrs[s.name] = append(addrs[s.name], s.addr)
	}
	for _, u := range uses {
		got, err := obj.SymbolAddr(u.name, u.site.PC)
		if err != nil {
			t.Errorf("%s:%s %q: SymbolAddr(%q, %#x): %v", u.site.Provider, u.site.Name, u.site.Args, u.name, u.site.PC, err)
			continue
		}
		if !slices.Contains(addrs[u.name], got) {
			t.Errorf("%s:%s: SymbolAddr(%q, %#x) = %#x, want one of %#x (nm %s)", u.site.Provider, u.site.Name, u.name, u.site.PC, got, addrs[u.name], obj.DebugPath)
		}
	}
}
