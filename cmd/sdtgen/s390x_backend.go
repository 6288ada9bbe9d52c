package main

import (
	"fmt"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// s390xBackend emits s390x code. %r1 is tmp, %r0 a scratch register of
// the backend's own (never a base: %r0 there means none), %r12 holds the
// initial stack pointer while the arguments are parsed, %r11 is a second
// frame register, 256 bytes above %r15; %f0 and %f2 hold floating-point
// intermediates.
type s390xBackend struct{ s *elfwriter.S390X }

func newS390XBackend(f *elfwriter.File) backend { return &s390xBackend{f.S390X()} }

// s390xFrame is the stack the program reserves: mem operands, and the
// 160-byte register save area of the ABI below them.
const s390xFrame = frameSize + 160

func gr(r reg) elfwriter.S390XReg { return elfwriter.S390XReg(r) }

func (b *s390xBackend) wordSize() int    { return 8 }
func (b *s390xBackend) charSigned() bool { return false }
func (b *s390xBackend) dataAlign() int   { return 2 }
func (b *s390xBackend) t(i int) reg      { return reg(elfwriter.GR2) + reg(i) }
func (b *s390xBackend) tmp() reg         { return reg(elfwriter.GR1) }

func (b *s390xBackend) enter() {
	b.s.Mov(elfwriter.GR12, elfwriter.GR15)
	b.s.AddImm(elfwriter.GR15, -s390xFrame)
	b.s.Mov(elfwriter.GR11, elfwriter.GR15)
	b.s.AddImm(elfwriter.GR11, 256)
}

func (b *s390xBackend) argc(r reg) { b.s.Load(8, gr(r), 0, elfwriter.GR12, 0) }
func (b *s390xBackend) argv(r reg, i int) {
	b.s.Load(8, gr(r), 0, elfwriter.GR12, int64(8+8*i))
}
func (b *s390xBackend) imm(r reg, v int64) { b.s.MovImm(gr(r), v) }
func (b *s390xBackend) addr(r reg, l elfwriter.Label, off int64) {
	b.s.Larl(gr(r), l, off)
}
func (b *s390xBackend) load(size int, r, base reg, off int64) {
	b.s.Load(size, gr(r), 0, gr(base), off)
}
func (b *s390xBackend) store(size int, r, base reg, off int64) {
	b.s.Store(size, gr(r), 0, gr(base), off)
}
func (b *s390xBackend) addImm(r reg, v int64) { b.s.AddImm(gr(r), v) }
func (b *s390xBackend) mulImm(r reg, v int64) { b.s.MulImm(gr(r), v) }
func (b *s390xBackend) add(d, s reg)          { b.s.Add(gr(d), gr(s)) }
func (b *s390xBackend) sub(d, s reg)          { b.s.Sub(gr(d), gr(s)) }
func (b *s390xBackend) neg(r reg)             { b.s.Neg(gr(r), gr(r)) }

// divu divides %r0:%r1 by d: %r1, tmp, holds no address meanwhile.
func (b *s390xBackend) divu(q, rem, d reg) {
	b.s.MovImm(elfwriter.GR0, 0)
	b.s.Mov(elfwriter.GR1, gr(q))
	b.s.Dlgr(elfwriter.GR0, gr(d))
	b.s.Mov(gr(q), elfwriter.GR1)
	b.s.Mov(gr(rem), elfwriter.GR0)
}

var s390xMasks = map[cond]elfwriter.S390XMask{
	condEQ: elfwriter.S390XEQ, condNE: elfwriter.S390XNE, condLO: elfwriter.S390XLO,
	condHS: elfwriter.S390XHS, condHI: elfwriter.S390XHI,
}

func (b *s390xBackend) brImm(c cond, r reg, v int64, l elfwriter.Label) {
	b.s.CmpImm(gr(r), uint32(v))
	b.s.Brcl(s390xMasks[c], l)
}

func (b *s390xBackend) br(c cond, r, s reg, l elfwriter.Label) {
	b.s.Cmp(gr(r), gr(s))
	b.s.Brcl(s390xMasks[c], l)
}

func (b *s390xBackend) jmp(l elfwriter.Label)  { b.s.Brcl(elfwriter.S390XAlways, l) }
func (b *s390xBackend) call(l elfwriter.Label) { b.s.Brasl(elfwriter.GR14, l) }
func (b *s390xBackend) ret()                   { b.s.Br(elfwriter.GR14) }

var s390xSyscalls = map[sysno]uint8{sysWrite: 4, sysNanosleep: 162, sysExitGroup: 248}

func (b *s390xBackend) syscall(n sysno) { b.s.Svc(s390xSyscalls[n]) }

// form maps rip to mem, s390x operands naming no symbol (gcc loads a
// global's address with larl and writes 0(%r1)), and float to reg: gcc
// leaves a floating-point argument in a general register or memory.
func (b *s390xBackend) form(f form, a argType, typ elfwriter.Type) form {
	switch f {
	case formRIP:
		return formMem
	case formFloat:
		return formReg
	}
	return f
}

func (b *s390xBackend) pool() []reg {
	return []reg{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14}
}

func (b *s390xBackend) sibIndexPerArg() bool   { return false }
func (b *s390xBackend) pair(r reg) (reg, bool) { return 0, false }
func (b *s390xBackend) sibScale(i int) int     { return 1 }

// memSlot places mem arguments above the register save area, as gcc
// does: 160(%r15) and up, and 160(%r11) and up for odd arguments.
func (b *s390xBackend) memSlot(i int) (reg, int64) {
	if i%2 == 1 {
		return reg(elfwriter.GR11), int64(160 + 8*i)
	}
	return reg(elfwriter.GR15), int64(160 + 8*i)
}

func (b *s390xBackend) highHalf(hi, lo reg, signed bool) {}

// storeInt stores the low size bytes, which on a big-endian machine are
// the last of the register's.
func (b *s390xBackend) storeInt(r reg, a argType, base reg, disp int64) {
	b.store(a.size, r, base, disp)
}

// floatBits computes -(2*(k*1000+i)+1) in r, converts it and halves it,
// every step exact, and loads the bits into r: a float's 4 bytes, which
// the floating-point register holds in its high half, shifted down.
func (b *s390xBackend) floatBits(r reg, a argType, i int, k1000 elfwriter.Label) {
	placeInt(b, r, argType{size: 8}, i, k1000)
	b.add(r, r)
	b.addImm(r, 1)
	b.neg(r)
	b.s.Cvt(a.size, 0, gr(r))
	b.s.MovImm(elfwriter.GR0, 2)
	b.s.Cvt(a.size, 2, elfwriter.GR0)
	b.s.Div(a.size, 0, 2)
	b.s.Lgdr(gr(r), 0)
	if a.size == 4 {
		b.s.Srlg(gr(r), gr(r), 32)
	}
}

func (b *s390xBackend) storeFloat(a argType, i int, base reg, disp int64, k1000 elfwriter.Label) {
	b.floatBits(b.tmp(), a, i, k1000)
	b.store(a.size, b.tmp(), base, disp)
}

func (b *s390xBackend) floatReg(a argType, i int, k1000 elfwriter.Label) string {
	panic("sdtgen: s390x floating-point arguments take general registers")
}

func (b *s390xBackend) regOperand(r reg, a argType) string { return gr(r).Name() }

// memOperand always writes the displacement, "0(%r2)", as gcc does.
func (b *s390xBackend) memOperand(base reg, disp int64) string {
	return fmt.Sprintf("%d(%s)", disp, gr(base).Name())
}

// sibOperand writes the index first: D(X,B).
func (b *s390xBackend) sibOperand(base, index reg, disp int64, scale int) string {
	return fmt.Sprintf("%d(%s,%s)", disp, gr(index).Name(), gr(base).Name())
}

func (b *s390xBackend) immOperand(v int64) string { return strconv.FormatInt(v, 10) }

func (b *s390xBackend) symOperand(sym string, off int64, base reg) string {
	panic("sdtgen: s390x operands name no symbol")
}

func (b *s390xBackend) symBase(reg) {}

// The C functions follow the s390x ELF ABI: the argument and the result in
// %r2, the return address in %r14; %r6 to %r15 are preserved, saved in the
// register save area the caller keeps at 0(%r15) (%r6 at 48), and so are
// %f8 to %f15, which the backend does not use.

// s390xSaveSlot is the offset of r in the register save area.
func s390xSaveSlot(r elfwriter.S390XReg) int64 { return 48 + 8*int64(r-elfwriter.GR6) }

func (b *s390xBackend) cEnter() {
	for r := elfwriter.GR6; r <= elfwriter.GR15; r++ {
		b.s.Store(8, r, 0, elfwriter.GR15, s390xSaveSlot(r))
	}
	b.enter()
}

// cReturn finds the caller's %r15 from its own, since the site may have
// taken %r12, which enter set to it.
func (b *s390xBackend) cReturn() {
	b.s.AddImm(elfwriter.GR15, s390xFrame)
	for r := elfwriter.GR6; r <= elfwriter.GR14; r++ {
		b.s.Load(8, r, 0, elfwriter.GR15, s390xSaveSlot(r))
	}
	b.s.Br(elfwriter.GR14)
}

func (b *s390xBackend) cCall(l elfwriter.Label) { b.s.Brasl(elfwriter.GR14, l) }
func (b *s390xBackend) kept(i int) reg          { return reg(elfwriter.GR6) + reg(i) }
func (b *s390xBackend) mov(d, s reg)            { b.s.Mov(gr(d), gr(s)) }
