package symbolize_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

const progC = `#include <unistd.h>
static int __attribute__((noinline)) helper(int x) { return x * 3 + getpid() % 2; }
int __attribute__((noinline)) inner(int x) { return helper(x) + 1; }
int __attribute__((noinline)) outer(int x) { return inner(x) * 2; }
int main(int argc, char **argv) { return outer(argc) == 12345; }
`

// buildProg builds progC into dir/prog, with a build-id, and returns its
// path.
func buildProg(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	requireTools(t, "gcc", "nm", "objcopy", "strip")
	writeFiles(t, dir, map[string]string{"prog.c": progC})
	args := append([]string{"-O1", "-g", "-Wl,--build-id", "-o", "prog", "prog.c"}, flags...)
	run(t, dir, "gcc", args...)
	return filepath.Join(dir, "prog")
}

// checkFuncs checks that every function of want resolves in obj, by
// address and by file offset, to its name and the offset into it.
func checkFuncs(t *testing.T, obj *symbolize.Object, want []nmSym, table symbolize.Table) {
	t.Helper()
	for _, w := range want {
		for _, off := range []uint64{0, w.size / 2, w.size - 1} {
			s, got, ok := obj.Lookup(w.addr + off)
			if !ok || s.Name != w.name || got != off {
				t.Errorf("Lookup(%#x) = %q+%d, %v, want %q+%d", w.addr+off, s.Name, got, ok, w.name, off)
				continue
			}
			if s.Table != table {
				t.Errorf("Lookup(%#x) from %v, want %v", w.addr+off, s.Table, table)
			}
		}
	}
}

func TestDebugFile(t *testing.T) {
	dir := t.TempDir()
	prog := buildProg(t, dir)
	syms := nm(t, prog)
	var want []nmSym
	for _, name := range []string{"helper", "inner", "outer", "main"} {
		want = append(want, nmFunc(t, syms, name))
	}
	full, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	if full.BuildID == "" {
		t.Fatal("no build-id read from a file linked with --build-id")
	}
	buildIDPath := func(root string) string {
		return filepath.Join(root, ".build-id", full.BuildID[:2], full.BuildID[2:]+".debug")
	}

	// stripped makes a stripped copy of prog in its own directory, with
	// a debuglink to prog.debug, and returns the copy's path and the
	// debug file's contents.
	stripped := func(t *testing.T) (string, []byte) {
		d := t.TempDir()
		run(t, d, "objcopy", "--only-keep-debug", prog, "prog.debug")
		run(t, d, "strip", "--strip-all", "-o", "prog", prog)
		run(t, d, "objcopy", "--add-gnu-debuglink=prog.debug", "prog")
		debug, err := os.ReadFile(filepath.Join(d, "prog.debug"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(d, "prog.debug")); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(d, "prog"), debug
	}
	put := func(t *testing.T, path string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, tt := range []struct {
		name string
		// place puts the debug file of the stripped file at path, the
		// debug root being root, and returns where it put it, "" for a
		// debug file that must not be used.
		place func(t *testing.T, path, root string, debug []byte) string
		// mismatch is set where a debug file is found and refused.
		mismatch bool
	}{
		{"build-id", func(t *testing.T, path, root string, debug []byte) string {
			p := buildIDPath(root)
			put(t, p, debug)
			return p
		}, false},
		{"debuglink next to the file", func(t *testing.T, path, root string, debug []byte) string {
			p := filepath.Join(filepath.Dir(path), "prog.debug")
			put(t, p, debug)
			return p
		}, false},
		{"debuglink in .debug", func(t *testing.T, path, root string, debug []byte) string {
			p := filepath.Join(filepath.Dir(path), ".debug", "prog.debug")
			put(t, p, debug)
			return p
		}, false},
		{"debuglink under the debug root", func(t *testing.T, path, root string, debug []byte) string {
			p := filepath.Join(root, filepath.Dir(path), "prog.debug")
			put(t, p, debug)
			return p
		}, false},
		{"debuglink with the wrong crc", func(t *testing.T, path, root string, debug []byte) string {
			// A byte more changes the CRC and leaves an ELF file.
			put(t, filepath.Join(filepath.Dir(path), "prog.debug"), append(debug, 0))
			return ""
		}, true},
		{"build-id of another file", func(t *testing.T, path, root string, debug []byte) string {
			other := t.TempDir()
			buildProg(t, other, "-DOTHER=1", "-Wl,--build-id=0x0123456789")
			run(t, other, "objcopy", "--only-keep-debug", "prog", "prog.debug")
			b, err := os.ReadFile(filepath.Join(other, "prog.debug"))
			if err != nil {
				t.Fatal(err)
			}
			put(t, buildIDPath(root), b)
			return ""
		}, true},
		{"none", func(t *testing.T, path, root string, debug []byte) string { return "" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, debug := stripped(t)
			root := t.TempDir()
			wantPath := tt.place(t, path, root, debug)
			obj, err := symbolize.Open(path, &symbolize.Options{DebugDirs: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			if obj.BuildID != full.BuildID {
				t.Errorf("BuildID = %s, want %s", obj.BuildID, full.BuildID)
			}
			if obj.DebugPath != wantPath {
				t.Errorf("DebugPath = %q, want %q", obj.DebugPath, wantPath)
			}
			var mismatch bool
			for _, w := range obj.Warnings {
				mismatch = mismatch || errors.Is(w, symbolize.ErrDebugMismatch)
			}
			if mismatch != tt.mismatch {
				t.Errorf("Warnings = %v, want a mismatch: %v", obj.Warnings, tt.mismatch)
			}
			if wantPath != "" {
				checkFuncs(t, obj, want, symbolize.DebugFile)
				return
			}
			for _, w := range want {
				if s, _, ok := obj.Lookup(w.addr); ok && s.Name == w.name {
					t.Errorf("Lookup(%#x) = %q from %v with no debug file", w.addr, s.Name, s.Table)
				}
			}
		})
	}
}

func TestSymTab(t *testing.T) {
	dir := t.TempDir()
	prog := buildProg(t, dir)
	syms := nm(t, prog)
	obj, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	if obj.DebugPath != "" {
		t.Errorf("DebugPath = %q for a file with .symtab", obj.DebugPath)
	}
	var want []nmSym
	for _, s := range syms {
		if (s.kind == 'T' || s.kind == 't') && s.size > 0 {
			want = append(want, s)
		}
	}
	checkFuncs(t, obj, want, symbolize.SymTab)
}
