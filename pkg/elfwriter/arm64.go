package elfwriter

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// ARM64 appends aarch64 (A64) instructions to the .text of a File whose
// Machine is EM_AARCH64. Registers are 64-bit unless a method says
// otherwise; data is addressed PC-relative with adrp and add, so that a
// PIE needs no relocations.
type ARM64 struct{ f *File }

// ARM64 returns the aarch64 assembler of f.
func (f *File) ARM64() *ARM64 { return &ARM64{f} }

// ARM64Reg is an aarch64 general-purpose register, numbered as in the
// instruction encoding; 31 is SP or XZR depending on the instruction.
type ARM64Reg uint8

const (
	X0 ARM64Reg = iota
	X1
	X2
	X3
	X4
	X5
	X6
	X7
	X8
	X9
	X10
	X11
	X12
	X13
	X14
	X15
	X16
	X17
	X18
	X19
	X20
	X21
	X22
	X23
	X24
	X25
	X26
	X27
	X28
	X29          // the frame pointer
	X30          // the link register
	SP  ARM64Reg = 31
	XZR ARM64Reg = 31
)

// Name returns the register's 64-bit name, "x2", or "sp" for 31, as gcc
// writes it in an operand; gcc names a register by its x form whatever
// the size of the value it holds.
func (r ARM64Reg) Name() string {
	if r == SP {
		return "sp"
	}
	return "x" + strconv.Itoa(int(r))
}

func (r ARM64Reg) String() string { return r.Name() }

// ARM64VReg is an aarch64 SIMD&FP register, v0 to v31; d0 and s0 are its
// low 8 and 4 bytes.
type ARM64VReg uint8

// Name returns "v0" for register 0, as gcc writes a floating-point
// operand in an SIMD&FP register.
func (v ARM64VReg) Name() string { return "v" + strconv.Itoa(int(v&31)) }

func (v ARM64VReg) String() string { return v.Name() }

// ARM64Cond is the condition of a conditional branch.
type ARM64Cond uint8

const (
	ARM64EQ ARM64Cond = 0x0
	ARM64NE ARM64Cond = 0x1
	ARM64HS ARM64Cond = 0x2 // unsigned higher or same
	ARM64LO ARM64Cond = 0x3 // unsigned lower
	ARM64HI ARM64Cond = 0x8 // unsigned higher
	ARM64LS ARM64Cond = 0x9 // unsigned lower or same
)

// word appends an instruction, little-endian as on every aarch64 Linux.
func (a *ARM64) word(w uint32) { a.f.text = binary.LittleEndian.AppendUint32(a.f.text, w) }

func rd(r ARM64Reg) uint32 { return uint32(r & 31) }

// MovImm emits the movz, movn and movk instructions that set rd to v.
func (a *ARM64) MovImm(d ARM64Reg, v int64) {
	u := uint64(v)
	if v < 0 && v >= -0x10000 {
		a.word(0x92800000 | uint32(^u&0xffff)<<5 | rd(d)) // movn
		return
	}
	a.word(0xd2800000 | uint32(u&0xffff)<<5 | rd(d)) // movz
	for hw := uint32(1); hw < 4; hw++ {
		if part := uint32(u >> (16 * hw) & 0xffff); part != 0 {
			a.word(0xf2800000 | hw<<21 | part<<5 | rd(d)) // movk
		}
	}
}

// Mov emits mov xd, xm; either may be SP (encoded as add xd, xm, #0 then).
func (a *ARM64) Mov(d, m ARM64Reg) {
	if d == SP || m == SP {
		a.AddImm(d, m, 0)
		return
	}
	a.word(0xaa0003e0 | rd(m)<<16 | rd(d)) // orr xd, xzr, xm
}

// AddImm emits add xd, xn, #v, or sub for a negative v; v is a 12-bit
// value, optionally shifted left by 12. xd and xn may be SP.
func (a *ARM64) AddImm(d, n ARM64Reg, v int64) {
	op := uint32(0x91000000)
	if v < 0 {
		op, v = 0xd1000000, -v
	}
	a.word(op | imm12(v) | rd(n)<<5 | rd(d))
}

// CmpImm emits cmp xn, #v (subs xzr, xn, #v).
func (a *ARM64) CmpImm(n ARM64Reg, v int64) {
	a.word(0xf1000000 | imm12(v) | rd(n)<<5 | 31)
}

