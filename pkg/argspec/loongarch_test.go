package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersLoong(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"r0", Reg{"r0", "r0", 0, 8, 0}},
		{"zero", Reg{"zero", "r0", 0, 8, 0}},
		{"ra", Reg{"ra", "r1", 8, 8, 0}},
		{"tp", Reg{"tp", "r2", 16, 8, 0}},
		{"sp", Reg{"sp", "r3", 24, 8, 0}},
		{"a0", Reg{"a0", "r4", 32, 8, 0}},
		{"a7", Reg{"a7", "r11", 88, 8, 0}},
		{"t0", Reg{"t0", "r12", 96, 8, 0}},
		{"t8", Reg{"t8", "r20", 160, 8, 0}},
		{"r21", Reg{"r21", "r21", 168, 8, 0}},
		{"fp", Reg{"fp", "r22", 176, 8, 0}},
		{"s9", Reg{"s9", "r22", 176, 8, 0}},
		{"s0", Reg{"s0", "r23", 184, 8, 0}},
		{"s8", Reg{"s8", "r31", 248, 8, 0}},
		{"r31", Reg{"r31", "r31", 248, 8, 0}},
	} {
		if got, ok := loongRegs()[tt.name]; !ok || got != tt.want {
			t.Errorf("loongRegs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"f0", Reg{"f0", "f0", -1, 8, 0}},
		{"fa0", Reg{"fa0", "f0", -1, 8, 0}},
		{"ft0", Reg{"ft0", "f8", -1, 8, 0}},
		{"ft15", Reg{"ft15", "f23", -1, 8, 0}},
		{"fs7", Reg{"fs7", "f31", -1, 8, 0}},
	} {
		if got, ok := loongFloat()[tt.name]; !ok || got != tt.want {
			t.Errorf("loongFloat()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
}

func TestParseLoong(t *testing.T) {
	r := func(name string) Reg { return loongRegs()[name] }
	testParse(t, elf.EM_LOONGARCH, []parseTest{
		{"-4@$r22,-20", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("r22"), Offset: -20}, ""},
		{"8@$r4", Arg{Size: 8, Kind: Register, Base: r("r4")}, ""},
		{"-4@$r12", Arg{Size: 4, Signed: true, Kind: Register, Base: r("r12")}, ""},
		{"8@$a0", Arg{Size: 8, Kind: Register, Base: r("a0")}, ""},
		{"8@$sp", Arg{Size: 8, Kind: Register, Base: r("sp")}, ""},
		{"8@$r3,0", Arg{Size: 8, Kind: Memory, Base: r("r3")}, ""},
		{"8@$r3,24", Arg{Size: 8, Kind: Memory, Base: r("r3"), Offset: 24}, ""},
		{"8@$fp,-24", Arg{Size: 8, Kind: Memory, Base: r("fp"), Offset: -24}, ""},
		{"8@-8($r3)", Arg{Size: 8, Kind: Memory, Base: r("r3"), Offset: -8}, "8@$r3,-8"},
		{"8@($r3)", Arg{Size: 8, Kind: Memory, Base: r("r3")}, "8@$r3,0"},
		{"8@$r4,$r5", Arg{Size: 8, Kind: SIB, Base: r("r4"), Index: r("r5"), Scale: 1}, ""},
		{"8@$r0,100", Arg{Size: 8, Kind: Memory, Base: r("r0"), Offset: 100}, ""},
		{"-4@-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"8@42", Arg{Size: 8, Kind: Const, Offset: 42}, ""},
		{"8f@$f0", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: loongFloat()["f0"]}, ""},
		{"8f@$fa1", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: loongFloat()["fa1"]}, ""},
	})
	testErrors(t, elf.EM_LOONGARCH, []errorTest{
		{"8@$r32", `unknown register "$r32"`},
		{"8@r4", `bad constant "r4"`},
		{"8@$r3,", `bad memory operand "$r3,"`},
		{"8@$r3,x", `bad offset "x"`},
		{"8@$f0,8", `unknown register "$f0"`},
		{"8@$r3,$f0", `unknown register "$f0"`},
		{"8@8(r3)", `unknown register "r3"`},
		{"8@%pc_lo12(sym)($r4)", `bad offset "%pc_lo12"`},
	})
}
