package argspec

import (
	"debug/elf"
	"testing"
)

func TestRegistersAMD64(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"r15", Reg{"r15", "r15", 0, 8, 0}},
		{"r14", Reg{"r14", "r14", 8, 8, 0}},
		{"r13", Reg{"r13", "r13", 16, 8, 0}},
		{"r12", Reg{"r12", "r12", 24, 8, 0}},
		{"rbp", Reg{"rbp", "rbp", 32, 8, 0}},
		{"rbx", Reg{"rbx", "rbx", 40, 8, 0}},
		{"r11", Reg{"r11", "r11", 48, 8, 0}},
		{"r10", Reg{"r10", "r10", 56, 8, 0}},
		{"r9", Reg{"r9", "r9", 64, 8, 0}},
		{"r8", Reg{"r8", "r8", 72, 8, 0}},
		{"rax", Reg{"rax", "rax", 80, 8, 0}},
		{"rcx", Reg{"rcx", "rcx", 88, 8, 0}},
		{"rdx", Reg{"rdx", "rdx", 96, 8, 0}},
		{"rsi", Reg{"rsi", "rsi", 104, 8, 0}},
		{"rdi", Reg{"rdi", "rdi", 112, 8, 0}},
		{"rip", Reg{"rip", "rip", 128, 8, 0}},
		{"rsp", Reg{"rsp", "rsp", 152, 8, 0}},
		{"eax", Reg{"eax", "rax", 80, 4, 0}},
		{"ax", Reg{"ax", "rax", 80, 2, 0}},
		{"al", Reg{"al", "rax", 80, 1, 0}},
		{"ah", Reg{"ah", "rax", 80, 1, 8}},
		{"bh", Reg{"bh", "rbx", 40, 1, 8}},
		{"ch", Reg{"ch", "rcx", 88, 1, 8}},
		{"dh", Reg{"dh", "rdx", 96, 1, 8}},
		{"sil", Reg{"sil", "rsi", 104, 1, 0}},
		{"dil", Reg{"dil", "rdi", 112, 1, 0}},
		{"bpl", Reg{"bpl", "rbp", 32, 1, 0}},
		{"spl", Reg{"spl", "rsp", 152, 1, 0}},
		{"esp", Reg{"esp", "rsp", 152, 4, 0}},
		{"r8d", Reg{"r8d", "r8", 72, 4, 0}},
		{"r8w", Reg{"r8w", "r8", 72, 2, 0}},
		{"r8b", Reg{"r8b", "r8", 72, 1, 0}},
		{"r15d", Reg{"r15d", "r15", 0, 4, 0}},
		{"r11b", Reg{"r11b", "r11", 48, 1, 0}},
	} {
		if got, ok := amd64Regs()[tt.name]; !ok || got != tt.want {
			t.Errorf("amd64Regs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	if n := len(amd64Regs()); n != 16*4+4+1 {
		t.Errorf("len(amd64Regs()) = %d, want %d", n, 16*4+4+1)
	}
}

func TestRegisters386(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Reg
	}{
		{"ebx", Reg{"ebx", "ebx", 0, 4, 0}},
		{"ecx", Reg{"ecx", "ecx", 4, 4, 0}},
		{"edx", Reg{"edx", "edx", 8, 4, 0}},
		{"esi", Reg{"esi", "esi", 12, 4, 0}},
		{"edi", Reg{"edi", "edi", 16, 4, 0}},
		{"ebp", Reg{"ebp", "ebp", 20, 4, 0}},
		{"eax", Reg{"eax", "eax", 24, 4, 0}},
		{"esp", Reg{"esp", "esp", 60, 4, 0}},
		{"ax", Reg{"ax", "eax", 24, 2, 0}},
		{"al", Reg{"al", "eax", 24, 1, 0}},
		{"ah", Reg{"ah", "eax", 24, 1, 8}},
		{"dh", Reg{"dh", "edx", 8, 1, 8}},
		{"si", Reg{"si", "esi", 12, 2, 0}},
		{"bp", Reg{"bp", "ebp", 20, 2, 0}},
	} {
		if got, ok := i386Regs()[tt.name]; !ok || got != tt.want {
			t.Errorf("i386Regs()[%q] = %+v, %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	for _, name := range []string{"rax", "sil", "r8", "r8d", "rip"} {
		if r, ok := i386Regs()[name]; ok {
			t.Errorf("i386Regs()[%q] = %+v, want none", name, r)
		}
	}
}

func TestParseAMD64(t *testing.T) {
	r := func(name string) Reg { return amd64Regs()[name] }
	testParse(t, elf.EM_X86_64, []parseTest{
		// Non-PIC code's globals, indexed or off a base register.
		{"8@table(,%rax,8)", Arg{Size: 8, Kind: SIB, Index: r("rax"), Scale: 8, Symbol: "table"}, ""},
		{"-4@8+table(%rbx,%rax,4)", Arg{Size: 4, Signed: true, Kind: SIB, Base: r("rbx"), Index: r("rax"), Scale: 4, Symbol: "table", Offset: 8}, "-4@table+8(%rbx,%rax,4)"},
		{"8@sym(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax"), Symbol: "sym"}, ""},
		{"8@sym-16(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax"), Symbol: "sym", Offset: -16}, ""},
		// x86-64 large-model PIC data: the same operator.
		{"8@g@GOTOFF(%r15)", Arg{Size: 8, Kind: Memory, Base: r("r15"), Symbol: "g", Reloc: RelocGOTOFF}, ""},
		// Registers of every width.
		{"8@%rax", Arg{Size: 8, Kind: Register, Base: r("rax")}, ""},
		{"-4@%eax", Arg{Size: 4, Signed: true, Kind: Register, Base: r("eax")}, ""},
		{"2@%ax", Arg{Size: 2, Kind: Register, Base: r("ax")}, ""},
		{"1@%al", Arg{Size: 1, Kind: Register, Base: r("al")}, ""},
		{"1@%ah", Arg{Size: 1, Kind: Register, Base: r("ah")}, ""},
		{"1@%sil", Arg{Size: 1, Kind: Register, Base: r("sil")}, ""},
		{"1@%dil", Arg{Size: 1, Kind: Register, Base: r("dil")}, ""},
		{"1@%bpl", Arg{Size: 1, Kind: Register, Base: r("bpl")}, ""},
		{"1@%spl", Arg{Size: 1, Kind: Register, Base: r("spl")}, ""},
		{"8@%r8", Arg{Size: 8, Kind: Register, Base: r("r8")}, ""},
		{"-4@%r8d", Arg{Size: 4, Signed: true, Kind: Register, Base: r("r8d")}, ""},
		{"2@%r8w", Arg{Size: 2, Kind: Register, Base: r("r8w")}, ""},
		{"1@%r8b", Arg{Size: 1, Kind: Register, Base: r("r8b")}, ""},
		{"-4@%r15d", Arg{Size: 4, Signed: true, Kind: Register, Base: r("r15d")}, ""},
		{"8@%rip", Arg{Size: 8, Kind: Register, Base: r("rip")}, ""},
		{"8@%RAX", Arg{Size: 8, Kind: Register, Base: r("rax")}, "8@%rax"},
		{"%rdi", Arg{Kind: Register, Base: r("rdi")}, ""},
		{"8f@%xmm0", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: Reg{"xmm0", "xmm0", -1, 16, 0}}, ""},
		{"4f@%xmm15", Arg{Size: 4, Float: true, Kind: FloatRegister, Base: Reg{"xmm15", "xmm15", -1, 16, 0}}, ""},
		{"8f@%ymm1", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: Reg{"ymm1", "ymm1", -1, 32, 0}}, ""},

		// Memory.
		{"-4@-4(%rbp)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("rbp"), Offset: -4}, ""},
		{"4@(%rdi)", Arg{Size: 4, Kind: Memory, Base: r("rdi")}, ""},
		{"8@0(%r13)", Arg{Size: 8, Kind: Memory, Base: r("r13")}, "8@(%r13)"},
		{"-4@112(%rsp)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("rsp"), Offset: 112}, ""},
		{"8@0x10(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax"), Offset: 16}, "8@16(%rax)"},
		{"8@-0x10(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax"), Offset: -16}, "8@-16(%rax)"},
		{"8@-0(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax")}, "8@(%rax)"},
		{"4@8(%eax)", Arg{Size: 4, Kind: Memory, Base: r("eax"), Offset: 8}, ""},
		{"8@( %rax )", Arg{Size: 8, Kind: Memory, Base: r("rax")}, "8@(%rax)"},
		{"8@-9223372036854775808(%rax)", Arg{Size: 8, Kind: Memory, Base: r("rax"), Offset: -1 << 63}, ""},
		{"8@16(%rip)", Arg{Size: 8, Kind: Memory, Base: r("rip"), Offset: 16}, ""},
		{"8@(%rip)", Arg{Size: 8, Kind: Memory, Base: r("rip")}, ""},

		// Base, index, scale.
		{"8@16(%rax,%rbx,4)", Arg{Size: 8, Kind: SIB, Base: r("rax"), Index: r("rbx"), Scale: 4, Offset: 16}, ""},
		{"8@(%rax,%rbx)", Arg{Size: 8, Kind: SIB, Base: r("rax"), Index: r("rbx"), Scale: 1}, ""},
		{"8@(%rax,%rbx,1)", Arg{Size: 8, Kind: SIB, Base: r("rax"), Index: r("rbx"), Scale: 1}, "8@(%rax,%rbx)"},
		{"8@-8(%rbp,%r12,8)", Arg{Size: 8, Kind: SIB, Base: r("rbp"), Index: r("r12"), Scale: 8, Offset: -8}, ""},
		{"8@(,%rax,8)", Arg{Size: 8, Kind: SIB, Index: r("rax"), Scale: 8}, ""},
		{"8@24(,%rax,8)", Arg{Size: 8, Kind: SIB, Index: r("rax"), Scale: 8, Offset: 24}, ""},
		{"8@(,%rax,1)", Arg{Size: 8, Kind: SIB, Index: r("rax"), Scale: 1}, ""},
		{"8@(,%rax)", Arg{Size: 8, Kind: SIB, Index: r("rax"), Scale: 1}, "8@(,%rax,1)"},
		{"8@(%rax, %rbx, 2)", Arg{Size: 8, Kind: SIB, Base: r("rax"), Index: r("rbx"), Scale: 2}, "8@(%rax,%rbx,2)"},
		{"4@(%eax,%ecx,4)", Arg{Size: 4, Kind: SIB, Base: r("eax"), Index: r("ecx"), Scale: 4}, ""},

		// Immediates.
		{"-4@$-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"-4@$0", Arg{Size: 4, Signed: true, Kind: Const}, ""},
		{"-4@$8192", Arg{Size: 4, Signed: true, Kind: Const, Offset: 8192}, ""},
		{"4@$0x10", Arg{Size: 4, Kind: Const, Offset: 16}, "4@$16"},
		{"8@$-9223372036854775808", Arg{Size: 8, Kind: Const, Offset: -1 << 63}, ""},
		{"8@$9223372036854775807", Arg{Size: 8, Kind: Const, Offset: 1<<63 - 1}, ""},
		{"8@$18446744073709551615", Arg{Size: 8, Kind: Const, Offset: -1}, "8@$-1"},
		{"8@$0xffffffffffffffff", Arg{Size: 8, Kind: Const, Offset: -1}, "8@$-1"},
		{"8@$9223372036854775808", Arg{Size: 8, Kind: Const, Offset: -1 << 63}, "8@$-9223372036854775808"},

		// Symbols, rip-relative or absolute.
		{"-4@NBuffers(%rip)", Arg{Size: 4, Signed: true, Kind: Symbol, Base: r("rip"), Symbol: "NBuffers"}, ""},
		{"-4@40+CheckpointStats(%rip)", Arg{Size: 4, Signed: true, Kind: Symbol, Base: r("rip"), Symbol: "CheckpointStats", Offset: 40}, "-4@CheckpointStats+40(%rip)"},
		{"4@seq_iter.6(%rip)", Arg{Size: 4, Kind: Symbol, Base: r("rip"), Symbol: "seq_iter.6"}, ""},
		{"4@seq_iter.6+8(%rip)", Arg{Size: 4, Kind: Symbol, Base: r("rip"), Symbol: "seq_iter.6", Offset: 8}, ""},
		{"8@_ZN3foo3barE+16(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "_ZN3foo3barE", Offset: 16}, ""},
		{"8@sym-8(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "sym", Offset: -8}, ""},
		{"8@-8+sym(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "sym", Offset: -8}, "8@sym-8(%rip)"},
		{"8@sym+0x10(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "sym", Offset: 16}, "8@sym+16(%rip)"},
		{"8@sym+0(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "sym"}, "8@sym(%rip)"},
		{"8@.LC0(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: ".LC0"}, ""},
		{"8@a$b(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "a$b"}, ""},
		{"8@sym-9223372036854775808(%rip)", Arg{Size: 8, Kind: Symbol, Base: r("rip"), Symbol: "sym", Offset: -1 << 63}, ""},
		{"4@counter", Arg{Size: 4, Kind: Symbol, Symbol: "counter"}, ""},
		{"4@counter+4", Arg{Size: 4, Kind: Symbol, Symbol: "counter", Offset: 4}, ""},
	})
	testErrors(t, elf.EM_X86_64, []errorTest{
		{"-4@%foo", `unknown register "%foo"`},
		{"8@%", `unknown register "%"`},
		{"8@%st", `unknown register "%st"`},
		{"8@%fs:8", `segment override "%fs:8" not supported`},
		{"8@%fs:(%rax)", `segment override "%fs:(%rax)" not supported`},
		{"8@$", `bad constant ""`},
		{"8@$sym", `symbolic immediate "$sym" not supported`},
		{"8@$1x", `bad constant "1x"`},
		{"8@$010", `bad constant "010"`},
		{"8@$18446744073709551616", `constant "18446744073709551616" out of range`},
		{"8@$-9223372036854775809", `constant "-9223372036854775809" out of range`},
		{"8@4096", `absolute address "4096" not supported`},
		{"8@9223372036854775808(%rax)", `offset "9223372036854775808" out of range`},
		{"8@sym+9223372036854775808(%rip)", `offset "9223372036854775808" out of range`},
		{"8@sym-9223372036854775809(%rip)", `offset "9223372036854775809" out of range`},
		{"8@(%rax", `bad memory operand "(%rax"`},
		{"8@(%rax)x", `bad memory operand "(%rax)x"`},
		{"8@()", `bad address register ""`},
		{"8@(%al)", `bad address register "%al"`},
		{"8@(%xmm0)", `unknown register "%xmm0"`},
		{"8@(rax)", `bad address register "rax"`},
		{"8@(%rax,%rsp)", `bad index register "%rsp"`},
		{"8@(%rip,%rax)", "%rip cannot take an index register"},
		{"8@(%rax,%rbx,3)", `bad scale "3"`},
		{"8@(%rax,%rbx,)", `bad scale ""`},
		{"8@(%rax,%rbx,4,1)", `bad memory operand "(%rax,%rbx,4,1)"`},
		{"8@sym+-4(%rip)", `bad displacement "sym+-4"`},
		{"8@4+(%rip)", `bad displacement "4+"`},
		{"8@sym@GOTPCREL(%rip)", `relocation operator in "sym@GOTPCREL(%rip)" not supported`},
		{"8@sym@GOTOFF(%rip)", `GOTOFF operand relative to %rip`},
		{"8@@GOTOFF", `@GOTOFF without an operand`},
		{"sym@GOTPCREL(%rip)", `bad size "sym"`},
	})
}

func TestParse386(t *testing.T) {
	r := func(name string) Reg { return i386Regs()[name] }
	testParse(t, elf.EM_386, []parseTest{
		{"-4@%eax", Arg{Size: 4, Signed: true, Kind: Register, Base: r("eax")}, ""},
		{"2@%ax", Arg{Size: 2, Kind: Register, Base: r("ax")}, ""},
		{"1@%al", Arg{Size: 1, Kind: Register, Base: r("al")}, ""},
		{"1@%ah", Arg{Size: 1, Kind: Register, Base: r("ah")}, ""},
		{"4@%esi", Arg{Size: 4, Kind: Register, Base: r("esi")}, ""},
		// An 8-byte value in a pair: the note names the low register.
		{"8@%edx", Arg{Size: 8, Kind: Register, Base: r("edx"), Index: r("ecx")}, ""},
		{"-8@%eax", Arg{Size: 8, Signed: true, Kind: Register, Base: r("eax"), Index: r("edx")}, ""},
		{"-8@%edi", Arg{Size: 8, Signed: true, Kind: Register, Base: r("edi"), Index: r("ebp")}, ""},
		{"4@%eax", Arg{Size: 4, Kind: Register, Base: r("eax")}, ""},
		{"8@%ax", Arg{Size: 8, Kind: Register, Base: r("ax")}, ""},
		{"-4@-12(%ebp)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("ebp"), Offset: -12}, ""},
		{"4@(%esp)", Arg{Size: 4, Kind: Memory, Base: r("esp")}, ""},
		{"4@8(%ebx,%esi,4)", Arg{Size: 4, Kind: SIB, Base: r("ebx"), Index: r("esi"), Scale: 4, Offset: 8}, ""},
		{"-4@$-1", Arg{Size: 4, Signed: true, Kind: Const, Offset: -1}, ""},
		{"4@counter", Arg{Size: 4, Kind: Symbol, Symbol: "counter"}, ""},
		{"4@counter+4", Arg{Size: 4, Kind: Symbol, Symbol: "counter", Offset: 4}, ""},
		{"4@seq_iter.6-4", Arg{Size: 4, Kind: Symbol, Symbol: "seq_iter.6", Offset: -4}, ""},
		{"4@4+counter", Arg{Size: 4, Kind: Symbol, Symbol: "counter", Offset: 4}, "4@counter+4"},
		{"8f@%xmm7", Arg{Size: 8, Float: true, Kind: FloatRegister, Base: Reg{"xmm7", "xmm7", -1, 16, 0}}, ""},
		{"-4@arr(,%edx,4)", Arg{Size: 4, Signed: true, Kind: SIB, Index: r("edx"), Scale: 4, Symbol: "arr"}, ""},
		// PIC code's own data, as gcc -m32 -fpie writes it.
		{"-4@g@GOTOFF(%eax)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("eax"), Symbol: "g", Reloc: RelocGOTOFF}, ""},
		{"-4@12+gs@GOTOFF(%ebx)", Arg{Size: 4, Signed: true, Kind: Memory, Base: r("ebx"), Symbol: "gs", Offset: 12, Reloc: RelocGOTOFF}, ""},
		{"4@gs+12@GOTOFF(%ebx)", Arg{Size: 4, Kind: Memory, Base: r("ebx"), Symbol: "gs", Offset: 12, Reloc: RelocGOTOFF}, "4@12+gs@GOTOFF(%ebx)"},
		{"4@-8+gs@GOTOFF(%ecx)", Arg{Size: 4, Kind: Memory, Base: r("ecx"), Symbol: "gs", Offset: -8, Reloc: RelocGOTOFF}, ""},
		{"-4@arr@GOTOFF(%eax,%edx,4)", Arg{Size: 4, Signed: true, Kind: SIB, Base: r("eax"), Index: r("edx"), Scale: 4, Symbol: "arr", Reloc: RelocGOTOFF}, ""},
		{"2@4+t.1@GOTOFF(%esi,%edi)", Arg{Size: 2, Kind: SIB, Base: r("esi"), Index: r("edi"), Scale: 1, Symbol: "t.1", Offset: 4, Reloc: RelocGOTOFF}, ""},
	})
	testErrors(t, elf.EM_386, []errorTest{
		{"4@g@GOTOFF", `GOTOFF operand without a base register`},
		{"4@@GOTOFF", `@GOTOFF without an operand`},
		{"4@g@GOTOFF(,%eax,4)", `GOTOFF operand without a base register`},
		{"4@12@GOTOFF(%eax)", `GOTOFF operand without a symbol`},
		{"4@g@GOT(%eax)", `relocation operator in "g@GOT(%eax)" not supported`},
		{"4@g@GOTOFF@GOTOFF(%eax)", `relocation operator in "g@GOTOFF@GOTOFF(%eax)" not supported`},
		{"4@g@PLT(%eax)", `relocation operator in "g@PLT(%eax)" not supported`},
		{"8@%rax", `unknown register "%rax"`},
		{"1@%sil", `unknown register "%sil"`},
		{"4@%r8d", `unknown register "%r8d"`},
		{"4@sym(%rip)", `unknown register "%rip"`},
		{"4@(%ax)", `bad address register "%ax"`},
		{"4@%xmm8", `unknown register "%xmm8"`},
		{"4@%gs:20", `segment override "%gs:20" not supported`},
	})
}
