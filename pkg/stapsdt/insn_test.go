package stapsdt

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

func TestClassifyInsn(t *testing.T) {
	nop5 := []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}
	nop10 := []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	le, be := elf.ELFDATA2LSB, elf.ELFDATA2MSB
	for _, tt := range []struct {
		name  string
		b     []byte
		m     elf.Machine
		order elf.Data
		want  Insn
	}{
		{"x86-64 nop", []byte{0x90, 0xc3}, elf.EM_X86_64, le, InsnNop},
		{"x86-64 nop at the end of the file", []byte{0x90}, elf.EM_X86_64, le, InsnNop},
		{"x86-64 nop5", cat(nop5, []byte{0xc3}), elf.EM_X86_64, le, InsnNop5},
		{"x86-64 nop+nop5", cat([]byte{0x90}, nop5, []byte{0xc3}), elf.EM_X86_64, le, InsnNopNop5},
		{"x86-64 nop+nop10", cat([]byte{0x90}, nop10), elf.EM_X86_64, le, InsnNopNop10},
		{"x86-64 nop and a truncated nop10", cat([]byte{0x90}, nop10[:6]), elf.EM_X86_64, le, InsnNop},
		{"x86-64 nop, then nop10 with gas's prefix order", cat([]byte{0x90, 0x2e, 0x66}, nop10[2:]), elf.EM_X86_64, le, InsnNop},
		{"x86-64 breakpoint", []byte{0xcc, 0x1f, 0x44, 0x00, 0x00}, elf.EM_X86_64, le, InsnOther},
		{"x86-64 optimized call", []byte{0xe8, 1, 2, 3, 4}, elf.EM_X86_64, le, InsnOther},
		{"i386 nop", []byte{0x90}, elf.EM_386, le, InsnNop},
		{"arm64 nop", []byte{0x1f, 0x20, 0x03, 0xd5}, elf.EM_AARCH64, le, InsnNop},
		{"arm64 nop, big-endian data", []byte{0x1f, 0x20, 0x03, 0xd5}, elf.EM_AARCH64, be, InsnNop},
		{"arm64 brk", []byte{0xa0, 0x00, 0x20, 0xd4}, elf.EM_AARCH64, le, InsnOther},
		{"s390x nop 0", []byte{0x47, 0x00, 0x00, 0x00}, elf.EM_S390, be, InsnNop},
		{"ppc64le nop", []byte{0x00, 0x00, 0x00, 0x60}, elf.EM_PPC64, le, InsnNop},
		{"ppc nop", []byte{0x60, 0x00, 0x00, 0x00}, elf.EM_PPC, be, InsnNop},
		{"riscv nop", []byte{0x13, 0x00, 0x00, 0x00}, elf.EM_RISCV, le, InsnNop},
		{"riscv c.nop", []byte{0x01, 0x00, 0x13, 0x05}, elf.EM_RISCV, le, InsnNop},
		{"arm nop", []byte{0x00, 0xf0, 0x20, 0xe3}, elf.EM_ARM, le, InsnNop},
		{"thumb nop", []byte{0x00, 0xbf, 0x00, 0x00}, elf.EM_ARM, le, InsnNop},
		{"loongarch nop", []byte{0x00, 0x00, 0x40, 0x03}, elf.EM_LOONGARCH, le, InsnNop},
		{"short arm64", []byte{0x1f, 0x20}, elf.EM_AARCH64, le, InsnUnknown},
		{"nothing", nil, elf.EM_X86_64, le, InsnUnknown},
	} {
		if got := ClassifyInsn(tt.b, tt.m, tt.order); got != tt.want {
			t.Errorf("%s: ClassifyInsn(% x, %v) = %v, want %v", tt.name, tt.b, tt.m, got, tt.want)
		}
	}
}

func TestParseInsn(t *testing.T) {
	for _, i := range []Insn{InsnOther, InsnNop, InsnNop5, InsnNopNop5, InsnNopNop10} {
		got, err := ParseInsn(i.String())
		if err != nil || got != i {
			t.Errorf("ParseInsn(%q) = %v, %v, want %v", i.String(), got, err, i)
		}
	}
	for _, s := range []string{"", "nop1", "NOP"} {
		if got, err := ParseInsn(s); err == nil {
			t.Errorf("ParseInsn(%q) = %v, want an error", s, got)
		}
	}
}

// TestSiteInsn reads the instruction of sites that elfwriter writes, and
// of one at a return.
func TestSiteInsn(t *testing.T) {
	f := elfwriter.New(elfwriter.Exec)
	start := f.Func("_start")
	f.SetEntry(start)
	a := f.AMD64()
	note := func(name string, pc elfwriter.Label) {
		f.AddNote(elfwriter.Note{Provider: "p", Name: name, PC: pc})
	}
	note("nop", a.Nop())
	a.Ret()
	note("nop5", a.Nop5())
	a.Ret()
	pc := a.Nop()
	a.Nop5()
	note("nop+nop5", pc)
	pc = a.Nop()
	a.Nop10()
	note("nop+nop10", pc)
	note("other", f.Here(""))
	a.Ret()
	f.End(start)
	im, err := f.Link()
	if err != nil {
		t.Fatal(err)
	}
	sf, err := NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	if len(sf.Sites) != 5 {
		t.Fatalf("%d sites, want 5", len(sf.Sites))
	}
	for _, s := range sf.Sites {
		if got := s.Insn.String(); got != s.Name {
			t.Errorf("site %s at %#x: Insn = %q, want %q", s.Name, s.PC, got, s.Name)
		}
	}
}
