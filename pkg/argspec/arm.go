package argspec

import "sync"

import "strconv"

// 32-bit Arm operands look like "r0", "fp", "[r3, #4]" or "#1". sys/sdt.h
// uses the "g" constraint there, so gcc picks core registers, memory or
// immediates, never VFP registers.

var armRegs = sync.OnceValue(armTable)

// armTable returns the core registers at their offsets in struct pt_regs
// (uregs[18]), under both their numbers and their special names.
func armTable() regTable {
	t := regTable{}
	for n := 0; n <= 15; n++ {
		r := "r" + strconv.Itoa(n)
		t.add(r, r, 4*n, 4, 0)
	}
	for _, alias := range []struct {
		name string
		n    int
	}{{"sl", 10}, {"fp", 11}, {"ip", 12}, {"sp", 13}, {"lr", 14}, {"pc", 15}} {
		r := "r" + strconv.Itoa(alias.n)
		t.add(alias.name, r, 4*alias.n, 4, 0)
	}
	return t
}

func parseARM(a *Arg, op string) error {
	switch c := op[0]; {
	case c == '[':
		return parseBracket(a, op, armRegs(), armAddr)
	case c == '#':
		return setConst(a, op[1:])
	case isNumStart(c):
		return setConst(a, op)
	}
	return setReg(a, armRegs(), nil, op, op)
}

// armAddr refuses pc as an index, which the architecture does not allow.
func armAddr(r Reg, index bool) bool { return !index || r.Base != "r15" }

// formatARM writes '#' before constants and offsets, as gcc does.
func formatARM(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(append(b, '#'), a.Offset)
	case Register:
		return append(b, a.Base.Name...)
	case Memory, SIB:
		return formatBracket(b, a, true)
	}
	return b
}
