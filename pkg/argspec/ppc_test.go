package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersPPC(t *testing.T) {
	for _, tt := range []struct {
		t    *[32]Reg
		n    int
		want Reg
	}{
		{ppc64Regs(), 0, Reg{"r0", "r0", 0, 8, 0}},
		{ppc64Regs(), 3, Reg{"r3", "r3", 24, 8, 0}},
		{ppc64Regs(), 31, Reg{"r31", "r31", 248, 8, 0}},
		{ppcRegs(), 3, Reg{"r3", "r3", 12, 4, 0}},
		{ppcRegs(), 31, Reg{"r31", "r31", 124, 4, 0}},
	} {
		if got := tt.t[tt.n]; got != tt.want {
			t.Errorf("r%d = %+v, want %+v", tt.n, got, tt.want)
		}
	}
}

func TestParsePPC64(t *testing.T) {
	r := func(n int) Reg { return ppc64Regs()[n] }
	testParse(t, elf.EM_PPC64, []parseTest{
		{"8@3", Arg{Size: 8, Kind: Register, Base: r(3)}, ""},
		{"-4@9", Arg{Size: 4, Signed: true, Kind: Register, Base: r(9)}, ""},
		{"-8@-8(31)", Arg{Size: 8, Signed: true, Kind: Memory, Base: r(31), Offset: -8}, ""},
		{"-4@-36(31)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r(31), Offset: -36}, ""},
		{"4@i5", Arg{Size: 4, Kind: Const, Offset: 5}, ""},
		{"-4@i-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"8@i0", Arg{Size: 8, Kind: Const}, ""},
		{"8@0(9)", Arg{Size: 8, Kind: Memory, Base: r(9)}, ""},
		{"8@112(1)", Arg{Size: 8, Kind: Memory, Base: r(1), Offset: 112}, ""},
		{"8@9,10", Arg{Size: 8, Kind: SIB, Base: r(9), Index: r(10), Scale: 1}, ""},
		{"8@0,10", Arg{Size: 8, Kind: Memory, Base: r(10)}, "8@0(10)"},
		{"8@0,0", Arg{Size: 8, Kind: Memory, Base: r(0)}, ""},
		{"8@9,0", Arg{Size: 8, Kind: SIB, Base: r(9), Index: r(0), Scale: 1}, ""},
		{"8@%r3", Arg{Size: 8, Kind: Register, Base: r(3)}, "8@3"},
		{"8@r3", Arg{Size: 8, Kind: Register, Base: r(3)}, "8@3"},
		{"8@-8(%r31)", Arg{Size: 8, Kind: Memory, Base: r(31), Offset: -8}, "8@-8(31)"},
		{"8@-8(r31)", Arg{Size: 8, Kind: Memory, Base: r(31), Offset: -8}, "8@-8(31)"},
		{"8@%r9,%r10", Arg{Size: 8, Kind: SIB, Base: r(9), Index: r(10), Scale: 1}, "8@9,10"},
		{"8@0", Arg{Size: 8, Kind: Register, Base: r(0)}, ""},
		{"8f@4", Arg{Size: 8, Float: true, Kind: Register, Base: r(4)}, ""},
	})
	testErrors(t, elf.EM_PPC64, []errorTest{
		{"8@32", `unknown register "32"`},
		{"8@03", `unknown register "03"`},
		{"8@%3", `unknown register "%3"`},
		{"8@f1", `unknown register "f1"`},
		{"8@-8(0)", `absolute address "-8(0)" not supported`},
		{"8@.LC0@toc@l(2)", `relocation operator in ".LC0@toc@l(2)" not supported`},
		{"8@i", `bad constant ""`},
		{"8@ix", `bad constant "x"`},
		{"8@9,", `unknown register ""`},
		{"8@-8(31", `bad memory operand "-8(31"`},
	})
}

func TestParsePPC(t *testing.T) {
	r := func(n int) Reg { return ppcRegs()[n] }
	testParse(t, elf.EM_PPC, []parseTest{
		{"4@3", Arg{Size: 4, Kind: Register, Base: r(3)}, ""},
		{"-4@8(31)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r(31), Offset: 8}, ""},
		{"-4@i-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
	})
}
