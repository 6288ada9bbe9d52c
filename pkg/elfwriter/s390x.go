package elfwriter

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// S390X appends z/Architecture instructions to the .text of a File whose
// Machine is EM_S390. Registers are 64-bit; data is addressed with larl,
// PC-relative, so that a PIE needs no relocations; larl addresses
// halfwords, so data it names must be 2-byte aligned.
type S390X struct{ f *File }

// S390X returns the s390x assembler of f.
func (f *File) S390X() *S390X { return &S390X{f} }

// S390XReg is a general register, %r0 to %r15. %r0 as a base or index
// means none; %r15 is the stack pointer and %r14 the return address.
type S390XReg uint8

const (
	GR0 S390XReg = iota
	GR1
	GR2
	GR3
	GR4
	GR5
	GR6
	GR7
	GR8
	GR9
	GR10
	GR11
	GR12
	GR13
	GR14
	GR15
)

// Name returns the register's name, "%r2", as gcc writes it.
func (r S390XReg) Name() string { return "%r" + strconv.Itoa(int(r&15)) }

func (r S390XReg) String() string { return r.Name() }

// S390XFReg is a floating-point register, %f0 to %f15.
type S390XFReg uint8

// S390XMask is the condition mask of a branch: a bit per condition code,
// 8 for 0 down to 1 for 3. After a logical compare, code 0 is equal, 1
// low and 2 high.
type S390XMask uint8

const (
	S390XEQ     S390XMask = 8
	S390XNE     S390XMask = 7
	S390XLO     S390XMask = 4 // unsigned lower
	S390XHS     S390XMask = 10
	S390XHI     S390XMask = 2 // unsigned higher
	S390XAlways S390XMask = 15
)

func (s *S390X) emit(b ...byte) { s.f.text = append(s.f.text, b...) }

func (s *S390X) u16(v uint16) { s.f.text = binary.BigEndian.AppendUint16(s.f.text, v) }
func (s *S390X) u32(v uint32) { s.f.text = binary.BigEndian.AppendUint32(s.f.text, v) }

// rre emits an RRE instruction: a 16-bit opcode and two registers.
func (s *S390X) rre(op uint16, r1, r2 uint8) {
	s.u16(op)
	s.emit(0, r1&15<<4|r2&15)
}

// ri emits an RI instruction with a 16-bit immediate.
func (s *S390X) ri(op1, op2 uint8, r1 S390XReg, v int64) {
	if v != int64(int16(v)) {
		panic(fmt.Sprintf("elfwriter: s390x immediate %d out of range", v))
	}
	s.emit(op1, uint8(r1&15)<<4|op2)
	s.u16(uint16(v))
}

// ril emits an RIL instruction with a 32-bit immediate.
func (s *S390X) ril(op1, op2 uint8, r1 uint8, v int64) {
	if v != int64(int32(v)) && v != int64(uint32(v)) {
		panic(fmt.Sprintf("elfwriter: s390x immediate %d out of range", v))
	}
	s.emit(op1, r1&15<<4|op2)
	s.u32(uint32(v))
}

// rilRel emits an RIL instruction whose operand is target+addend,
// PC-relative in halfwords.
func (s *S390X) rilRel(op1, op2 uint8, r1 uint8, target Label, addend int64) {
	p := len(s.f.text)
	s.emit(op1, r1&15<<4|op2, 0, 0, 0, 0)
	s.f.fixups = append(s.f.fixups, fixup{off: p + 2, end: p, target: target, addend: addend, kind: fixS390Dbl32})
}

// rxy emits an RXY or RSY instruction: op1, r1, r3 or x2, b2, a signed
// 20-bit displacement, op2.
func (s *S390X) rxy(op1, op2 uint8, r1, x2, b2 S390XReg, d int64) {
	if d < -1<<19 || d >= 1<<19 {
		panic(fmt.Sprintf("elfwriter: s390x displacement %d out of range", d))
	}
	s.emit(op1, uint8(r1&15)<<4|uint8(x2&15), uint8(b2&15)<<4|uint8(d>>8&15), uint8(d), uint8(d>>12), op2)
}

// MovImm emits lghi, lgfi, or lgfi and iihf, setting r to v.
func (s *S390X) MovImm(r S390XReg, v int64) {
	switch {
	case v == int64(int16(v)):
		s.ri(0xa7, 0x9, r, v) // lghi
	case v == int64(int32(v)):
		s.ril(0xc0, 0x1, uint8(r), v) // lgfi
	default:
		s.ril(0xc0, 0x1, uint8(r), int64(int32(v)))
		s.ril(0xc0, 0x8, uint8(r), int64(uint32(v>>32))) // iihf
	}
}

// Mov emits lgr d, src.
func (s *S390X) Mov(d, src S390XReg) { s.rre(0xb904, uint8(d), uint8(src)) }