// imm12 encodes the immediate of an add or sub: 12 bits, or 12 bits
// shifted left by 12.
func imm12(v int64) uint32 {
	switch {
	case v >= 0 && v < 1<<12:
		return uint32(v) << 10
	case v >= 0 && v < 1<<24 && v&0xfff == 0:
		return 1<<22 | uint32(v>>12)<<10
	}
	panic(fmt.Sprintf("elfwriter: aarch64 immediate %d out of range", v))
}

// Add emits add xd, xn, xm.
func (a *ARM64) Add(d, n, m ARM64Reg) { a.word(0x8b000000 | rd(m)<<16 | rd(n)<<5 | rd(d)) }

// Sub emits sub xd, xn, xm.
func (a *ARM64) Sub(d, n, m ARM64Reg) { a.word(0xcb000000 | rd(m)<<16 | rd(n)<<5 | rd(d)) }

// Neg emits neg xd, xm.
func (a *ARM64) Neg(d, m ARM64Reg) { a.Sub(d, XZR, m) }

// Cmp emits cmp xn, xm (subs xzr, xn, xm).
func (a *ARM64) Cmp(n, m ARM64Reg) { a.word(0xeb000000 | rd(m)<<16 | rd(n)<<5 | 31) }

// Mul emits mul xd, xn, xm.
func (a *ARM64) Mul(d, n, m ARM64Reg) { a.word(0x9b007c00 | rd(m)<<16 | rd(n)<<5 | rd(d)) }

// Msub emits msub xd, xn, xm, xa: xa - xn*xm.
func (a *ARM64) Msub(d, n, m, ra ARM64Reg) {
	a.word(0x9b008000 | rd(m)<<16 | rd(ra)<<10 | rd(n)<<5 | rd(d))
}

// Udiv emits udiv xd, xn, xm.
func (a *ARM64) Udiv(d, n, m ARM64Reg) { a.word(0x9ac00800 | rd(m)<<16 | rd(n)<<5 | rd(d)) }

// ldst are the opcodes of loads and stores by size (1, 2, 4, 8): the
// unsigned scaled offset form and the unscaled signed form (ldur, stur).
var ldst = map[int]struct{ str, ldr, stur, ldur uint32 }{
	1: {0x39000000, 0x39400000, 0x38000000, 0x38400000},
	2: {0x79000000, 0x79400000, 0x78000000, 0x78400000},
	4: {0xb9000000, 0xb9400000, 0xb8000000, 0xb8400000},
	8: {0xf9000000, 0xf9400000, 0xf8000000, 0xf8400000},
}

// Ldr emits the load of size bytes (1, 2, 4 or 8, zero-extended) at
// [xn, off] into t: ldrb, ldrh, ldr wt or ldr xt, or their unscaled forms
// ldur* for an offset that is negative or not a multiple of size.
func (a *ARM64) Ldr(size int, t, n ARM64Reg, off int64) { a.ldst(size, false, t, n, off) }

// Str emits the store of the low size bytes of t at [xn, off], as Ldr.
func (a *ARM64) Str(size int, t, n ARM64Reg, off int64) { a.ldst(size, true, t, n, off) }

func (a *ARM64) ldst(size int, store bool, t, n ARM64Reg, off int64) {
	op, ok := ldst[size]
	if !ok {
		panic(fmt.Sprintf("elfwriter: aarch64 load or store of %d bytes", size))
	}
	s := int64(size)
	switch {
	case off >= 0 && off%s == 0 && off/s < 1<<12:
		w := op.ldr
		if store {
			w = op.str
		}
		a.word(w | uint32(off/s)<<10 | rd(n)<<5 | rd(t))
	case off >= -256 && off < 256:
		w := op.ldur
		if store {
			w = op.stur
		}
		a.word(w | uint32(off&0x1ff)<<12 | rd(n)<<5 | rd(t))
	default:
		panic(fmt.Sprintf("elfwriter: aarch64 offset %d out of range", off))
	}
}

// Adr emits adrp xd, target+addend and add xd, xd, :lo12:target+addend:
// the address of target+addend, within 4 GiB of the code.
func (a *ARM64) Adr(d ARM64Reg, target Label, addend int64) {
	f := a.f
	p := len(f.text)
	a.word(0x90000000 | rd(d))
	f.fixups = append(f.fixups, fixup{off: p, end: p, target: target, addend: addend, kind: fixARM64Page21})
	a.word(0x91000000 | rd(d)<<5 | rd(d))
	f.fixups = append(f.fixups, fixup{off: p + 4, end: p, target: target, addend: addend, kind: fixARM64Lo12})
}

