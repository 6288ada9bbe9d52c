package tracefs

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// The machines other than x86 write an operand as a register, memory at
// a register plus a displacement, memory at a register plus another
// (left out), or a constant; only the names the kernel gives their
// registers differ, in the table of each architecture's
// regs_query_register_offset.

// A regMachine is such a machine.
type regMachine struct {
	word int // bytes in a general register: the size of an unsized operand
	// reg returns the name uprobe_events gives the full register r is
	// part of, with '%', or "" for a register that reads as zero.
	reg func(r argspec.Reg) (string, error)
}

var machines = map[elf.Machine]*regMachine{
	elf.EM_AARCH64:   {8, regARM64},
	elf.EM_ARM:       {4, regARM},
	elf.EM_RISCV:     {8, regRISCV}, // RV64, as package argspec takes it
	elf.EM_PPC64:     {8, regPPC},
	elf.EM_PPC:       {4, regPPC},
	elf.EM_S390:      {8, regS390},
	elf.EM_LOONGARCH: {8, regLoong},
}

// fetch returns the fetch argument of operand a. Neither pc nor o is
// needed: these machines' operands name no symbol.
func (mc *regMachine) fetch(a *argspec.Arg, _ uint64, _ *Options) (string, error) {
	if err := checkOperand(a); err != nil {
		return "", err
	}
	size := a.Size
	switch a.Kind {
	case argspec.Const:
		return immediate(a.Offset, mc.or(size), a.Signed, mc.word)
	case argspec.Register:
		reg, err := mc.reg(a.Base)
		if err != nil {
			return "", err
		}
		if size > a.Base.Size && mc.word == 4 {
			// gcc's pair of registers, of which the note names one.
			return "", fmt.Errorf("%d-byte value in registers of 4: a fetch argument reads one register", size)
		}
		if size == 0 || size > a.Base.Size {
			size = a.Base.Size
		}
		if reg == "" {
			return immediate(0, size, a.Signed, mc.word)
		}
		return reg + ":" + typeName(size, a.Signed), nil
	case argspec.Memory:
		reg, err := mc.reg(a.Base)
		if err != nil {
			return "", err
		}
		if reg == "" {
			return "", fmt.Errorf("memory at the zero register plus %d: an absolute address below any mapping", a.Offset)
		}
		return memory(a.Offset, reg, mc.or(size), a.Signed), nil
	case argspec.SIB:
		return "", errSIB
	case argspec.FloatRegister:
		return "", fmt.Errorf("floating-point register %s: not in pt_regs", a.Base.Name)
	}
	return "", fmt.Errorf("operand kind %v not supported", a.Kind)
}

// or returns size, or the machine's word for an unsized operand.
func (mc *regMachine) or(size int) int {
	if size == 0 {
		return mc.word
	}
	return size
}

// regARM64 names x0 to x30 and sp as the kernel does; xzr reads zero.
func regARM64(r argspec.Reg) (string, error) {
	if r.Base == "xzr" {
		return "", nil
	}
	return "%" + r.Base, nil
}

// regARM names r0 to r10 by number and the others by role, as the
// kernel's table does: fp, ip, sp, lr. pc is left out: the kernel's is
// the site's address, while an instruction reads its own plus 8 (4 in
// Thumb code).
func regARM(r argspec.Reg) (string, error) {
	switch r.Base {
	case "r11":
		return "%fp", nil
	case "r12":
		return "%ip", nil
	case "r13":
		return "%sp", nil
	case "r14":
		return "%lr", nil
	case "r15":
		return "", errors.New("pc: the kernel's is the site's address, an instruction's its own plus 8 (4 in Thumb code)")
	}
	return "%" + r.Base, nil
}

// regRISCV names the registers by their ABI names, as the kernel does
// (s0, not fp); zero reads zero.
func regRISCV(r argspec.Reg) (string, error) {
	if r.Base == "zero" {
		return "", nil
	}
	return "%" + r.Base, nil
}

// regPPC names rN gprN, as every kernel does; only later ones know rN
// as well.
func regPPC(r argspec.Reg) (string, error) {
	return "%gpr" + strings.TrimPrefix(r.Base, "r"), nil
}

// regS390 names the general registers r0 to r15, as the kernel does.
func regS390(r argspec.Reg) (string, error) { return "%" + r.Base, nil }

// regLoong names the general registers r0 to r31, as the kernel does
// (not by their ABI names); r0 reads zero.
func regLoong(r argspec.Reg) (string, error) {
	if r.Base == "r0" {
		return "", nil
	}
	return "%" + r.Base, nil
}
