package stapsdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// An Insn is the instruction a probe site holds in its file: what a
// uprobe placed at the site replaces.
//
// sys/sdt.h places the machine's nop. On x86-64, Linux 6.18 turns a uprobe
// on the 5-byte nop 0f 1f 44 00 00 into a call through a trampoline of
// its own, once hit, instead of a breakpoint trap: about half the cost
// per hit. That call writes its return address, and the trampoline three
// registers, below the stack pointer, over the 128-byte red zone that
// x86-64 code may keep data in without moving the stack pointer. So a
// long nop is only safe where nothing lives below the stack pointer, as
// in package sdt's probe functions, and libbpf's usdt.h emits pairs
// instead: the 1-byte nop, where its note points, then a long nop that a
// tracer may attach to instead where the kernel makes that safe.
// sdtkit's tracers attach at the note's pc, the 1-byte nop of a pair,
// which the kernel traps on, touching nothing of the process's stack: no
// kernel is known to optimize a uprobe on the long nop of a pair without
// writing below the stack pointer (Linux 6.18 optimizes the 5-byte nop,
// and so writes there, and leaves the 10-byte one a breakpoint).
type Insn uint8

const (
	// InsnUnknown is the Insn of a site that was not read: it has no
	// file offset (PCOffsetErr), or its bytes lie past the end of the
	// file.
	InsnUnknown Insn = iota
	// InsnOther is none of the instructions below.
	InsnOther
	// InsnNop is the machine's nop, as sys/sdt.h places it: 90 on x86,
	// d503201f on arm64, "nop 0" on s390x, and so on.
	InsnNop
	// InsnNop5 is x86's 5-byte nop, 0f 1f 44 00 00 (nopl 0x0(%rax,%rax,1)):
	// package sdt's sites where the kernel optimizes uprobes on it.
	InsnNop5
	// InsnNopNop5 is the 1-byte nop followed by the 5-byte nop, which
	// libbpf's usdt.h emitted on x86-64 from February to May 2026.
	InsnNopNop5
	// InsnNopNop10 is the 1-byte nop followed by the 10-byte nop
	// 66 2e 0f 1f 84 00 00 00 00 00 (cs nopw 0x0(%rax,%rax,1)), which
	// libbpf's usdt.h emits on x86-64 since.
	InsnNopNop10
)

var insnNames = [...]string{
	InsnUnknown:  "",
	InsnOther:    "other",
	InsnNop:      "nop",
	InsnNop5:     "nop5",
	InsnNopNop5:  "nop+nop5",
	InsnNopNop10: "nop+nop10",
}

// String returns the name sdtlist gives the instruction: "nop", "nop5",
// "nop+nop5", "nop+nop10", "other", or "" for InsnUnknown.
func (i Insn) String() string {
	if int(i) < len(insnNames) {
		return insnNames[i]
	}
	return fmt.Sprintf("Insn(%d)", uint8(i))
}

// ParseInsn returns the Insn that String names, InsnUnknown aside.
func ParseInsn(s string) (Insn, error) {
	for i, n := range insnNames {
		if n == s && Insn(i) != InsnUnknown {
			return Insn(i), nil
		}
	}
	return InsnUnknown, fmt.Errorf("unknown site instruction %q, want nop, nop5, nop+nop5, nop+nop10 or other", s)
}

// x86 long nops.
var (
	x86Nop5  = []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}
	x86Nop10 = []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}
)

// maxInsn is the most bytes ClassifyInsn looks at: the 1+10-byte pair.
const maxInsn = 11

// ClassifyInsn tells which instruction the bytes b, read at a probe site
// of a file of machine m and byte order order, start with. b should hold
// the bytes up to the end of the longest site instruction, 11 bytes, or
// up to the end of the file; fewer bytes tell fewer instructions apart.
func ClassifyInsn(b []byte, m elf.Machine, order elf.Data) Insn {
	if len(b) == 0 {
		return InsnUnknown
	}
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		switch {
		case b[0] == 0x90 && bytes.HasPrefix(b[1:], x86Nop10):
			return InsnNopNop10
		case b[0] == 0x90 && bytes.HasPrefix(b[1:], x86Nop5):
			return InsnNopNop5
		case b[0] == 0x90:
			return InsnNop
		case bytes.HasPrefix(b, x86Nop5):
			return InsnNop5
		}
		return InsnOther
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if order == elf.ELFDATA2MSB && m != elf.EM_AARCH64 {
		bo = binary.BigEndian
	}
	for _, n := range machineNops[m] {
		if len(b) < n.size {
			continue
		}
		if n.size == 2 && uint32(bo.Uint16(b)) == n.insn || n.size == 4 && bo.Uint32(b) == n.insn {
			return InsnNop
		}
	}
	if len(b) < 4 {
		return InsnUnknown
	}
	return InsnOther
}

type nopInsn struct {
	size int
	insn uint32
}

// machineNops are the nops an assembler writes for "nop" on the machines
// other than x86, as numbers in the byte order of the file's code: that
// of its data but on arm64, whose instructions are little-endian always.
var machineNops = map[elf.Machine][]nopInsn{
	elf.EM_AARCH64:   {{4, 0xd503201f}},
	elf.EM_S390:      {{4, 0x47000000}},                               // nop 0 (bc 0,0)
	elf.EM_ARM:       {{4, 0xe320f000}, {4, 0xe1a00000}, {2, 0xbf00}}, // nop, mov r0,r0 before ARMv6K, Thumb-2 nop
	elf.EM_RISCV:     {{4, 0x00000013}, {2, 0x0001}},                  // addi x0,x0,0; c.nop
	elf.EM_PPC:       {{4, 0x60000000}},                               // ori 0,0,0
	elf.EM_PPC64:     {{4, 0x60000000}},
	elf.EM_LOONGARCH: {{4, 0x03400000}}, // andi $zero,$zero,0
	elf.EM_MIPS:      {{4, 0x00000000}}, // sll $0,$0,0
}

// siteBytes reads the bytes at probe sites, a window of the file at a
// time: sites come in note order, which is mostly address order, so that
// a file's sites cost a read or so per page of code that holds some.
type siteBytes struct {
	r   io.ReaderAt
	buf []byte
	off int64 // file offset of buf[0]
	n   int   // bytes of buf read
}

const siteWindow = 16 << 10

// at returns the bytes from file offset off up to maxInsn of them, fewer
// at the end of the file; nil when none could be read.
func (sb *siteBytes) at(off uint64) []byte {
	o := int64(off)
	if o < 0 {
		return nil
	}
	if sb.buf == nil || o < sb.off || o+maxInsn > sb.off+int64(sb.n) {
		if sb.buf == nil {
			sb.buf = make([]byte, siteWindow)
		}
		sb.off = o &^ (4096 - 1)
		n, err := sb.r.ReadAt(sb.buf, sb.off)
		if err != nil && err != io.EOF {
			n = 0
		}
		sb.n = n
	}
	if o >= sb.off+int64(sb.n) {
		return nil
	}
	return sb.buf[o-sb.off : min(o-sb.off+maxInsn, int64(sb.n))]
}

// readInsns sets the Insn of each site of f that has a file offset, from
// the file in r.
func (f *File) readInsns(r io.ReaderAt) {
	sb := siteBytes{r: r}
	for i := range f.Sites {
		s := &f.Sites[i]
		if s.PCOffsetErr != nil {
			continue
		}
		s.Insn = ClassifyInsn(sb.at(s.PCOffset), f.Machine, f.ByteOrder)
	}
}
