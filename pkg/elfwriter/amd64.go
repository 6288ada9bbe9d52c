package elfwriter

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// AMD64 appends x86-64 instructions to the .text of a File whose Machine
// is EM_X86_64 (or EM_NONE). Operands follow AT&T order: source first.
// Memory operands are either base+displacement (always encoded with a
// 32-bit displacement) or RIP-relative to a Label, so that a PIE needs no
// relocations.
type AMD64 struct{ f *File }

// AMD64 returns the x86-64 assembler of f.
func (f *File) AMD64() *AMD64 { return &AMD64{f} }

// AMD64Reg is an x86-64 general-purpose register, numbered as in the
// instruction encoding.
type AMD64Reg uint8

const (
	RAX AMD64Reg = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

var regNames = [16][4]string{
	{"al", "ax", "eax", "rax"},
	{"cl", "cx", "ecx", "rcx"},
	{"dl", "dx", "edx", "rdx"},
	{"bl", "bx", "ebx", "rbx"},
	{"spl", "sp", "esp", "rsp"},
	{"bpl", "bp", "ebp", "rbp"},
	{"sil", "si", "esi", "rsi"},
	{"dil", "di", "edi", "rdi"},
	{"r8b", "r8w", "r8d", "r8"},
	{"r9b", "r9w", "r9d", "r9"},
	{"r10b", "r10w", "r10d", "r10"},
	{"r11b", "r11w", "r11d", "r11"},
	{"r12b", "r12w", "r12d", "r12"},
	{"r13b", "r13w", "r13d", "r13"},
	{"r14b", "r14w", "r14d", "r14"},
	{"r15b", "r15w", "r15d", "r15"},
}

// Name returns the AT&T name of the register's low size bytes (1, 2, 4 or
// 8), such as "%edi" for RDI and 4, as gcc writes it in an operand.
func (r AMD64Reg) Name(size int) string {
	i := 3
	switch size {
	case 1:
		i = 0
	case 2:
		i = 1
	case 4:
		i = 2
	}
	return "%" + regNames[r&15][i]
}

func (r AMD64Reg) String() string { return r.Name(8) }

// Cond is the condition of a conditional jump on x86-64 and i386.
type Cond uint8

const (
	CondE  Cond = 0x4 // equal, zero
	CondNE Cond = 0x5
	CondA  Cond = 0x7 // unsigned above
	CondB  Cond = 0x2 // unsigned below
	CondAE Cond = 0x3
)

func (a *AMD64) emit(b ...byte) { a.f.emit(b...) }
func (a *AMD64) u32(v uint32)   { a.f.text = binary.LittleEndian.AppendUint32(a.f.text, v) }

func rex(w bool, reg, index, base AMD64Reg) byte {
	b := byte(0x40)
	if w {
		b |= 8
	}
	b |= byte(reg>>3&1) << 2
	b |= byte(index>>3&1) << 1
	b |= byte(base >> 3 & 1)
	return b
}

// regReg emits a register-direct instruction: op with ModRM reg field
// reg and r/m field rm.
func (a *AMD64) regReg(w bool, op []byte, reg, rm AMD64Reg) {
	if r := rex(w, reg, 0, rm); r != 0x40 {
		a.emit(r)
	}
	a.emit(op...)
	a.emit(0xc0 | byte(reg&7)<<3 | byte(rm&7))
}

// mem emits op with a disp32(base) memory operand. A byte register needs
// a REX prefix to mean %spl to %dil rather than %ah to %bh.
func (a *AMD64) mem(w, byteReg bool, op []byte, reg, base AMD64Reg, disp int32) {
	if r := rex(w, reg, 0, base); r != 0x40 || byteReg {
		a.emit(r)
	}
	a.emit(op...)
	a.emit(0x80 | byte(reg&7)<<3 | byte(base&7))
	if base&7 == RSP {
		a.emit(0x24)
	}
	a.u32(uint32(disp))
}

// rip emits op with a target+addend(%rip) memory operand; trailer bytes
// (an immediate) follow the displacement.
func (a *AMD64) rip(w bool, prefix, op []byte, reg AMD64Reg, target Label, addend int64, trailer ...byte) {
	a.emit(prefix...)
	if r := rex(w, reg, 0, 0); r != 0x40 {
		a.emit(r)
	}
	a.emit(op...)
	a.emit(byte(reg&7)<<3 | 5)
	off := len(a.f.text)
	a.u32(0)
	a.emit(trailer...)
	a.f.fixups = append(a.f.fixups, fixup{off: off, end: len(a.f.text), target: target, addend: addend})
}

// MovImm emits mov $v, %dst (the 10-byte movabs form when v needs it).
func (a *AMD64) MovImm(dst AMD64Reg, v int64) {
	if v == int64(int32(v)) {
		a.emit(rex(true, 0, 0, dst), 0xc7, 0xc0|byte(dst&7))
		a.u32(uint32(v))
		return
	}
	a.emit(rex(true, 0, 0, dst), 0xb8|byte(dst&7))
	a.f.text = binary.LittleEndian.AppendUint64(a.f.text, uint64(v))
}

// Mov emits mov %src, %dst (64-bit).
func (a *AMD64) Mov(src, dst AMD64Reg) { a.regReg(true, []byte{0x89}, src, dst) }

// Load emits the load of size bytes (1, 2, 4 or 8, zero-extended) at
// disp(%base) into dst: movzbq, movzwq, mov to the 32-bit register, or
// mov.
func (a *AMD64) Load(size int, dst, base AMD64Reg, disp int32) {
	switch size {
	case 1:
		a.mem(true, false, []byte{0x0f, 0xb6}, dst, base, disp)
	case 2:
		a.mem(true, false, []byte{0x0f, 0xb7}, dst, base, disp)
	case 4:
		a.mem(false, false, []byte{0x8b}, dst, base, disp)
	case 8:
		a.mem(true, false, []byte{0x8b}, dst, base, disp)
	default:
		panic(fmt.Sprintf("elfwriter: x86-64 load of %d bytes", size))
	}
}

// Store emits the store of the low size bytes (1, 2, 4 or 8) of src at
// disp(%base).
func (a *AMD64) Store(size int, src, base AMD64Reg, disp int32) {
	switch size {
	case 1:
		a.mem(false, true, []byte{0x88}, src, base, disp)
	case 2:
		a.emit(0x66)
		a.mem(false, false, []byte{0x89}, src, base, disp)
	case 4:
		a.mem(false, false, []byte{0x89}, src, base, disp)
	case 8:
		a.mem(true, false, []byte{0x89}, src, base, disp)
	default:
		panic(fmt.Sprintf("elfwriter: x86-64 store of %d bytes", size))
	}
}

// LoadRIP emits mov target+addend(%rip), %dst (64-bit).
func (a *AMD64) LoadRIP(dst AMD64Reg, target Label, addend int64) {
	a.rip(true, nil, []byte{0x8b}, dst, target, addend)
}

// StoreRIP emits mov %src, target+addend(%rip) (64-bit).
func (a *AMD64) StoreRIP(src AMD64Reg, target Label, addend int64) {
	a.rip(true, nil, []byte{0x89}, src, target, addend)
}

// LeaRIP emits lea target+addend(%rip), %dst.
func (a *AMD64) LeaRIP(dst AMD64Reg, target Label, addend int64) {
	a.rip(true, nil, []byte{0x8d}, dst, target, addend)
}

// CmpwRIPZero emits cmpw $0, target(%rip), the test of a semaphore.
func (a *AMD64) CmpwRIPZero(target Label) {
	a.rip(false, []byte{0x66}, []byte{0x83}, 7, target, 0, 0)
}

// AddImm emits add $v, %dst (64-bit).
func (a *AMD64) AddImm(dst AMD64Reg, v int32) {
	a.regReg(true, []byte{0x81}, 0, dst)
	a.u32(uint32(v))
}

// CmpImm emits cmp $v, %dst (64-bit).
func (a *AMD64) CmpImm(dst AMD64Reg, v int32) {
	a.regReg(true, []byte{0x81}, 7, dst)
	a.u32(uint32(v))
}

// Add emits add %src, %dst (64-bit).
func (a *AMD64) Add(src, dst AMD64Reg) { a.regReg(true, []byte{0x01}, src, dst) }

// Sub emits sub %src, %dst (64-bit).
func (a *AMD64) Sub(src, dst AMD64Reg) { a.regReg(true, []byte{0x29}, src, dst) }

// Cmp emits cmp %src, %dst (64-bit), setting flags for dst-src.
func (a *AMD64) Cmp(src, dst AMD64Reg) { a.regReg(true, []byte{0x39}, src, dst) }

// Test emits test %src, %dst (64-bit).
func (a *AMD64) Test(src, dst AMD64Reg) { a.regReg(true, []byte{0x85}, src, dst) }

// Xor emits xor %src, %dst (64-bit).
func (a *AMD64) Xor(src, dst AMD64Reg) { a.regReg(true, []byte{0x31}, src, dst) }

// Neg emits neg %dst (64-bit).
func (a *AMD64) Neg(dst AMD64Reg) { a.regReg(true, []byte{0xf7}, 3, dst) }

// MulImm emits imul $v, %dst, %dst (64-bit).
func (a *AMD64) MulImm(dst AMD64Reg, v int32) {
	a.regReg(true, []byte{0x69}, dst, dst)
	a.u32(uint32(v))
}

// Div emits div %src: unsigned %rdx:%rax / src, quotient in %rax,
// remainder in %rdx.
func (a *AMD64) Div(src AMD64Reg) { a.regReg(true, []byte{0xf7}, 6, src) }

// Jmp emits jmp target (rel32).
func (a *AMD64) Jmp(target Label) { a.emit(0xe9); a.f.rel32(target) }

// J emits a conditional jump to target (rel32).
func (a *AMD64) J(c Cond, target Label) { a.emit(0x0f, 0x80|byte(c)); a.f.rel32(target) }

// Call emits call target (rel32).
func (a *AMD64) Call(target Label) { a.emit(0xe8); a.f.rel32(target) }

// Ret emits ret.
func (a *AMD64) Ret() { a.emit(0xc3) }

// Nop emits nop, the instruction of a probe site, and returns its Label.
func (a *AMD64) Nop() Label { return a.f.Nop() }

// Nop5 emits the 5-byte nop 0f 1f 44 00 00 (nopl 0x0(%rax,%rax,1)) and
// returns its Label: the probe site on which Linux 6.18 turns a uprobe
// into a call instead of a breakpoint trap (see package stapsdt's Insn
// for where that is safe).
func (a *AMD64) Nop5() Label {
	l := a.f.Here("")
	a.emit(0x0f, 0x1f, 0x44, 0x00, 0x00)
	return l
}

// Nop10 emits the 10-byte nop 66 2e 0f 1f 84 00 00 00 00 00
// (cs nopw 0x0(%rax,%rax,1)) and returns its Label: the second half of
// the probe site libbpf's usdt.h emits.
func (a *AMD64) Nop10() Label {
	l := a.f.Here("")
	a.emit(0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00)
	return l
}

// Push emits push %r.
func (a *AMD64) Push(r AMD64Reg) {
	if r >= R8 {
		a.emit(0x41)
	}
	a.emit(0x50 | byte(r&7))
}

// Pop emits pop %r.
func (a *AMD64) Pop(r AMD64Reg) {
	if r >= R8 {
		a.emit(0x41)
	}
	a.emit(0x58 | byte(r&7))
}

// Syscall emits syscall, which clobbers %rcx and %r11: number in %rax,
// arguments in %rdi, %rsi, %rdx, %r10, result in %rax.
func (a *AMD64) Syscall() { a.emit(0x0f, 0x05) }

// AMD64XReg is an SSE register, %xmm0 to %xmm15, numbered as in the
// instruction encoding.
type AMD64XReg uint8

const (
	XMM0 AMD64XReg = iota
	XMM1
	XMM2
	XMM3
	XMM4
	XMM5
	XMM6
	XMM7
	XMM8
	XMM9
	XMM10
	XMM11
	XMM12
	XMM13
	XMM14
	XMM15
)

// Name returns the AT&T name of the register, such as "%xmm0", as gcc
// writes it in an operand.
func (x AMD64XReg) Name() string { return "%xmm" + strconv.Itoa(int(x&15)) }

func (x AMD64XReg) String() string { return x.Name() }

// sse emits a register-direct SSE instruction: its mandatory prefix,
// then op with ModRM reg field reg and r/m field rm.
func (a *AMD64) sse(prefix byte, w bool, op []byte, reg, rm AMD64Reg) {
	a.emit(prefix)
	a.regReg(w, op, reg, rm)
}

// Cvtsi2sd emits cvtsi2sdq %src, %dst: the 64-bit integer src as a double.
func (a *AMD64) Cvtsi2sd(src AMD64Reg, dst AMD64XReg) {
	a.sse(0xf2, true, []byte{0x0f, 0x2a}, AMD64Reg(dst), src)
}

// Cvtsi2ss emits cvtsi2ssq %src, %dst: the 64-bit integer src as a float.
func (a *AMD64) Cvtsi2ss(src AMD64Reg, dst AMD64XReg) {
	a.sse(0xf3, true, []byte{0x0f, 0x2a}, AMD64Reg(dst), src)
}

// MulsdRIP emits mulsd target+addend(%rip), %dst (doubles).
func (a *AMD64) MulsdRIP(target Label, addend int64, dst AMD64XReg) {
	a.rip(false, []byte{0xf2}, []byte{0x0f, 0x59}, AMD64Reg(dst), target, addend)
}

// MulssRIP emits mulss target+addend(%rip), %dst (floats).
func (a *AMD64) MulssRIP(target Label, addend int64, dst AMD64XReg) {
	a.rip(false, []byte{0xf3}, []byte{0x0f, 0x59}, AMD64Reg(dst), target, addend)
}

// MovqFromX emits movq %src, %dst: the low 8 bytes of src into a
// general-purpose register.
func (a *AMD64) MovqFromX(src AMD64XReg, dst AMD64Reg) {
	a.sse(0x66, true, []byte{0x0f, 0x7e}, AMD64Reg(src), dst)
}

// MovdFromX emits movd %src, %dst (32-bit): the low 4 bytes of src,
// zero-extended into the 64-bit register.
func (a *AMD64) MovdFromX(src AMD64XReg, dst AMD64Reg) {
	a.sse(0x66, false, []byte{0x0f, 0x7e}, AMD64Reg(src), dst)
}
