package elfwriter

import (
	"encoding/binary"
	"strconv"
)

// Reg is an x86-64 general-purpose register, numbered as in the
// instruction encoding.
type Reg uint8

const (
	RAX Reg = iota
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
func (r Reg) Name(size int) string {
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

func (r Reg) String() string { return r.Name(8) }

// Cond is the condition of a conditional jump.
type Cond uint8

const (
	CondE  Cond = 0x4 // equal, zero
	CondNE Cond = 0x5
	CondA  Cond = 0x7 // unsigned above
	CondB  Cond = 0x2 // unsigned below
	CondAE Cond = 0x3
)

// The instruction methods below append one instruction to .text. Operands
// follow AT&T order: source first. Memory operands are either
// base+displacement (always encoded with a 32-bit displacement) or
// RIP-relative to a Label.

func (f *File) emit(b ...byte) { f.text = append(f.text, b...) }

func rex(w bool, reg, index, base Reg) byte {
	b := byte(0x40)
	if w {
		b |= 8
	}
	b |= byte(reg>>3&1) << 2
	b |= byte(index>>3&1) << 1
	b |= byte(base >> 3 & 1)
	return b
}

// opRegReg emits a register-direct instruction: op with ModRM reg field
// reg and r/m field rm.
func (f *File) opRegReg(w bool, op []byte, reg, rm Reg) {
	if r := rex(w, reg, 0, rm); r != 0x40 {
		f.emit(r)
	}
	f.emit(op...)
	f.emit(0xc0 | byte(reg&7)<<3 | byte(rm&7))
}

// opMem emits op with a disp32(base) memory operand.
func (f *File) opMem(w bool, op []byte, reg, base Reg, disp int32) {
	if r := rex(w, reg, 0, base); r != 0x40 {
		f.emit(r)
	}
	f.emit(op...)
	f.emit(0x80 | byte(reg&7)<<3 | byte(base&7))
	if base&7 == RSP {
		f.emit(0x24)
	}
	f.text = binary.LittleEndian.AppendUint32(f.text, uint32(disp))
}

// opRIP emits op with a target+addend(%rip) memory operand; trailer bytes
// (an immediate) follow the displacement.
func (f *File) opRIP(w bool, prefix, op []byte, reg Reg, target Label, addend int64, trailer ...byte) {
	f.emit(prefix...)
	if r := rex(w, reg, 0, 0); r != 0x40 {
		f.emit(r)
	}
	f.emit(op...)
	f.emit(byte(reg&7)<<3 | 5)
	off := len(f.text)
	f.emit(0, 0, 0, 0)
	f.emit(trailer...)
	f.fixups = append(f.fixups, fixup{off: off, end: len(f.text), target: target, addend: addend})
}

// MovImm emits mov $v, %dst (the 10-byte movabs form when v needs it).
func (f *File) MovImm(dst Reg, v int64) {
	if v == int64(int32(v)) {
		f.emit(rex(true, 0, 0, dst), 0xc7, 0xc0|byte(dst&7))
		f.text = binary.LittleEndian.AppendUint32(f.text, uint32(v))
		return
	}
	f.emit(rex(true, 0, 0, dst), 0xb8|byte(dst&7))
	f.text = binary.LittleEndian.AppendUint64(f.text, uint64(v))
}

// MovReg emits mov %src, %dst (64-bit).
func (f *File) MovReg(src, dst Reg) { f.opRegReg(true, []byte{0x89}, src, dst) }

// Load emits mov disp(%base), %dst (64-bit).
func (f *File) Load(dst, base Reg, disp int32) { f.opMem(true, []byte{0x8b}, dst, base, disp) }

// Store emits mov %src, disp(%base) (64-bit).
func (f *File) Store(src, base Reg, disp int32) { f.opMem(true, []byte{0x89}, src, base, disp) }

// LoadRIP emits mov target+addend(%rip), %dst (64-bit).
func (f *File) LoadRIP(dst Reg, target Label, addend int64) {
	f.opRIP(true, nil, []byte{0x8b}, dst, target, addend)
}

// StoreRIP emits mov %src, target+addend(%rip) (64-bit).
func (f *File) StoreRIP(src Reg, target Label, addend int64) {
	f.opRIP(true, nil, []byte{0x89}, src, target, addend)
}

// LeaRIP emits lea target+addend(%rip), %dst.
func (f *File) LeaRIP(dst Reg, target Label, addend int64) {
	f.opRIP(true, nil, []byte{0x8d}, dst, target, addend)
}

// CmpwRIPZero emits cmpw $0, target(%rip), the test of a semaphore.
func (f *File) CmpwRIPZero(target Label) {
	f.opRIP(false, []byte{0x66}, []byte{0x83}, 7, target, 0, 0)
}

// AddImm emits add $v, %dst (64-bit).
func (f *File) AddImm(dst Reg, v int32) {
	f.opRegReg(true, []byte{0x81}, 0, dst)
	f.text = binary.LittleEndian.AppendUint32(f.text, uint32(v))
}

// CmpImm emits cmp $v, %dst (64-bit).
func (f *File) CmpImm(dst Reg, v int32) {
	f.opRegReg(true, []byte{0x81}, 7, dst)
	f.text = binary.LittleEndian.AppendUint32(f.text, uint32(v))
}

// AddReg emits add %src, %dst (64-bit).
func (f *File) AddReg(src, dst Reg) { f.opRegReg(true, []byte{0x01}, src, dst) }

// SubReg emits sub %src, %dst (64-bit).
func (f *File) SubReg(src, dst Reg) { f.opRegReg(true, []byte{0x29}, src, dst) }

// CmpReg emits cmp %src, %dst (64-bit), setting flags for dst-src.
func (f *File) CmpReg(src, dst Reg) { f.opRegReg(true, []byte{0x39}, src, dst) }

// TestReg emits test %src, %dst (64-bit).
func (f *File) TestReg(src, dst Reg) { f.opRegReg(true, []byte{0x85}, src, dst) }

// XorReg emits xor %src, %dst (64-bit).
func (f *File) XorReg(src, dst Reg) { f.opRegReg(true, []byte{0x31}, src, dst) }

// Neg emits neg %dst (64-bit).
func (f *File) Neg(dst Reg) { f.opRegReg(true, []byte{0xf7}, 3, dst) }

// MulImm emits imul $v, %dst, %dst (64-bit).
func (f *File) MulImm(dst Reg, v int32) {
	f.opRegReg(true, []byte{0x69}, dst, dst)
	f.text = binary.LittleEndian.AppendUint32(f.text, uint32(v))
}

// Div emits div %src: unsigned %rdx:%rax / src, quotient in %rax,
// remainder in %rdx.
func (f *File) Div(src Reg) { f.opRegReg(true, []byte{0xf7}, 6, src) }

// LoadByte emits movzbq disp(%base), %dst.
func (f *File) LoadByte(dst, base Reg, disp int32) {
	f.opMem(true, []byte{0x0f, 0xb6}, dst, base, disp)
}

// StoreByte emits mov %src's low byte, disp(%base).
func (f *File) StoreByte(src, base Reg, disp int32) {
	// A REX prefix makes 4-7 mean %spl..%dil instead of %ah..%bh.
	f.emit(rex(false, src, 0, base))
	f.emit(0x88)
	f.emit(0x80 | byte(src&7)<<3 | byte(base&7))
	if base&7 == RSP {
		f.emit(0x24)
	}
	f.text = binary.LittleEndian.AppendUint32(f.text, uint32(disp))
}

// Jmp emits jmp target (rel32).
func (f *File) Jmp(target Label) {
	f.emit(0xe9)
	f.rel32(target)
}

// J emits a conditional jump to target (rel32).
func (f *File) J(c Cond, target Label) {
	f.emit(0x0f, 0x80|byte(c))
	f.rel32(target)
}

// Call emits call target (rel32).
func (f *File) Call(target Label) {
	f.emit(0xe8)
	f.rel32(target)
}

func (f *File) rel32(target Label) {
	off := len(f.text)
	f.emit(0, 0, 0, 0)
	f.fixups = append(f.fixups, fixup{off: off, end: len(f.text), target: target})
}

// Push emits push %r.
func (f *File) Push(r Reg) {
	if r >= R8 {
		f.emit(0x41)
	}
	f.emit(0x50 | byte(r&7))
}

// Pop emits pop %r.
func (f *File) Pop(r Reg) {
	if r >= R8 {
		f.emit(0x41)
	}
	f.emit(0x58 | byte(r&7))
}

// Syscall emits syscall, which clobbers %rcx and %r11.
func (f *File) Syscall() { f.emit(0x0f, 0x05) }

// XReg is an SSE register, %xmm0 to %xmm15, numbered as in the
// instruction encoding.
type XReg uint8

const (
	XMM0 XReg = iota
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
func (x XReg) Name() string { return "%xmm" + strconv.Itoa(int(x&15)) }

func (x XReg) String() string { return x.Name() }

// opSSE emits a register-direct SSE instruction: its mandatory prefix,
// then op with ModRM reg field reg and r/m field rm.
func (f *File) opSSE(prefix byte, w bool, op []byte, reg, rm Reg) {
	f.emit(prefix)
	f.opRegReg(w, op, reg, rm)
}

// Cvtsi2sd emits cvtsi2sdq %src, %dst: the 64-bit integer src as a double.
func (f *File) Cvtsi2sd(src Reg, dst XReg) { f.opSSE(0xf2, true, []byte{0x0f, 0x2a}, Reg(dst), src) }

// Cvtsi2ss emits cvtsi2ssq %src, %dst: the 64-bit integer src as a float.
func (f *File) Cvtsi2ss(src Reg, dst XReg) { f.opSSE(0xf3, true, []byte{0x0f, 0x2a}, Reg(dst), src) }

// MulsdRIP emits mulsd target+addend(%rip), %dst (doubles).
func (f *File) MulsdRIP(target Label, addend int64, dst XReg) {
	f.opRIP(false, []byte{0xf2}, []byte{0x0f, 0x59}, Reg(dst), target, addend)
}

// MulssRIP emits mulss target+addend(%rip), %dst (floats).
func (f *File) MulssRIP(target Label, addend int64, dst XReg) {
	f.opRIP(false, []byte{0xf3}, []byte{0x0f, 0x59}, Reg(dst), target, addend)
}

// MovqFromX emits movq %src, %dst: the low 8 bytes of src into a
// general-purpose register.
func (f *File) MovqFromX(src XReg, dst Reg) { f.opSSE(0x66, true, []byte{0x0f, 0x7e}, Reg(src), dst) }

// MovdFromX emits movd %src, %dst (32-bit): the low 4 bytes of src,
// zero-extended into the 64-bit register.
func (f *File) MovdFromX(src XReg, dst Reg) { f.opSSE(0x66, false, []byte{0x0f, 0x7e}, Reg(src), dst) }
