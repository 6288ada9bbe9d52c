package argspec

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// s390x operands look like "%r2", "160(%r15)", "8(%r1,%r2)" or a bare
// constant "-1", as gcc prints them. In "D(X,B)" the first register is
// the index and the second the base; %r0 there stands for no register.

var s390Tabs = sync.OnceValues(s390Tables)

func s390Regs() regTable  { gp, _ := s390Tabs(); return gp }
func s390Float() regTable { _, fp := s390Tabs(); return fp }

// s390Tables returns the general registers at their offsets in struct
// user_pt_regs (psw mask, psw addr, gprs[16]), and the floating-point
// registers.
func s390Tables() (gp, fp regTable) {
	gp, fp = regTable{}, regTable{}
	for n := 0; n <= 15; n++ {
		r := "r" + strconv.Itoa(n)
		gp.add(r, r, 16+8*n, 8, 0)
	}
	fp.addSeq("f", 0, 15, 8, nil)
	return gp, fp
}

func s390Reg(s string) (Reg, error) {
	if s != "" && s[0] == '%' {
		if r, ok := s390Regs().lookup(s[1:]); ok {
			return r, nil
		}
	}
	return Reg{}, unknownReg(s)
}

func parseS390(a *Arg, op string) error {
	switch {
	case op[0] == '%':
		return setReg(a, s390Regs(), s390Float(), op[1:], op)
	case strings.IndexByte(op, '(') < 0:
		return setConst(a, op)
	}
	open := strings.IndexByte(op, '(')
	if op[len(op)-1] != ')' {
		return fmt.Errorf("bad memory operand %q", op)
	}
	off, err := parseOffset(op[:open])
	if err != nil {
		return err
	}
	var parts [2]string
	n, ok := splitList(op[open+1:len(op)-1], parts[:])
	if !ok {
		return fmt.Errorf("bad memory operand %q", op)
	}
	var regs [2]Reg
	used := 0
	for _, p := range parts[:n] {
		r, err := s390Reg(p)
		if err != nil {
			return err
		}
		if r.Name != "r0" {
			regs[used] = r
			used++
		}
	}
	switch used {
	case 0:
		return fmt.Errorf("absolute address %q not supported", op)
	case 1:
		a.Kind, a.Base = Memory, regs[0]
	default:
		a.Kind, a.Index, a.Base, a.Scale = SIB, regs[0], regs[1], 1
	}
	a.Offset = off
	return nil
}

// formatS390 always writes the displacement, "0(%r2)", and writes an
// index before the base: "8(%r1,%r2)".
func formatS390(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(b, a.Offset)
	case Register, FloatRegister:
		return append(append(b, '%'), a.Base.Name...)
	case Memory:
		b = append(appendOffset(b, a.Offset), "(%"...)
		return append(append(b, a.Base.Name...), ')')
	case SIB:
		b = append(appendOffset(b, a.Offset), "(%"...)
		b = append(append(b, a.Index.Name...), ",%"...)
		return append(append(b, a.Base.Name...), ')')
	}
	return b
}