// branch emits w with a PC-relative word offset to target of kind k.
func (a *ARM64) branch(w uint32, target Label, k fixupKind) {
	p := len(a.f.text)
	a.word(w)
	a.f.fixups = append(a.f.fixups, fixup{off: p, end: p, target: target, kind: k})
}

// B emits b target.
func (a *ARM64) B(target Label) { a.branch(0x14000000, target, fixARM64Branch26) }

// Bl emits bl target, a call that leaves the return address in x30.
func (a *ARM64) Bl(target Label) { a.branch(0x94000000, target, fixARM64Branch26) }

// BCond emits b.cond target (within 1 MiB).
func (a *ARM64) BCond(c ARM64Cond, target Label) {
	a.branch(0x54000000|uint32(c), target, fixARM64Branch19)
}

// Cbz emits cbz xt, target (within 1 MiB).
func (a *ARM64) Cbz(t ARM64Reg, target Label) { a.branch(0xb4000000|rd(t), target, fixARM64Branch19) }

// Cbnz emits cbnz xt, target (within 1 MiB).
func (a *ARM64) Cbnz(t ARM64Reg, target Label) { a.branch(0xb5000000|rd(t), target, fixARM64Branch19) }

// Ret emits ret (to x30).
func (a *ARM64) Ret() { a.word(0xd65f03c0) }

// Svc emits svc #0, the system call: number in x8, arguments in x0 to x5.
func (a *ARM64) Svc() { a.word(0xd4000001) }

// Nop emits nop, the instruction of a probe site, and returns its Label.
func (a *ARM64) Nop() Label { return a.f.Nop() }

// ftype returns the type field of a floating-point instruction on values
// of size bytes: single (4) or double (8).
func ftype(size int) uint32 {
	switch size {
	case 4:
		return 0
	case 8:
		return 1 << 22
	}
	panic(fmt.Sprintf("elfwriter: aarch64 floating-point value of %d bytes", size))
}

// Scvtf emits scvtf sd or dd, xn (size 4 or 8): the signed 64-bit integer
// xn as a float or double.
func (a *ARM64) Scvtf(size int, d ARM64VReg, n ARM64Reg) {
	a.word(0x9e220000 | ftype(size) | rd(n)<<5 | uint32(d&31))
}

// Fmul emits fmul on floats (size 4) or doubles (size 8): d = n * m.
func (a *ARM64) Fmul(size int, d, n, m ARM64VReg) {
	a.word(0x1e200800 | ftype(size) | uint32(m&31)<<16 | uint32(n&31)<<5 | uint32(d&31))
}

// FmovImm emits fmov sd or dd, #v (size 4 or 8); v must be ±n/16*2^r for
// n in 16..31 and r in -3..4, such as 0.5 or 1.0.
func (a *ARM64) FmovImm(size int, d ARM64VReg, v float64) {
	imm, ok := fpImm8(v)
	if !ok {
		panic(fmt.Sprintf("elfwriter: aarch64 floating-point immediate %v not encodable", v))
	}
	a.word(0x1e201000 | ftype(size) | uint32(imm)<<13 | uint32(d&31))
}

// fpImm8 returns the 8-bit encoding of an fmov immediate.
func fpImm8(v float64) (uint8, bool) {
	for i := 0; i < 256; i++ {
		if fpImm8Value(uint8(i)) == v {
			return uint8(i), true
		}
	}
	return 0, false
}

// fpImm8Value is the value of the 8-bit fmov immediate abcdefgh:
// (-1)^a * (16+efgh)/16 * 2^(NOT(b):cd - 3).
func fpImm8Value(i uint8) float64 {
	n := float64(16+i&15) / 16
	e := int(i>>4&7) ^ 4 // b inverted, then c, d
	v := math.Ldexp(n, e-3)
	if i&0x80 != 0 {
		v = -v
	}
	return v
}

// FmovToX emits fmov wd, sn (size 4, zero-extending into xd) or fmov xd,
// dn (size 8): the bits of a floating-point value in a general-purpose
// register.
func (a *ARM64) FmovToX(size int, d ARM64Reg, n ARM64VReg) {
	w := uint32(0x9e660000)
	if size == 4 {
		w = 0x1e260000
	} else if size != 8 {
		panic(fmt.Sprintf("elfwriter: aarch64 fmov of %d bytes", size))
	}
	a.word(w | uint32(n&31)<<5 | rd(d))
}

// or32 sets bits v in the instruction word at b, in e's byte order: the
// field of a fixup.
func (e *encoder) or32(b []byte, v uint32) { e.order.PutUint32(b, e.order.Uint32(b)|v) }
