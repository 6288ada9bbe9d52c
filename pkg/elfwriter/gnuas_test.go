package elfwriter

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An asmTest is a sequence of instructions: its text for the GNU
// assembler, the calls that emit it and, when it needs no linking, its
// bytes.
type asmTest struct {
	asm  string
	emit func(f *File)
	want []byte
}

// linkedText returns the .text of a File of machine m in which emit wrote
// code, once linked, so that branches and addresses are resolved.
func linkedText(t *testing.T, m elf.Machine, emit func(f *File)) []byte {
	t.Helper()
	f := NewFor(m, Exec)
	f.SetEntry(f.Here("_start"))
	emit(f)
	_, ef := link(t, f)
	text, err := ef.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// testEncode checks the bytes each test's emit writes for machine m
// against its want, for the tests that give one.
func testEncode(t *testing.T, m elf.Machine, tests []asmTest) {
	t.Helper()
	for _, tt := range tests {
		if tt.want == nil {
			continue
		}
		f := NewFor(m, Exec)
		tt.emit(f)
		if !bytes.Equal(f.text, tt.want) {
			t.Errorf("%s = % x, want % x", tt.asm, f.text, tt.want)
		}
	}
}

// testGNU assembles each test's text with the GNU assembler as (run with
// args) and compares the bytes with those emit writes for machine m,
// linked. Local branches are resolved by the assembler; the tests must
// not refer to symbols the assembler leaves to the linker.
func testGNU(t *testing.T, m elf.Machine, as string, args []string, tests []asmTest) {
	t.Helper()
	path, err := exec.LookPath(as)
	if err != nil {
		t.Skipf("requires %s (binutils for the machine)", as)
	}
	dir := t.TempDir()
	for i, tt := range tests {
		src := filepath.Join(dir, "t.s")
		obj := filepath.Join(dir, "t.o")
		if err := os.WriteFile(src, []byte(tt.asm+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path, append(args, "-o", obj, src)...).CombinedOutput(); err != nil {
			t.Fatalf("test %d: %s: %v\n%s", i, as, err, out)
		}
		ef, err := elf.Open(obj)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ef.Section(".text").Data()
		ef.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The assembler pads .text to its alignment (with nopr, 07 07, on
		// s390x).
		got := linkedText(t, m, tt.emit)
		if len(got) > len(want) || !bytes.Equal(got, want[:len(got)]) || strings.Trim(string(want[len(got):]), "\x00\x07") != "" {
			t.Errorf("%s:\n% x\n%s gives\n% x", strings.ReplaceAll(tt.asm, "\n", "; "), got, as, want)
		}
	}
}