// Larl emits larl r, target+addend: its address, which must be even.
func (s *S390X) Larl(r S390XReg, target Label, addend int64) {
	s.rilRel(0xc0, 0x0, uint8(r), target, addend)
}

// Load emits the load of size bytes (1, 2, 4 or 8, zero-extended) at
// d(x, b) into r: llgc, llgh, llgf or lg.
func (s *S390X) Load(size int, r, x, b S390XReg, d int64) {
	op := map[int]uint8{1: 0x90, 2: 0x91, 4: 0x16, 8: 0x04}[size]
	if op == 0 {
		panic(fmt.Sprintf("elfwriter: s390x load of %d bytes", size))
	}
	s.rxy(0xe3, op, r, x, b, d)
}

// Store emits the store of the low size bytes (1, 2, 4 or 8) of r at
// d(x, b): stcy, sthy, sty or stg.
func (s *S390X) Store(size int, r, x, b S390XReg, d int64) {
	op := map[int]uint8{1: 0x72, 2: 0x70, 4: 0x50, 8: 0x24}[size]
	if op == 0 {
		panic(fmt.Sprintf("elfwriter: s390x store of %d bytes", size))
	}
	s.rxy(0xe3, op, r, x, b, d)
}

// AddImm emits aghi or agfi r, v.
func (s *S390X) AddImm(r S390XReg, v int64) {
	if v == int64(int16(v)) {
		s.ri(0xa7, 0xb, r, v)
		return
	}
	s.ril(0xc2, 0x8, uint8(r), v)
}

// MulImm emits msgfi r, v.
func (s *S390X) MulImm(r S390XReg, v int64) { s.ril(0xc2, 0x0, uint8(r), v) }

// Add emits agr d, src.
func (s *S390X) Add(d, src S390XReg) { s.rre(0xb908, uint8(d), uint8(src)) }

// Sub emits sgr d, src.
func (s *S390X) Sub(d, src S390XReg) { s.rre(0xb909, uint8(d), uint8(src)) }

// Neg emits lcgr d, src: d = -src.
func (s *S390X) Neg(d, src S390XReg) { s.rre(0xb903, uint8(d), uint8(src)) }

// Dlgr emits dlgr r, d: the 128-bit r:r+1 (r even) divided by d,
// unsigned, remainder in r and quotient in r+1.
func (s *S390X) Dlgr(r, d S390XReg) { s.rre(0xb987, uint8(r), uint8(d)) }

// Cmp emits clgr a, b, a logical (unsigned) compare.
func (s *S390X) Cmp(a, b S390XReg) { s.rre(0xb921, uint8(a), uint8(b)) }

// CmpImm emits clgfi r, v, a logical compare with a 32-bit unsigned v.
func (s *S390X) CmpImm(r S390XReg, v uint32) { s.ril(0xc2, 0xe, uint8(r), int64(v)) }

// Brcl emits brcl m, target: a branch when the condition code is in m.
func (s *S390X) Brcl(m S390XMask, target Label) { s.rilRel(0xc0, 0x4, uint8(m), target, 0) }

// Brasl emits brasl r, target: a call leaving the return address in r.
func (s *S390X) Brasl(r S390XReg, target Label) { s.rilRel(0xc0, 0x5, uint8(r), target, 0) }

// Br emits br r (bcr 15, r).
func (s *S390X) Br(r S390XReg) { s.emit(0x07, 0xf0|uint8(r&15)) }

// Svc emits svc n, the system call n (below 256): arguments in %r2 to
// %r7, result in %r2.
func (s *S390X) Svc(n uint8) { s.emit(0x0a, n) }

// Nop emits nop 0 (bc 0, 0), the instruction of a probe site, and
// returns its Label.
func (s *S390X) Nop() Label { return s.f.Nop() }

// Cvt emits cegbr (size 4) or cdgbr (size 8): the signed 64-bit integer
// r as a float or double in f.
func (s *S390X) Cvt(size int, f S390XFReg, r S390XReg) {
	s.rre(fsel(size, 0xb3a4, 0xb3a5), uint8(f), uint8(r))
}

// Div emits debr (size 4) or ddbr (size 8): d = d / f.
func (s *S390X) Div(size int, d, f S390XFReg) { s.rre(fsel(size, 0xb30d, 0xb31d), uint8(d), uint8(f)) }

// Lgdr emits lgdr r, f: the 8 bytes of f in r; a float is in the high 4.
func (s *S390X) Lgdr(r S390XReg, f S390XFReg) { s.rre(0xb3cd, uint8(r), uint8(f)) }

// Srlg emits srlg d, src, n: a logical shift right by n bits.
func (s *S390X) Srlg(d, src S390XReg, n int64) { s.rxy(0xeb, 0x0c, d, src, 0, n) }

func fsel(size int, short, long uint16) uint16 {
	switch size {
	case 4:
		return short
	case 8:
		return long
	}
	panic(fmt.Sprintf("elfwriter: s390x floating-point value of %d bytes", size))
}
