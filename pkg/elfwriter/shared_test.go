package elfwriter

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// stubFile returns a File for machine m of type t with one exported
// function per probe, each a probe nop and a return, and a semaphore for
// the second probe.
func stubFile(m elf.Machine, t Type) (*File, []Label, Label) {
	f := NewFor(m, t)
	f.Soname = "libstub.so"
	sema := f.Semaphore("p_b_semaphore")
	var pcs []Label
	for i, name := range []string{"a", "b"} {
		fn := f.Func("p_" + name)
		pc := f.Nop()
		f.Ret()
		f.End(fn)
		f.Align(16)
		n := Note{Provider: "p", Name: name, Args: "8@%rdi", PC: pc}
		if i == 1 {
			n.Semaphore = sema
		}
		f.AddNote(n)
		pcs = append(pcs, pc)
	}
	if t != Shared {
		f.SetEntry(f.labelOf("p_a"))
	}
	return f, pcs, sema
}

// link links f and parses the result.
func link(t *testing.T, f *File) (*Image, *elf.File) {
	t.Helper()
	im, err := f.Link()
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	return im, ef
}

// labelOf returns the Label named name.
func (f *File) labelOf(name string) Label {
	for i, l := range f.labels {
		if l.name == name {
			return Label(i)
		}
	}
	return 0
}

func TestLinkMachines(t *testing.T) {
	for _, m := range Machines() {
		for _, typ := range []Type{Exec, PIE, Shared} {
			t.Run(m.String()+"/"+typ.String(), func(t *testing.T) {
				f, pcs, sema := stubFile(m, typ)
				im, ef := link(t, f)
				a := arches[m]
				if ef.Machine != m || ef.Class != a.class || ef.ByteOrder != a.order {
					t.Errorf("machine %v class %v order %v, want %v %v %v", ef.Machine, ef.Class, ef.ByteOrder, m, a.class, a.order)
				}
				syms, err := ef.Symbols()
				if err != nil {
					t.Fatal(err)
				}
				found := 0
				for _, s := range syms {
					if s.Name == "p_b_semaphore" && s.Value == im.Addr(sema) || s.Name == "p_a" && s.Value == im.Addr(pcs[0]) {
						found++
					}
				}
				if found != 2 {
					t.Errorf("symbols %v: p_a and p_b_semaphore missing or misplaced", syms)
				}
				sf, err := stapsdt.NewFile(bytes.NewReader(im.Bytes))
				if err != nil {
					t.Fatal(err)
				}
				if len(sf.Sites) != 2 {
					t.Fatalf("%d probes, want 2", len(sf.Sites))
				}
				for i, p := range sf.Sites {
					if p.PC != im.Addr(pcs[i]) || p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
						t.Errorf("probe %d: %+v, want pc %#x", i, p, im.Addr(pcs[i]))
					}
					if !bytes.Equal(im.Bytes[p.PCOffset:p.PCOffset+uint64(len(a.nop))], a.nop) {
						t.Errorf("probe %d: no nop at its pc", i)
					}
				}
				if sf.Sites[1].Semaphore != im.Addr(sema) || sf.Sites[1].SemaphoreOffset != im.Offset(sema) {
					t.Errorf("semaphore %#x at %#x, want %#x at %#x", sf.Sites[1].Semaphore, sf.Sites[1].SemaphoreOffset, im.Addr(sema), im.Offset(sema))
				}
				if readelf, err := exec.LookPath("readelf"); err == nil {
					path := filepath.Join(t.TempDir(), "f")
					if err := os.WriteFile(path, im.Bytes, 0o755); err != nil {
						t.Fatal(err)
					}
					out, err := exec.Command(readelf, "-W", "-a", "-n", path).CombinedOutput()
					if err != nil || bytes.Contains(out, []byte("Warning")) || bytes.Contains(out, []byte("Error")) {
						t.Errorf("readelf: %v\n%s", err, out)
					}
				}
			})
		}
	}
}

func TestLinkShared(t *testing.T) {
	f, _, _ := stubFile(elf.EM_X86_64, Shared)
	_, ef := link(t, f)
	if ef.Type != elf.ET_DYN || ef.Entry != 0 {
		t.Errorf("type %v entry %#x, want ET_DYN 0", ef.Type, ef.Entry)
	}
	dyn, err := ef.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range dyn {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "p_b_semaphore p_a p_b" {
		t.Errorf("dynamic symbols %q, want p_b_semaphore p_a p_b", got)
	}
	soname, err := ef.DynString(elf.DT_SONAME)
	if err != nil || len(soname) != 1 || soname[0] != "libstub.so" {
		t.Errorf("DT_SONAME %q, %v; want libstub.so", soname, err)
	}
}

// TestLinkSharedDlopen loads a Shared file with the dynamic loader and
// calls its functions by name.
func TestLinkSharedDlopen(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 to run the code (have %s)", runtime.GOARCH)
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("requires gcc to build the loading program")
	}
	f, _, _ := stubFile(elf.EM_X86_64, Shared)
	im, err := f.Link()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libstub.so")
	if err := os.WriteFile(lib, im.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "load.c")
	os.WriteFile(src, []byte(`#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	void (*a)(void) = (void (*)(void))dlsym(h, "p_a");
	void (*b)(void) = (void (*)(void))dlsym(h, "p_b");
	unsigned short *sema = dlsym(h, "p_b_semaphore");
	if (!a || !b || !sema) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
	a(); b();
	printf("ok %d\n", *sema);
	return dlclose(h);
}
`), 0o644)
	prog := filepath.Join(dir, "load")
	if out, err := exec.Command(cc, "-o", prog, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(prog, lib).CombinedOutput()
	if err != nil || string(out) != "ok 0\n" {
		t.Errorf("dlopen program: %v\n%s", err, out)
	}
}
