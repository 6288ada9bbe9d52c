package process

import (
	"debug/elf"
	"encoding/binary"
)

// Breakpoint instructions that the kernel writes over a probed instruction
// (UPROBE_SWBP_INSN in arch/*/include/asm/uprobes.h).
const (
	x86Int3      = 0xcc
	arm64BRK     = 0xd4200000 | 0x005<<5 // BRK #UPROBES_BRK_IMM
	armUDF       = 0x07f001f9            // condition bits come from the probed instruction
	riscvEbreak  = 0x00100073
	riscvCEbreak = 0x9002
	loongBreak   = 0x002a0000 | 12 // break BRK_UPROBE_BP
	s390Swbp     = 0x0002
	ppcTrap      = 0x7fe00008
	mipsBreak    = 0x000d000d // break 13
)

// IsBreakpoint reports whether the instruction bytes b, read from a probe
// site in a process, are the breakpoint the kernel installs there when a
// uprobe is attached, for a file of machine m. b should hold at least 4
// bytes, the longest breakpoint.
//
// Supported: x86 and x86-64 (int3), arm64 (BRK #5), arm (the UDF the kernel
// uses, in ARM state and little-endian), riscv (ebreak or c.ebreak, by
// kernel configuration), loongarch (break 12), s390, powerpc and mips. For
// powerpc and mips, whose byte order m does not tell, either order is
// accepted. Other machines report false.
//
// Since Linux 6.18 an x86-64 uprobe on a 5-byte nop may, once hit, be
// optimized into a call; such a site does not hold int3, but it differs
// from the bytes in the file.
func IsBreakpoint(b []byte, m elf.Machine) bool {
	return BreakpointSize(b, m) > 0
}

// BreakpointSize returns the size of the breakpoint at the start of b,
// as IsBreakpoint tells one, or 0 if b does not start with one.
func BreakpointSize(b []byte, m elf.Machine) int {
	le16 := func() uint16 { return binary.LittleEndian.Uint16(b) }
	le32 := func() uint32 { return binary.LittleEndian.Uint32(b) }
	be32 := func() uint32 { return binary.BigEndian.Uint32(b) }
	size := func(ok bool, n int) int {
		if ok {
			return n
		}
		return 0
	}
	switch m {
	case elf.EM_386, elf.EM_X86_64:
		return size(len(b) >= 1 && b[0] == x86Int3, 1)
	case elf.EM_AARCH64:
		// Instructions are little-endian even on big-endian arm64.
		return size(len(b) >= 4 && le32() == arm64BRK, 4)
	case elf.EM_ARM:
		return size(len(b) >= 4 && le32()&0x0fffffff == armUDF, 4)
	case elf.EM_RISCV:
		if len(b) >= 4 && le32() == riscvEbreak {
			return 4
		}
		return size(len(b) >= 2 && le16() == riscvCEbreak, 2)
	case elf.EM_LOONGARCH:
		return size(len(b) >= 4 && le32() == loongBreak, 4)
	case elf.EM_S390:
		return size(len(b) >= 2 && binary.BigEndian.Uint16(b) == s390Swbp, 2)
	case elf.EM_PPC, elf.EM_PPC64:
		return size(len(b) >= 4 && (be32() == ppcTrap || le32() == ppcTrap), 4)
	case elf.EM_MIPS:
		return size(len(b) >= 4 && (be32() == mipsBreak || le32() == mipsBreak), 4)
	}
	return 0
}
