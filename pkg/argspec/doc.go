// Package argspec decodes the argument strings of USDT probes.
//
// A probe placed with <sys/sdt.h> records in its stapsdt note a string
// such as
//
//	-4@-4(%rbp) 8@%rax 8@$-1
//
// holding one whitespace-separated token per probe argument. A token is
// [-]N[f]@OPERAND: N is the size of the value in bytes (1, 2, 4 or 8; 12,
// 16 and 24 for long doubles and small structs), a leading '-' marks it
// signed and an 'f' after N floating point. Probes written by hand in
// assembly may give the operand alone, with no size; Size is then 0.
//
// The operand is whatever the compiler printed for an asm operand with the
// constraint sys/sdt.h asks for ("nor" on most machines, "g" on 32-bit Arm,
// "nZr" on Power), so its syntax is that of the machine's assembler.
// ParseArg and ParseArgs decode it into an Arg: a constant, a register, or
// a memory location given by base register, index register, scale, offset
// or symbol. Each register comes with the offset of its value in the
// struct pt_regs a BPF uprobe program is handed, so that a tracer can
// fetch it.
//
// # Canonical form
//
// Arg.String writes an argument back in canonical form, and parsing that
// form yields the same Arg. The canonical form is what gcc writes:
// numbers in decimal (hex input such as 0x10 is accepted and rewritten),
// register names in lower case and as written (%eax stays %eax, x10 stays
// x10), and per machine:
//
//	x86-64, i386  $-1  %rax  %xmm0  (%rax)  -4(%rbp)  8(%rax,%rbx,4)  (%rax,%rbx)
//	              (,%rax,8)  (,%rax,1)  sym(%rip)  sym+8(%rip)  sym-8  16(%rip)
//	              arr(,%rax,8)  sym+8(%rbx)  g@GOTOFF(%ebx)  12+gs@GOTOFF(%eax,%edx,4)
//	aarch64       42  x0  w3  d0  [sp]  [x29, -16]  [x1, x2]  [x1, x2, lsl 3]
//	arm           #42  r0  fp  [r3]  [fp, #-8]  [r1, r2]  [r1, r2, lsl #2]
//	riscv         42  a0  x10  fa0  0(a0)  -8(s0)
//	s390          42  %r2  %f0  0(%r2)  160(%r15)  8(%r1,%r2)
//	ppc, ppc64    i42  3  0(9)  -8(31)  9,10
//	loongarch     42  $r4  $a0  $f0  $r3,0  $r3,-8  $r4,$r5
//
// x86 leaves out a zero displacement and a scale of 1, unless there is no
// base register; a symbol's offset follows the symbol ("8+sym" becomes
// "sym+8"), except that of a GOT-relative symbol, which precedes it as gcc
// writes it ("12+gs@GOTOFF"). An x86 constant is written as a signed
// 64-bit number: $18446744073709551615 reads as, and is written as, $-1.
//
// A symbol with a base or index register is part of a memory or SIB
// operand's displacement (Arg.Symbol): its address in non-PIC code
// ("arr(,%rax,8)"), or, with @GOTOFF (Arg.Reloc), its distance from
// _GLOBAL_OFFSET_TABLE_, whose address PIC code keeps in the base
// register, as gcc -m32 -fpie writes globals.
//
// # Machine notes
//
// On Power a bare number is a register, not a constant: sys/sdt.h has gcc
// prefix constants with 'i'. "%r3" and "r3" are read as register 3 too,
// and written "3". On s390 the first register of "D(X,B)" is the index, and %r0
// there means no register. On LoongArch, memory is written "base,offset",
// and "offset(base)" is read as well. EM_RISCV is taken to be RV64.
//
// Registers outside pt_regs (vector and floating-point registers, and the
// aarch64 and RISC-V zero registers) have Reg.Offset -1.
//
// # Unsupported operands
//
// An operand this package cannot decode gives an Arg with Err set to an
// *Error, which matches ErrNotSupported; the other arguments of the string
// are decoded all the same. Among these are x86 segment overrides
// ("%fs:8"), absolute numeric addresses ("4096"), symbolic immediates
// ("$sym"), x87 and MMX registers; aarch64 extended 32-bit indexes
// ("[x1, w2, sxtw]") and pre- or post-indexing; relocation operators other
// than x86's @GOTOFF ("%lo(sym)(a5)", "sym@toc@l(2)", "sym@GOTPCREL(%rip)");
// decimal numbers with a
// leading zero, which the assembler would read as octal; sizes other than
// those above; offsets that do not fit in 64 bits; and every machine not
// listed above.
package argspec
