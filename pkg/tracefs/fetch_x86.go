package tracefs

import (
	"debug/elf"
	"fmt"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// x86NopLen is the length of the nop at a site: %ip points past it once
// the site's instruction has run, as the operands compiled there assume.
const x86NopLen = 1

// fetchAMD64 returns the fetch argument of an x86-64 operand at the site
// whose link-time address is pc.
func fetchAMD64(a *argspec.Arg, pc uint64, o *Options) (string, error) {
	if err := checkOperand(a); err != nil {
		return "", err
	}
	size := a.Size
	switch a.Kind {
	case argspec.Const:
		return `\` + strconv.FormatInt(a.Offset, 10) + ":" + typeName(orEight(size), a.Signed), nil
	case argspec.Register:
		reg, err := regAMD64(a.Base)
		if err != nil {
			return "", err
		}
		return x86Register(a, reg, size, 64)
	case argspec.Memory:
		if a.Base.Name == "rip" {
			return memory(a.Offset+x86NopLen, "%ip", size, a.Signed), nil
		}
		return x86Memory(a, pc, regAMD64, size, o)
	case argspec.Symbol:
		return global(a, pc, size, o)
	case argspec.SIB:
		return "", errSIB
	case argspec.FloatRegister:
		return "", fmt.Errorf("floating-point register %%%s: not in pt_regs", a.Base.Name)
	}
	return "", fmt.Errorf("operand kind %v not supported", a.Kind)
}

// regAMD64 returns the name uprobe_events gives the full register r is
// part of: the pt_regs field, as %ax for %rax, %eax and %al.
func regAMD64(r argspec.Reg) (string, error) {
	switch b := r.Base; b {
	case "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp":
		return "%" + b[1:], nil
	case "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15":
		return "%" + b, nil
	}
	return "", fmt.Errorf("register %%%s not in pt_regs", r.Name)
}

// fetchI386 is fetchAMD64 for an i386 operand. Its registers go by the
// names of the pt_regs fields of an i386 kernel, which an x86-64 kernel
// gives the same 32-bit task's registers too, zero-extended: %ax for
// %eax.
func fetchI386(a *argspec.Arg, pc uint64, o *Options) (string, error) {
	if err := checkOperand(a); err != nil {
		return "", err
	}
	size := a.Size
	switch a.Kind {
	case argspec.Const:
		return immediate(a.Offset, orFour(size), a.Signed, 4)
	case argspec.Register:
		reg, err := regI386(a.Base)
		if err != nil {
			return "", err
		}
		if size > a.Base.Size && a.Index.Name != "" {
			return "", fmt.Errorf("%d-byte value in %%%s:%%%s: a fetch argument reads one register", size, a.Index.Name, a.Base.Name)
		}
		// A 32-bit container for a high byte: the register's own
		// width, on either kernel.
		return x86Register(a, reg, size, 32)
	case argspec.Memory:
		size = orFour(size)
		if a.Reloc == argspec.RelocGOTOFF {
			// The register holds the GOT's address, so the operand is
			// the symbol's: read relative to the site as a global is.
			return global(a, pc, size, o)
		}
		return x86Memory(a, pc, regI386, size, o)
	case argspec.Symbol:
		// An absolute address, as non-PIC code has it.
		return global(a, pc, orFour(size), o)
	case argspec.SIB:
		return "", errSIB
	case argspec.FloatRegister:
		return "", fmt.Errorf("floating-point register %%%s: not in pt_regs", a.Base.Name)
	}
	return "", fmt.Errorf("operand kind %v not supported", a.Kind)
}

// absolute returns the displacement of a memory operand, its symbol's
// link-time address included, which is its run-time address only in a
// file that is not position-independent.
func absolute(a *argspec.Arg, pc uint64, o *Options) (int64, error) {
	off := a.Offset
	if a.Symbol == "" {
		return off, nil
	}
	if a.Reloc != "" {
		return 0, fmt.Errorf("relocation %s not supported", a.Reloc)
	}
	if o.Type != elf.ET_EXEC {
		return 0, fmt.Errorf("%s plus a register in a position-independent file: the load bias has no fetch argument form", a.Symbol)
	}
	sym, err := symbol(a.Symbol, pc, o)
	if err != nil {
		return 0, err
	}
	return off + int64(sym), nil
}

func orFour(size int) int {
	if size == 0 {
		return 4
	}
	return size
}

// regI386 returns the name uprobe_events gives the register r is part of
// on i386 and x86-64 kernels alike: %ax for %eax, %ax and %al.
func regI386(r argspec.Reg) (string, error) {
	switch b := r.Base; b {
	case "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp":
		return "%" + b[1:], nil
	}
	return "", fmt.Errorf("register %%%s not in pt_regs", r.Name)
}

// global returns the fetch argument of the size bytes at a's symbol plus
// its offset, for the site whose link-time address is pc: read at their
// distance from the site, which the load bias moves as it moves the
// symbol.
func global(a *argspec.Arg, pc uint64, size int, o *Options) (string, error) {
	sym, err := symbol(a.Symbol, pc, o)
	if err != nil {
		return "", err
	}
	return memory(int64(sym+uint64(a.Offset)-pc), "%ip", size, a.Signed), nil
}

// x86Register returns the fetch argument of register operand a, of size
// bytes (the register's if 0), in the pt_regs field reg: a high byte
// (%ah) as a bitfield of a container of width bits.
func x86Register(a *argspec.Arg, reg string, size, width int) (string, error) {
	if size == 0 || size > a.Base.Size {
		size = a.Base.Size
	}
	if a.Base.Shift != 0 {
		if a.Signed {
			return "", fmt.Errorf("signed %%%s: bitfields are unsigned", a.Base.Name)
		}
		return fmt.Sprintf("%s:b%d@%d/%d", reg, size*8, a.Base.Shift, width), nil
	}
	return reg + ":" + typeName(size, a.Signed), nil
}

// x86Memory returns the fetch argument of the size bytes at memory
// operand a of the site at pc, its base register named by regName.
func x86Memory(a *argspec.Arg, pc uint64, regName func(argspec.Reg) (string, error), size int, o *Options) (string, error) {
	reg, err := regName(a.Base)
	if err != nil {
		return "", err
	}
	off, err := absolute(a, pc, o)
	if err != nil {
		return "", err
	}
	return memory(off, reg, size, a.Signed), nil
}
