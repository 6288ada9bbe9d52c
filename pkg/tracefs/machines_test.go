package tracefs

import (
	"debug/elf"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// TestDefineMachines checks each machine's operand forms, the site at
// 0x1130 as in TestDefine.
func TestDefineMachines(t *testing.T) {
	syms := symbolMap{"gvar": 0x4010, "arr": 0x4020, stapsdt.GOTSymbol: 0x3ff4}
	for _, tt := range []struct {
		name    string
		m       elf.Machine
		args    string
		typ     elf.Type
		want    string // the fetch arguments
		leftOut []string
	}{
		// No fetch type is wider than 8 bytes: the kernel would refuse
		// the whole definition.
		{"x86-64 wider than 8 bytes", elf.EM_X86_64, "16@-32(%rbp) 8@%rax", elf.ET_DYN, "arg1=%ax:u64",
			[]string{`arg0 "16@-32(%rbp)" left out: 16-byte value: fetch types are at most 8 bytes`}},

		// i386: the pt_regs names of i386 and x86-64 kernels alike,
		// 4 bytes for an unsized operand.
		{"i386 registers", elf.EM_386, "-4@%eax 4@%edi -2@%si 1@%bl %ecx 4@%esp 4@%ebp", elf.ET_DYN,
			"arg0=%ax:s32 arg1=%di:u32 arg2=%si:s16 arg3=%bx:u8 arg4=%cx:u32 arg5=%sp:u32 arg6=%bp:u32", nil},
		{"i386 high byte", elf.EM_386, "1@%ah -1@%dh", elf.ET_DYN, "arg0=%ax:b8@8/32",
			[]string{`arg1 "-1@%dh" left out: signed %dh: bitfields are unsigned`}},
		{"i386 register pair", elf.EM_386, "-8@%eax 4@%edx", elf.ET_DYN, "arg1=%dx:u32",
			[]string{`arg0 "-8@%eax" left out: 8-byte value in %edx:%eax: a fetch argument reads one register`}},
		{"i386 memory", elf.EM_386, "-4@8(%ebp) 8@-16(%ebp) (%esp) 2@4(%esi)", elf.ET_DYN,
			"arg0=+8(%bp):s32 arg1=-16(%bp):u64 arg2=+0(%sp):u32 arg3=+4(%si):u16", nil},
		{"i386 constants", elf.EM_386, `-4@$-7 4@$4294967295 $5 8@$4096`, elf.ET_DYN,
			`arg0=\-7:s32 arg1=\4294967295:u32 arg2=\5:u32 arg3=\4096:u64`, nil},
		{"i386 constants beyond 32 bits", elf.EM_386, `-8@$-1 8@$4294967296 4@$1`, elf.ET_DYN, `arg2=\1:u32`, []string{
			`arg0 "-8@$-1" left out: 8-byte constant -1: a 32-bit kernel widens immediates without their sign`,
			`arg1 "8@$4294967296" left out: constant 4294967296: a 32-bit kernel's immediates hold 32 bits`,
		}},
		// gvar is 0x2ee0 (12000) past the site: absolute, or relative to
		// the GOT that %ebx holds, it is read relative to the site.
		{"i386 globals", elf.EM_386, "-4@gvar 4@gvar+8 4@gvar@GOTOFF(%ebx) 8@8+arr@GOTOFF(%ecx)", elf.ET_DYN,
			"arg0=+12000(%ip):s32 arg1=+12008(%ip):u32 arg2=+12000(%ip):u32 arg3=+12024(%ip):u64", nil},
		{"i386 symbol plus a register, non-PIE", elf.EM_386, "4@arr+8(%ebx)", elf.ET_EXEC, "arg0=+16424(%bx):u32", nil},
		{"i386 left out", elf.EM_386, "4@arr(%ebx) 4@(%ebx,%ecx,4) 4@arr(,%eax,4) 8f@%xmm0 4@nosuch 16@-32(%ebp)", elf.ET_DYN, "", []string{
			`arg0 "4@arr(%ebx)" left out: arr plus a register in a position-independent file: the load bias has no fetch argument form`,
			`arg1 "4@(%ebx,%ecx,4)" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg2 "4@arr(,%eax,4)" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg3 "8f@%xmm0" left out: floating-point: fetch arguments have no such type`,
			`arg4 "4@nosuch" left out: no symbol "nosuch"`,
			`arg5 "16@-32(%ebp)" left out: 16-byte value: fetch types are at most 8 bytes`,
		}},

		{"aarch64", elf.EM_AARCH64, "-4@w0 8@x30 x3 8@sp -4@[sp, 12] 8@[x29, -16] 2@[x1] -8@5 8@xzr -4@wzr", elf.ET_DYN,
			`arg0=%x0:s32 arg1=%x30:u64 arg2=%x3:u64 arg3=%sp:u64 arg4=+12(%sp):s32 arg5=-16(%x29):u64 arg6=+0(%x1):u16 arg7=\5:s64 arg8=\0:u64 arg9=\0:s32`, nil},
		{"aarch64 left out", elf.EM_AARCH64, "8@[x1, x2] 8@[x1, x2, lsl 3] 8f@d0 4@s1 8@[x5, #:lo12:.LANCHOR0] 8@x0", elf.ET_DYN, "arg5=%x0:u64", []string{
			`arg0 "8@[x1, x2]" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg1 "8@[x1, x2, lsl 3]" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg2 "8f@d0" left out: floating-point: fetch arguments have no such type`,
			`arg3 "4@s1" left out: floating-point register s1: not in pt_regs`,
			`arg4 "8@[x5, #:lo12:.LANCHOR0]" left out: argument "8@[x5, #:lo12:.LANCHOR0]" (EM_AARCH64): offset ":lo12:.LANCHOR0" is a relocation of a link-time address, which the note does not resolve`,
		}},

		// arm: 4-byte registers, named by role from r11 up.
		{"arm", elf.EM_ARM, "-4@r0 4@r10 fp ip 4@sp 4@lr -4@[fp, #-8] 1@[r3] #7 -4@#-1 2@[sp, #12]", elf.ET_DYN,
			`arg0=%r0:s32 arg1=%r10:u32 arg2=%fp:u32 arg3=%ip:u32 arg4=%sp:u32 arg5=%lr:u32 arg6=-8(%fp):s32 arg7=+0(%r3):u8 arg8=\7:u32 arg9=\-1:s32 arg10=+12(%sp):u16`, nil},
		{"arm left out", elf.EM_ARM, "-8@r0 4@pc 4@[pc, #8] 4@[r1, r2] 8@[sp, #8]", elf.ET_DYN, "arg4=+8(%sp):u64", []string{
			`arg0 "-8@r0" left out: 8-byte value in registers of 4: a fetch argument reads one register`,
			`arg1 "4@pc" left out: pc: the kernel's is the site's address, an instruction's its own plus 8 (4 in Thumb code)`,
			`arg2 "4@[pc, #8]" left out: pc: the kernel's is the site's address, an instruction's its own plus 8 (4 in Thumb code)`,
			`arg3 "4@[r1, r2]" left out: memory indexed by a register: fetch arguments have no such form`,
		}},

		// riscv: ABI names, fp as s0.
		{"riscv", elf.EM_RISCV, "-4@a0 8@x10 8@fp 8@sp 8@ra -4@-20(s0) 8@0(a5) 1@8(sp) 42 -8@zero", elf.ET_DYN,
			`arg0=%a0:s32 arg1=%a0:u64 arg2=%s0:u64 arg3=%sp:u64 arg4=%ra:u64 arg5=-20(%s0):s32 arg6=+0(%a5):u64 arg7=+8(%sp):u8 arg8=\42:u64 arg9=\0:s64`, nil},
		{"riscv left out", elf.EM_RISCV, "8f@fa0 8@%lo(sym)(a5) 8@0(zero)", elf.ET_DYN, "", []string{
			`arg0 "8f@fa0" left out: floating-point: fetch arguments have no such type`,
			`arg1 "8@%lo(sym)(a5)" left out: argument "8@%lo(sym)(a5)" (EM_RISCV): bad offset "%lo"`,
			`arg2 "8@0(zero)" left out: memory at the zero register plus 0: an absolute address below any mapping`,
		}},

		// ppc64: gprN, constants marked i.
		{"ppc64", elf.EM_PPC64, "-4@3 8@31 8@%r9 -4@-8(31) 8@0(9) 2@112(1) -8@i-1 4@i5", elf.ET_DYN,
			`arg0=%gpr3:s32 arg1=%gpr31:u64 arg2=%gpr9:u64 arg3=-8(%gpr31):s32 arg4=+0(%gpr9):u64 arg5=+112(%gpr1):u16 arg6=\-1:s64 arg7=\5:u32`, nil},
		{"ppc64 left out", elf.EM_PPC64, "8@9,10 8@0,9", elf.ET_DYN, "arg1=+0(%gpr9):u64", []string{
			`arg0 "8@9,10" left out: memory indexed by a register: fetch arguments have no such form`,
		}},
		{"ppc", elf.EM_PPC, "-4@3 -8@4 8@-8(31)", elf.ET_DYN, "arg0=%gpr3:s32 arg2=-8(%gpr31):u64", []string{
			`arg1 "-8@4" left out: 8-byte value in registers of 4: a fetch argument reads one register`,
		}},

		{"s390x", elf.EM_S390, "-4@%r2 8@%r15 -8@160(%r15) 4@0(%r2) 1@8(%r0,%r3) -1", elf.ET_DYN,
			`arg0=%r2:s32 arg1=%r15:u64 arg2=+160(%r15):s64 arg3=+0(%r2):u32 arg4=+8(%r3):u8 arg5=\-1:u64`, nil},
		{"s390x left out", elf.EM_S390, "8@8(%r1,%r2) 8f@%f0", elf.ET_DYN, "", []string{
			`arg0 "8@8(%r1,%r2)" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg1 "8f@%f0" left out: floating-point: fetch arguments have no such type`,
		}},

		// loongarch: rN, not the ABI names.
		{"loongarch", elf.EM_LOONGARCH, "-4@$a0 8@$r4 8@$sp 8@$fp -4@$r3,8 8@$fp,-24 8@-8($r22) 7 4@$zero", elf.ET_DYN,
			`arg0=%r4:s32 arg1=%r4:u64 arg2=%r3:u64 arg3=%r22:u64 arg4=+8(%r3):s32 arg5=-24(%r22):u64 arg6=-8(%r22):u64 arg7=\7:u64 arg8=\0:u32`, nil},
		{"loongarch left out", elf.EM_LOONGARCH, "8@$r4,$r5 8f@$f0", elf.ET_DYN, "", []string{
			`arg0 "8@$r4,$r5" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg1 "8f@$f0" left out: floating-point: fetch arguments have no such type`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arm := func(pc uint64) bool { return true }
			checkDefine(t, tt.m, tt.args, &Options{Symbols: syms, Type: tt.typ, ARM: arm}, tt.want, tt.leftOut)
		})
	}
}
