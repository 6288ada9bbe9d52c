package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersARM(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"r0", Reg{"r0", "r0", 0, 4, 0}},
		{"r7", Reg{"r7", "r7", 28, 4, 0}},
		{"r15", Reg{"r15", "r15", 60, 4, 0}},
		{"sl", Reg{"sl", "r10", 40, 4, 0}},
		{"fp", Reg{"fp", "r11", 44, 4, 0}},
		{"ip", Reg{"ip", "r12", 48, 4, 0}},
		{"sp", Reg{"sp", "r13", 52, 4, 0}},
		{"lr", Reg{"lr", "r14", 56, 4, 0}},
		{"pc", Reg{"pc", "r15", 60, 4, 0}},
	} {
		if got, ok := armRegs()[tt.name]; !ok || got != tt.want {
			t.Errorf("armRegs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
}

func TestParseARM(t *testing.T) {
	r := func(name string) Reg { return armRegs()[name] }
	testParse(t, elf.EM_ARM, []parseTest{
		{"-4@[fp, #-8]", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("fp"), Offset: -8}, ""},
		{"4@r0", Arg{Size: 4, Kind: Register, Base: r("r0")}, ""},
		{"-4@#5", Arg{Size: 4, Signed: true, Kind: Const, Offset: 5}, ""},
		{"4@[r3, #8]", Arg{Size: 4, Kind: Memory, Base: r("r3"), Offset: 8}, ""},
		{"4@[sp, #12]", Arg{Size: 4, Kind: Memory, Base: r("sp"), Offset: 12}, ""},
		{"4@[r1]", Arg{Size: 4, Kind: Memory, Base: r("r1")}, ""},
		{"4@[r1, #0]", Arg{Size: 4, Kind: Memory, Base: r("r1")}, "4@[r1]"},
		{"4@[r1, 4]", Arg{Size: 4, Kind: Memory, Base: r("r1"), Offset: 4}, "4@[r1, #4]"},
		{"4@[r1, r2]", Arg{Size: 4, Kind: SIB, Base: r("r1"), Index: r("r2"), Scale: 1}, ""},
		{"4@[r1, r2, lsl #2]", Arg{Size: 4, Kind: SIB, Base: r("r1"), Index: r("r2"), Scale: 4}, ""},
		{"4@fp", Arg{Size: 4, Kind: Register, Base: r("fp")}, ""},
		{"4@ip", Arg{Size: 4, Kind: Register, Base: r("ip")}, ""},
		{"4@sp", Arg{Size: 4, Kind: Register, Base: r("sp")}, ""},
		{"4@lr", Arg{Size: 4, Kind: Register, Base: r("lr")}, ""},
		{"4@pc", Arg{Size: 4, Kind: Register, Base: r("pc")}, ""},
		{"4@r12", Arg{Size: 4, Kind: Register, Base: r("r12")}, ""},
		{"8@r4", Arg{Size: 8, Kind: Register, Base: r("r4")}, ""},
		{"4@#-1", Arg{Size: 4, Kind: Const, Offset: -1}, ""},
		{"4@7", Arg{Size: 4, Kind: Const, Offset: 7}, "4@#7"},
		{"4@#0x100", Arg{Size: 4, Kind: Const, Offset: 256}, "4@#256"},
	})
	testErrors(t, elf.EM_ARM, []errorTest{
		{"4@r16", `unknown register "r16"`},
		{"4@x0", `unknown register "x0"`},
		{"8f@d0", `unknown register "d0"`},
		{"4@[r1, pc]", `index register "pc" not supported`},
		{"4@[r1, -r2]", `bad offset "-r2"`},
		{"4@[r1, #4]!", `bad memory operand "[r1, #4]!"`},
		{"4@[r1], #4", `bad memory operand "[r1], #4"`},
		{"4@#", `bad constant ""`},
	})
}
