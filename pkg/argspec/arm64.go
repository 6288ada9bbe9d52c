package argspec

import "sync"

import "strconv"

// aarch64 operands look like "x0", "w3", "[sp, 12]", "[x1, x2]" or a bare
// constant "42", as gcc prints them.

var arm64Tabs = sync.OnceValues(arm64Tables)

func arm64Regs() regTable  { gp, _ := arm64Tabs(); return gp }
func arm64Float() regTable { _, fp := arm64Tabs(); return fp }

// arm64Tables returns the general-purpose registers, at their offsets in
// struct user_pt_regs (regs[31], sp, pc, pstate), and the SIMD&FP
// registers, which it does not hold.
func arm64Tables() (gp, fp regTable) {
	gp, fp = regTable{}, regTable{}
	for n := 0; n <= 30; n++ {
		x := "x" + strconv.Itoa(n)
		gp.add(x, x, 8*n, 8, 0)
		gp.add("w"+strconv.Itoa(n), x, 8*n, 4, 0)
	}
	gp.add("sp", "sp", 248, 8, 0)
	gp.add("wsp", "sp", 248, 4, 0)
	gp.add("xzr", "xzr", -1, 8, 0)
	gp.add("wzr", "xzr", -1, 4, 0)
	for n := 0; n <= 31; n++ {
		v := "v" + strconv.Itoa(n)
		for _, w := range []struct {
			prefix string
			size   int
		}{{"v", 16}, {"q", 16}, {"d", 8}, {"s", 4}, {"h", 2}, {"b", 1}} {
			fp.add(w.prefix+strconv.Itoa(n), v, -1, w.size, 0)
		}
	}
	return gp, fp
}

func parseARM64(a *Arg, op string) error {
	switch c := op[0]; {
	case c == '[':
		return parseBracket(a, op, arm64Regs(), arm64Addr)
	case c == '#':
		return setConst(a, op[1:])
	case isNumStart(c):
		return setConst(a, op)
	}
	return setReg(a, arm64Regs(), arm64Float(), op, op)
}

// arm64Addr allows a 64-bit base, and a 64-bit index other than sp: an
// extended 32-bit index ("w2, sxtw") is not decoded.
func arm64Addr(r Reg, index bool) bool {
	if r.Size != 8 || r.Base == "xzr" {
		return false
	}
	return !index || r.Base != "sp"
}

// formatARM64 writes constants and offsets without '#', as gcc does.
func formatARM64(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(b, a.Offset)
	case Register, FloatRegister:
		return append(b, a.Base.Name...)
	case Memory, SIB:
		return formatBracket(b, a, false)
	}
	return b
}
