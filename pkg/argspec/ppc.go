package argspec

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Power operands come from the template "%I[id]%[id]" in sys/sdt.h: gcc
// writes a general register as its bare number ("3"), a constant with an
// 'i' before it ("i5"), memory as "-8(31)" and an indexed address as
// "9,10". With -mregnames registers read "%r3" instead, and other
// assemblers write "r3"; all three are accepted.
//
// A bare number is therefore a register, never a constant: the "nZr"
// constraint keeps floating-point values out of the FPRs, which gcc would
// also write as bare numbers.

var (
	ppc64Regs = sync.OnceValue(func() *[32]Reg { return ppcTable(8) })
	ppcRegs   = sync.OnceValue(func() *[32]Reg { return ppcTable(4) })
)

// ppcTable returns r0..r31 at their offsets in struct pt_regs (gpr[32]
// first), for registers of size bytes.
func ppcTable(size int) *[32]Reg {
	var t [32]Reg
	for n := range t {
		r := "r" + strconv.Itoa(n)
		t[n] = Reg{Name: r, Base: r, Offset: size * n, Size: size}
	}
	return &t
}

// ppcReg decodes "3", "r3" or "%r3".
func ppcReg(t *[32]Reg, s string) (Reg, error) {
	n := strings.TrimPrefix(s, "%")
	if n != "" && (n[0] == 'r' || n[0] == 'R') {
		n = n[1:]
	} else if n != s {
		return Reg{}, unknownReg(s)
	}
	if len(n) == 0 || len(n) > 2 || n[0] < '0' || n[0] > '9' || len(n) == 2 && (n[0] == '0' || n[1] < '0' || n[1] > '9') {
		return Reg{}, unknownReg(s)
	}
	i := int(n[0] - '0')
	if len(n) == 2 {
		i = 10*i + int(n[1]-'0')
	}
	if i >= len(t) {
		return Reg{}, unknownReg(s)
	}
	return t[i], nil
}

func parsePPC(a *Arg, op string, t *[32]Reg) error {
	if op[0] == 'i' {
		return setConst(a, op[1:])
	}
	if open := strings.IndexByte(op, '('); open >= 0 {
		return parseOffReg(a, op, open, func(s string) (Reg, error) {
			r, err := ppcReg(t, s)
			if err == nil && r.Name == "r0" {
				// r0 as a base reads as zero: an absolute address.
				return r, fmt.Errorf("absolute address %q not supported", op)
			}
			return r, err
		})
	}
	if ra, rb, ok := strings.Cut(op, ","); ok {
		base, err := ppcReg(t, cutSpace(ra))
		if err != nil {
			return err
		}
		index, err := ppcReg(t, cutSpace(rb))
		if err != nil {
			return err
		}
		if base.Name == "r0" {
			// (RA|0)+RB: r0 in the first place reads as zero.
			a.Kind, a.Base = Memory, index
			return nil
		}
		a.Kind, a.Base, a.Index, a.Scale = SIB, base, index, 1
		return nil
	}
	r, err := ppcReg(t, op)
	if err != nil {
		return err
	}
	a.Kind, a.Base = Register, r
	return nil
}

// formatPPC writes registers as bare numbers and constants with 'i', as
// gcc does without -mregnames: "3", "-8(31)", "9,10", "i5".
func formatPPC(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(append(b, 'i'), a.Offset)
	case Register:
		return append(b, a.Base.Name[1:]...)
	case Memory:
		if a.Base.Name == "r0" {
			// Only "0,0" addresses through r0: "0(0)" would be address 0.
			return append(b, "0,0"...)
		}
		b = append(appendOffset(b, a.Offset), '(')
		return append(append(b, a.Base.Name[1:]...), ')')
	case SIB:
		b = append(append(b, a.Base.Name[1:]...), ',')
		return append(b, a.Index.Name[1:]...)
	}
	return b
}
