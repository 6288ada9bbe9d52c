package argspec

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// LoongArch operands look like "$r4", "$a0" or a bare constant. gcc
// writes a memory operand as "base,offset" ("$r3,8"; "$r3,$r4" when
// indexed), the order the load and store instructions take it in; the
// "8($r3)" form is accepted as well.

var loongTabs = sync.OnceValues(loongTables)

func loongRegs() regTable  { gp, _ := loongTabs(); return gp }
func loongFloat() regTable { _, fp := loongTabs(); return fp }

// loongTables returns the general registers, under both their $rN and ABI
// names, with $rN as Base, at their offsets in struct user_pt_regs
// (regs[32] first), and the floating-point registers.
func loongTables() (gp, fp regTable) {
	gp, fp = regTable{}, regTable{}
	gp.addSeq("r", 0, 31, 8, func(n int) int { return 8 * n })
	alias := func(name string, n int) {
		gp.add(name, "r"+strconv.Itoa(n), 8*n, 8, 0)
	}
	alias("zero", 0)
	alias("ra", 1)
	alias("tp", 2)
	alias("sp", 3)
	for i := 0; i <= 7; i++ {
		alias("a"+strconv.Itoa(i), 4+i)
	}
	for i := 0; i <= 8; i++ {
		alias("t"+strconv.Itoa(i), 12+i)
	}
	alias("fp", 22)
	alias("s9", 22)
	for i := 0; i <= 8; i++ {
		alias("s"+strconv.Itoa(i), 23+i)
	}

	fp.addSeq("f", 0, 31, 8, nil)
	falias := func(prefix string, first, n int) {
		for i := 0; i < n; i++ {
			fp.add(prefix+strconv.Itoa(i), "f"+strconv.Itoa(first+i), -1, 8, 0)
		}
	}
	falias("fa", 0, 8)
	falias("ft", 8, 16)
	falias("fs", 24, 8)
	return gp, fp
}

func loongReg(s string) (Reg, error) {
	if s != "" && s[0] == '$' {
		if r, ok := loongRegs().lookup(s[1:]); ok {
			return r, nil
		}
	}
	return Reg{}, unknownReg(s)
}

func parseLoong(a *Arg, op string) error {
	if open := strings.IndexByte(op, '('); open >= 0 {
		return parseOffReg(a, op, open, loongReg)
	}
	if rb, off, ok := strings.Cut(op, ","); ok {
		base, err := loongReg(cutSpace(rb))
		if err != nil {
			return err
		}
		off = cutSpace(off)
		if off != "" && off[0] == '$' {
			index, err := loongReg(off)
			if err != nil {
				return err
			}
			a.Kind, a.Base, a.Index, a.Scale = SIB, base, index, 1
			return nil
		}
		if off == "" {
			return fmt.Errorf("bad memory operand %q", op)
		}
		if a.Offset, err = parseOffset(off); err != nil {
			return err
		}
		a.Kind, a.Base = Memory, base
		return nil
	}
	if op[0] == '$' {
		return setReg(a, loongRegs(), loongFloat(), op[1:], op)
	}
	return setConst(a, op)
}

// formatLoong writes memory as gcc does: "$r3,8", "$r3,0", "$r3,$r4".
func formatLoong(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(b, a.Offset)
	case Register, FloatRegister:
		return append(append(b, '$'), a.Base.Name...)
	case Memory:
		b = append(append(b, '$'), a.Base.Name...)
		return appendOffset(append(b, ','), a.Offset)
	case SIB:
		b = append(append(b, '$'), a.Base.Name...)
		return append(append(b, ",$"...), a.Index.Name...)
	}
	return b
}
