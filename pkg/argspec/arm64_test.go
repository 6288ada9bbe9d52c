package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersARM64(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"x0", Reg{"x0", "x0", 0, 8, 0}},
		{"x1", Reg{"x1", "x1", 8, 8, 0}},
		{"x29", Reg{"x29", "x29", 232, 8, 0}},
		{"x30", Reg{"x30", "x30", 240, 8, 0}},
		{"w3", Reg{"w3", "x3", 24, 4, 0}},
		{"w30", Reg{"w30", "x30", 240, 4, 0}},
		{"sp", Reg{"sp", "sp", 248, 8, 0}},
		{"wsp", Reg{"wsp", "sp", 248, 4, 0}},
		{"xzr", Reg{"xzr", "xzr", -1, 8, 0}},
	} {
		if got, ok := arm64Regs()[tt.name]; !ok || got != tt.want {
			t.Errorf("arm64Regs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"v0", Reg{"v0", "v0", -1, 16, 0}},
		{"q1", Reg{"q1", "v1", -1, 16, 0}},
		{"d2", Reg{"d2", "v2", -1, 8, 0}},
		{"s31", Reg{"s31", "v31", -1, 4, 0}},
		{"h4", Reg{"h4", "v4", -1, 2, 0}},
		{"b5", Reg{"b5", "v5", -1, 1, 0}},
	} {
		if got, ok := arm64Float()[tt.name]; !ok || got != tt.want {
			t.Errorf("arm64Float()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
}

func TestParseARM64(t *testing.T) {
	r := func(name string) Reg { return arm64Regs()[name] }
	testParse(t, elf.EM_AARCH64, []parseTest{
		// From gcc-built aarch64 binaries (libbpf and bpftrace test these too).
		{"-4@[sp, 12]", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("sp"), Offset: 12}, ""},
		{"8@x0", Arg{Size: 8, Kind: Register, Base: r("x0")}, ""},
		{"-8@[x29, -16]", Arg{Size: 8, Signed: true, Kind: Memory, Base: r("x29"), Offset: -16}, ""},
		{"-4@[x29, 28]", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("x29"), Offset: 28}, ""},
		{"8@[sp, 96]", Arg{Size: 8, Kind: Memory, Base: r("sp"), Offset: 96}, ""},
		{"-4@w0", Arg{Size: 4, Signed: true, Kind: Register, Base: r("w0")}, ""},
		{"8@x19", Arg{Size: 8, Kind: Register, Base: r("x19")}, ""},
		{"8@x30", Arg{Size: 8, Kind: Register, Base: r("x30")}, ""},
		{"8@sp", Arg{Size: 8, Kind: Register, Base: r("sp")}, ""},
		{"4@wsp", Arg{Size: 4, Kind: Register, Base: r("wsp")}, ""},
		{"8@xzr", Arg{Size: 8, Kind: Register, Base: r("xzr")}, ""},
		{"8@X0", Arg{Size: 8, Kind: Register, Base: r("x0")}, "8@x0"},

		{"8@[x0]", Arg{Size: 8, Kind: Memory, Base: r("x0")}, ""},
		{"8@[x0, 0]", Arg{Size: 8, Kind: Memory, Base: r("x0")}, "8@[x0]"},
		{"8@[x0, #8]", Arg{Size: 8, Kind: Memory, Base: r("x0"), Offset: 8}, "8@[x0, 8]"},
		{"8@[x0,#-8]", Arg{Size: 8, Kind: Memory, Base: r("x0"), Offset: -8}, "8@[x0, -8]"},
		{"8@[x0,  0x20]", Arg{Size: 8, Kind: Memory, Base: r("x0"), Offset: 32}, "8@[x0, 32]"},
		{"8@[sp]", Arg{Size: 8, Kind: Memory, Base: r("sp")}, ""},
		{"8@[x1, x2]", Arg{Size: 8, Kind: SIB, Base: r("x1"), Index: r("x2"), Scale: 1}, ""},
		{"8@[x1, x2, lsl 3]", Arg{Size: 8, Kind: SIB, Base: r("x1"), Index: r("x2"), Scale: 8}, ""},
		{"4@[x1, x2, lsl #2]", Arg{Size: 4, Kind: SIB, Base: r("x1"), Index: r("x2"), Scale: 4}, "4@[x1, x2, lsl 2]"},
		{"8@[x1, x2, lsl 0]", Arg{Size: 8, Kind: SIB, Base: r("x1"), Index: r("x2"), Scale: 1}, "8@[x1, x2]"},
		{"8@[sp, x2]", Arg{Size: 8, Kind: SIB, Base: r("sp"), Index: r("x2"), Scale: 1}, ""},

		{"8@42", Arg{Size: 8, Kind: Const, Offset: 42}, ""},
		{"-4@-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"-4@#2", Arg{Size: 4, Signed: true, Kind: Const, Offset: 2}, "-4@2"},
		{"8@0x10", Arg{Size: 8, Kind: Const, Offset: 16}, "8@16"},
		{"8@18446744073709551615", Arg{Size: 8, Kind: Const, Offset: -1}, "8@-1"},
		{"8@-9223372036854775808", Arg{Size: 8, Kind: Const, Offset: -1 << 63}, ""},

		{"8f@d0", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: arm64Float()["d0"]}, ""},
		{"4f@s1", Arg{Size: 4, Float: true, Kind: FloatRegister, Base: arm64Float()["s1"]}, ""},
		{"16f@q2", Arg{Size: 16, Float: true, Kind: FloatRegister, Base: arm64Float()["q2"]}, ""},
		{"16@v31", Arg{Size: 16, Kind: FloatRegister, Base: arm64Float()["v31"]}, ""},
	})
	testErrors(t, elf.EM_AARCH64, []errorTest{
		{"8@x31", `unknown register "x31"`},
		{"8@r0", `unknown register "r0"`},
		{"8@[x0", `bad memory operand "[x0"`},
		{"8@[x0]!", `bad memory operand "[x0]!"`},
		{"8@[x0, 8]!", `bad memory operand "[x0, 8]!"`},
		{"8@[w0]", `bad base register "w0"`},
		{"8@[xzr]", `bad base register "xzr"`},
		{"8@[]", `unknown register ""`},
		{"8@[x0, #]", `bad memory operand "[x0, #]"`},
		{"8@[x0, 8, 8]", `bad memory operand "[x0, 8, 8]"`},
		{"-8@[x5, #:lo12:.LANCHOR0]", `offset ":lo12:.LANCHOR0" is a relocation of a link-time address, which the note does not resolve`},
		{"8@[x0, w1, sxtw]", `index register "w1" not supported`},
		{"8@[x0, sp]", `index register "sp" not supported`},
		{"8@[x0, x1, lsl 4]", `shift "lsl 4" not supported`},
		{"8@[x0, x1, uxtw]", `shift "uxtw" not supported`},
		{"8@[x0, x1, x2, x3]", `bad memory operand "[x0, x1, x2, x3]"`},
		{"8@[x0, 99999999999999999999]", `offset "99999999999999999999" out of range`},
		{"8@#", `bad constant ""`},
		{"8@1f", `bad constant "1f"`},
		{"8@sym", `unknown register "sym"`},
		{"8@:lo12:sym", `unknown register ":lo12:sym"`},
	})
}
