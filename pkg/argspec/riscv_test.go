package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersRISCV(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"zero", Reg{"zero", "zero", -1, 8, 0}},
		{"x0", Reg{"x0", "zero", -1, 8, 0}},
		{"ra", Reg{"ra", "ra", 8, 8, 0}},
		{"sp", Reg{"sp", "sp", 16, 8, 0}},
		{"gp", Reg{"gp", "gp", 24, 8, 0}},
		{"tp", Reg{"tp", "tp", 32, 8, 0}},
		{"t0", Reg{"t0", "t0", 40, 8, 0}},
		{"t1", Reg{"t1", "t1", 48, 8, 0}},
		{"t2", Reg{"t2", "t2", 56, 8, 0}},
		{"s0", Reg{"s0", "s0", 64, 8, 0}},
		{"fp", Reg{"fp", "s0", 64, 8, 0}},
		{"s1", Reg{"s1", "s1", 72, 8, 0}},
		{"a0", Reg{"a0", "a0", 80, 8, 0}},
		{"a7", Reg{"a7", "a7", 136, 8, 0}},
		{"s2", Reg{"s2", "s2", 144, 8, 0}},
		{"s11", Reg{"s11", "s11", 216, 8, 0}},
		{"t3", Reg{"t3", "t3", 224, 8, 0}},
		{"t6", Reg{"t6", "t6", 248, 8, 0}},
		{"x10", Reg{"x10", "a0", 80, 8, 0}},
		{"x31", Reg{"x31", "t6", 248, 8, 0}},
	} {
		if got, ok := riscvRegs()[tt.name]; !ok || got != tt.want {
			t.Errorf("riscvRegs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"ft0", Reg{"ft0", "ft0", -1, 8, 0}},
		{"f8", Reg{"f8", "fs0", -1, 8, 0}},
		{"fa0", Reg{"fa0", "fa0", -1, 8, 0}},
		{"f17", Reg{"f17", "fa7", -1, 8, 0}},
		{"f18", Reg{"f18", "fs2", -1, 8, 0}},
		{"fs11", Reg{"fs11", "fs11", -1, 8, 0}},
		{"f31", Reg{"f31", "ft11", -1, 8, 0}},
	} {
		if got, ok := riscvFloat()[tt.name]; !ok || got != tt.want {
			t.Errorf("riscvFloat()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
}

func TestParseRISCV(t *testing.T) {
	r := func(name string) Reg { return riscvRegs()[name] }
	testParse(t, elf.EM_RISCV, []parseTest{
		{"-4@-20(s0)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("s0"), Offset: -20}, ""},
		{"8@a0", Arg{Size: 8, Kind: Register, Base: r("a0")}, ""},
		{"-4@5", Arg{Size: 4, Signed: true, Kind: Const, Offset: 5}, ""},
		{"-4@a5", Arg{Size: 4, Signed: true, Kind: Register, Base: r("a5")}, ""},
		{"8@0(sp)", Arg{Size: 8, Kind: Memory, Base: r("sp")}, ""},
		{"8@(sp)", Arg{Size: 8, Kind: Memory, Base: r("sp")}, "8@0(sp)"},
		{"8@24(sp)", Arg{Size: 8, Kind: Memory, Base: r("sp"), Offset: 24}, ""},
		{"8@-8(fp)", Arg{Size: 8, Kind: Memory, Base: r("fp"), Offset: -8}, ""},
		{"8@x10", Arg{Size: 8, Kind: Register, Base: r("x10")}, ""},
		{"8@16(x8)", Arg{Size: 8, Kind: Memory, Base: r("x8"), Offset: 16}, ""},
		{"8@zero", Arg{Size: 8, Kind: Register, Base: r("zero")}, ""},
		{"4@100(zero)", Arg{Size: 4, Kind: Memory, Base: r("zero"), Offset: 100}, ""},
		{"8@ra", Arg{Size: 8, Kind: Register, Base: r("ra")}, ""},
		{"8@gp", Arg{Size: 8, Kind: Register, Base: r("gp")}, ""},
		{"8@tp", Arg{Size: 8, Kind: Register, Base: r("tp")}, ""},
		{"8@t6", Arg{Size: 8, Kind: Register, Base: r("t6")}, ""},
		{"8@s11", Arg{Size: 8, Kind: Register, Base: r("s11")}, ""},
		{"8@-1", Arg{Size: 8, Kind: Const, Offset: -1}, ""},
		{"8f@fa0", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: riscvFloat()["fa0"]}, ""},
		{"4f@f10", Arg{Size: 4, Float: true, Kind: FloatRegister, Base: riscvFloat()["f10"]}, ""},
	})
	testErrors(t, elf.EM_RISCV, []errorTest{
		{"8@a8", `unknown register "a8"`},
		{"8@x32", `unknown register "x32"`},
		{"8@%lo(sym)(a5)", `bad offset "%lo"`},
		{"8@8(fa0)", `unknown register "fa0"`},
		{"8@8(a0", `bad memory operand "8(a0"`},
		{"8@#5", `unknown register "#5"`},
		{"8@99999999999999999999", `constant "99999999999999999999" out of range`},
	})
}
