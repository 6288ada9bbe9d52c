package symbolize_test

import (
	"debug/elf"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// miniDebugInfo is how Fedora's find-debuginfo makes MiniDebugInfo: the
// functions .dynsym lacks, kept from the debug file, compressed with xz
// into .gnu_debugdata of the stripped file.
const miniDebugInfo = `set -e
nm -D prog --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
nm prog --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort > funcsyms
comm -13 dynsyms funcsyms > keep_symbols
objcopy --only-keep-debug prog debug
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep_symbols debug mini_debuginfo
strip --strip-all -R .comment -o stripped prog
xz mini_debuginfo
objcopy --add-section .gnu_debugdata=mini_debuginfo.xz stripped
`

func TestMiniDebugInfo(t *testing.T) {
	requireTools(t, "sh", "awk", "sort", "comm", "xz")
	dir := t.TempDir()
	prog := buildProg(t, dir, "-rdynamic")
	syms := nm(t, prog)
	run(t, dir, "sh", "-c", miniDebugInfo)
	// No debug directory holds a debug file: the symbols come from the
	// file alone.
	obj, err := symbolize.Open(filepath.Join(dir, "stripped"), &symbolize.Options{DebugDirs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(obj.Warnings) > 0 {
		t.Errorf("Warnings = %v", obj.Warnings)
	}
	// helper is static and main, inner and outer exported by -rdynamic:
	// one comes from MiniDebugInfo, the others from .dynsym.
	checkFuncs(t, obj, []nmSym{nmFunc(t, syms, "helper")}, symbolize.MiniDebugInfo)
	var dyn []nmSym
	for _, name := range []string{"inner", "outer", "main"} {
		dyn = append(dyn, nmFunc(t, syms, name))
	}
	checkFuncs(t, obj, dyn, symbolize.DynSym)
}

func TestStaticInTwoFiles(t *testing.T) {
	requireTools(t, "gcc", "nm", "addr2line")
	dir := t.TempDir()
	static := `static long counter;
static int __attribute__((noinline)) helper(int x) { counter += x * N; return counter; }
int F(int x) { return helper(x); }
`
	writeFiles(t, dir, map[string]string{
		"a.c":    "#define N 1\n#define F fa\n" + static,
		"b.c":    "#define N 2\n#define F fb\n" + static,
		"main.c": "int fa(int), fb(int);\nint main(int argc, char **argv) { return fa(argc) + fb(argc); }\n",
	})
	run(t, dir, "gcc", "-O1", "-g", "-o", "prog", "main.c", "a.c", "b.c")
	prog := filepath.Join(dir, "prog")
	obj, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	var helpers, counters []nmSym
	for _, s := range nm(t, prog) {
		switch s.name {
		case "helper":
			helpers = append(helpers, s)
		case "counter":
			counters = append(counters, s)
		}
	}
	if len(helpers) != 2 || len(counters) != 2 {
		t.Fatalf("nm lists %d helper and %d counter, want 2 each", len(helpers), len(counters))
	}
	for _, h := range helpers {
		line := strings.TrimSpace(run(t, dir, "addr2line", "-e", prog, strconv.FormatUint(h.addr, 16)))
		file, _, _ := strings.Cut(line, ":")
		s, off, ok := obj.Lookup(h.addr + 1)
		if !ok || s.Name != "helper" || off != 1 || !s.Local || s.SourceFile != filepath.Base(file) {
			t.Errorf("Lookup(%#x) = %+v+%d, %v, want helper+1, local, of %s", h.addr+1, s, off, ok, filepath.Base(file))
		}
	}
	got := obj.Symbols("counter")
	if len(got) != 2 {
		t.Fatalf("Symbols(counter) = %+v, want 2", got)
	}
	files := map[string]bool{}
	for i, s := range got {
		files[s.SourceFile] = true
		if s.Addr != counters[0].addr && s.Addr != counters[1].addr {
			t.Errorf("Symbols(counter)[%d].Addr = %#x, want one of nm's %#x %#x", i, s.Addr, counters[0].addr, counters[1].addr)
		}
	}
	if !files["a.c"] || !files["b.c"] {
		t.Errorf("Symbols(counter) in files %v, want a.c and b.c", files)
	}
}

func TestDemangle(t *testing.T) {
	requireTools(t, "g++", "nm")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"prog.cc": `#include <vector>
namespace shop {
struct Cart {
	int n;
	int __attribute__((noinline)) add(int x);
	template <typename T> T __attribute__((noinline)) scale(T v) { return v * n; }
};
int Cart::add(int x) { n += x; return n; }
namespace {
int __attribute__((noinline)) hidden(int x) { return x + 1; }
}
}
int __attribute__((noinline)) total(const std::vector<int> &v) { int s = 0; for (int x : v) s += x; return s; }
int __attribute__((noinline)) total(double d) { return shop::hidden((int)d); }
int main() {
	shop::Cart c{1};
	std::vector<int> v{1, 2, 3};
	return c.add(total(v)) + (int)c.scale<long>(2) + total(1.5);
}
`})
	run(t, dir, "g++", "-O1", "-o", "prog", "prog.cc")
	prog := filepath.Join(dir, "prog")
	mangled, demangled := nm(t, prog), nm(t, prog, "-C")
	if len(mangled) != len(demangled) {
		t.Fatalf("nm lists %d symbols, nm -C %d", len(mangled), len(demangled))
	}
	obj, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, m := range mangled {
		if !strings.HasPrefix(m.name, "_ZN4shop") && !strings.HasPrefix(m.name, "_Z5total") {
			continue
		}
		n++
		s, _, ok := obj.Lookup(m.addr)
		if !ok || s.Name != m.name || s.Demangled() != demangled[i].name {
			t.Errorf("Lookup(%#x) = %q (%q), %v, want %q (%q)", m.addr, s.Name, s.Demangled(), ok, m.name, demangled[i].name)
		}
	}
	if n < 5 {
		t.Errorf("%d C++ functions of the fixture checked, want 5", n)
	}
}

func TestGoPCLNTab(t *testing.T) {
	requireTools(t, "go", "strip")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module fixture\n\ngo 1.21\n",
		"main.go": `package main

type T struct{ n int }

//go:noinline
func (t *T) Method(x int) int { t.n += x; return t.n }

//go:noinline
func inner(x int) int { return x * 7 }

//go:noinline
func outer(x int) int { return inner(x) + (&T{}).Method(x) }

func main() { println(outer(3)) }
`,
	})
	for _, mode := range []string{"exe", "pie"} {
		t.Run(mode, func(t *testing.T) {
			run(t, dir, "go", "build", "-buildmode="+mode, "-o", "gprog", ".")
			run(t, dir, "strip", "-o", "stripped", "gprog")
			want := map[string]nmSym{}
			for _, line := range strings.Split(run(t, dir, "go", "tool", "nm", "-size", "gprog"), "\n") {
				f := strings.Fields(line)
				if len(f) != 4 || f[2] != "T" {
					continue
				}
				addr, err1 := strconv.ParseUint(f[0], 16, 64)
				size, err2 := strconv.ParseUint(f[1], 10, 64)
				if err1 == nil && err2 == nil {
					want[f[3]] = nmSym{name: f[3], addr: addr, size: size}
				}
			}
			obj, err := symbolize.Open(filepath.Join(dir, "stripped"), &symbolize.Options{DebugDirs: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			var funcs []nmSym
			for _, name := range []string{"main.inner", "main.outer", "main.(*T).Method", "main.main", "runtime.main"} {
				w, ok := want[name]
				if !ok {
					t.Fatalf("go tool nm lists no %s", name)
				}
				funcs = append(funcs, w)
			}
			checkFuncs(t, obj, funcs, symbolize.GoPCLNTab)
		})
	}
}

func TestSharedLibrary(t *testing.T) {
	requireTools(t, "gcc", "nm", "strip")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lib.c": `static int __attribute__((noinline)) lib_helper(int x) { return x * 5; }
int lib_fn(int x) { return lib_helper(x) + 1; }
int lib_other(int x) { return lib_fn(x) * 3; }
`})
	run(t, dir, "gcc", "-O1", "-shared", "-fPIC", "-o", "libx.so", "lib.c")
	run(t, dir, "strip", "-o", "stripped.so", "libx.so")
	lib := filepath.Join(dir, "libx.so")
	syms := nm(t, lib)
	obj, err := symbolize.Open(filepath.Join(dir, "stripped.so"), &symbolize.Options{DebugDirs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	checkFuncs(t, obj, []nmSym{nmFunc(t, syms, "lib_fn"), nmFunc(t, syms, "lib_other")}, symbolize.DynSym)
	helper := nmFunc(t, syms, "lib_helper")
	if s, _, ok := obj.Lookup(helper.addr); ok && s.Name == "lib_helper" {
		t.Errorf("Lookup(%#x) = lib_helper, which only .symtab has", helper.addr)
	}
	// By file offset, as a uprobe or a process's mapping names it.
	fn := nmFunc(t, syms, "lib_fn")
	off := fileOffset(t, lib, fn.addr)
	if s, got, ok := obj.LookupOffset(off + 2); !ok || s.Name != "lib_fn" || got != 2 {
		t.Errorf("LookupOffset(%#x) = %q+%d, %v, want lib_fn+2", off+2, s.Name, got, ok)
	}
}

// fileOffset returns the file offset of the virtual address addr in the
// ELF file at path, by its section headers.
func fileOffset(t *testing.T, path string, addr uint64) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			return addr - s.Addr + s.Offset
		}
	}
	t.Fatalf("%s: no section holds %#x", path, addr)
	return 0
}
