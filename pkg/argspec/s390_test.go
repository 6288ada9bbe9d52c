package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersS390(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"r0", Reg{"r0", "r0", 16, 8, 0}},
		{"r2", Reg{"r2", "r2", 32, 8, 0}},
		{"r15", Reg{"r15", "r15", 136, 8, 0}},
	} {
		if got, ok := s390Regs()[tt.name]; !ok || got != tt.want {
			t.Errorf("s390Regs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
}

func TestParseS390(t *testing.T) {
	r := func(name string) Reg { return s390Regs()[name] }
	testParse(t, elf.EM_S390, []parseTest{
		{"8@%r2", Arg{Size: 8, Kind: Register, Base: r("r2")}, ""},
		{"-4@%r3", Arg{Size: 4, Signed: true, Kind: Register, Base: r("r3")}, ""},
		{"4@160(%r15)", Arg{Size: 4, Kind: Memory, Base: r("r15"), Offset: 160}, ""},
		{"-8@-8(%r11)", Arg{Size: 8, Signed: true, Kind: Memory, Base: r("r11"), Offset: -8}, ""},
		{"-4@8", Arg{Size: 4, Signed: true, Kind: Const, Offset: 8}, ""},
		{"-4@-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"8@0(%r2)", Arg{Size: 8, Kind: Memory, Base: r("r2")}, ""},
		{"8@(%r2)", Arg{Size: 8, Kind: Memory, Base: r("r2")}, "8@0(%r2)"},
		{"8@8(%r1,%r2)", Arg{Size: 8, Kind: SIB, Base: r("r2"), Index: r("r1"), Scale: 1, Offset: 8}, ""},
		{"8@8(%r0,%r2)", Arg{Size: 8, Kind: Memory, Base: r("r2"), Offset: 8}, "8@8(%r2)"},
		{"8@8(%r2,%r0)", Arg{Size: 8, Kind: Memory, Base: r("r2"), Offset: 8}, "8@8(%r2)"},
		{"8@%r0", Arg{Size: 8, Kind: Register, Base: r("r0")}, ""},
		{"8f@%f0", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: Reg{"f0", "f0", -1, 8, 0}}, ""},
		{"4f@%f15", Arg{Size: 4, Float: true, Kind: FloatRegister, Base: Reg{"f15", "f15", -1, 8, 0}}, ""},
	})
	testErrors(t, elf.EM_S390, []errorTest{
		{"8@%r16", `unknown register "%r16"`},
		{"8@r2", `bad constant "r2"`},
		{"8@8(%r0)", `absolute address "8(%r0)" not supported`},
		{"8@8(r2)", `unknown register "r2"`},
		{"8@8(%f0)", `unknown register "%f0"`},
		{"8@8(%r1,%r2,%r3)", `bad memory operand "8(%r1,%r2,%r3)"`},
		{"8@8(%r1", `bad memory operand "8(%r1"`},
		{"8@$5", `bad constant "$5"`},
	})
}
