package argspec

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// RISC-V operands look like "a0", "-8(s0)" or a bare constant, as gcc
// prints them. EM_RISCV covers RV32 too; registers are taken as 64-bit.

var riscvTabs = sync.OnceValues(riscvTables)

func riscvRegs() regTable  { gp, _ := riscvTabs(); return gp }
func riscvFloat() regTable { _, fp := riscvTabs(); return fp }

// riscvABI names x0..x31 and f0..f31 as the psABI does.
var riscvABI = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

// riscvTables returns the integer registers, under both their xN and ABI
// names, with their ABI name as Base, at their offsets in struct
// user_regs_struct (pc, then x1..x31: xN at 8*N; x0 is not there), and
// the floating-point registers.
func riscvTables() (gp, fp regTable) {
	gp, fp = regTable{}, regTable{}
	for n, abi := range riscvABI {
		off := 8 * n
		if n == 0 {
			off = -1
		}
		gp.add(abi, abi, off, 8, 0)
		gp.add("x"+strconv.Itoa(n), abi, off, 8, 0)
		fabi := riscvFloatABI(n)
		fp.add(fabi, fabi, -1, 8, 0)
		fp.add("f"+strconv.Itoa(n), fabi, -1, 8, 0)
	}
	gp.add("fp", "s0", 64, 8, 0)
	return gp, fp
}

// riscvFloatABI returns the psABI name of fN.
func riscvFloatABI(n int) string {
	switch {
	case n < 8:
		return "ft" + strconv.Itoa(n)
	case n < 10:
		return "fs" + strconv.Itoa(n-8)
	case n < 18:
		return "fa" + strconv.Itoa(n-10)
	case n < 28:
		return "fs" + strconv.Itoa(n-16)
	}
	return "ft" + strconv.Itoa(n-20)
}

func parseRISCV(a *Arg, op string) error {
	if open := strings.IndexByte(op, '('); open >= 0 {
		return parseOffReg(a, op, open, func(s string) (Reg, error) {
			if r, ok := riscvRegs().lookup(s); ok {
				return r, nil
			}
			return Reg{}, unknownReg(s)
		})
	}
	if isNumStart(op[0]) {
		return setConst(a, op)
	}
	return setReg(a, riscvRegs(), riscvFloat(), op, op)
}

// parseOffReg decodes "off(reg)" or "(reg)", the '(' being at open.
func parseOffReg(a *Arg, op string, open int, reg func(string) (Reg, error)) error {
	if op[len(op)-1] != ')' {
		return fmt.Errorf("bad memory operand %q", op)
	}
	off, err := parseOffset(op[:open])
	if err != nil {
		return err
	}
	base, err := reg(cutSpace(op[open+1 : len(op)-1]))
	if err != nil {
		return err
	}
	a.Kind, a.Base, a.Offset = Memory, base, off
	return nil
}

// formatRISCV always writes the offset of a memory operand, "0(a0)", as
// gcc does.
func formatRISCV(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(b, a.Offset)
	case Register, FloatRegister:
		return append(b, a.Base.Name...)
	case Memory:
		b = append(appendOffset(b, a.Offset), '(')
		return append(append(b, a.Base.Name...), ')')
	}
	return b
}
