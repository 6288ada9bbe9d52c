package main

import (
	"encoding/binary"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// arm64Backend emits aarch64 code. x16 is tmp and x17 a scratch register
// of the backend's own; x29 is the frame pointer, v30 and v31 hold
// floating-point intermediates.
type arm64Backend struct {
	f *elfwriter.File
	a *elfwriter.ARM64
}

func newARM64Backend(f *elfwriter.File) backend { return &arm64Backend{f, f.ARM64()} }

const a64Scratch = elfwriter.X17

func x(r reg) elfwriter.ARM64Reg { return elfwriter.ARM64Reg(r) }

func (b *arm64Backend) wordSize() int    { return 8 }
func (b *arm64Backend) charSigned() bool { return false }
func (b *arm64Backend) dataAlign() int   { return 1 }
func (b *arm64Backend) t(i int) reg      { return reg(elfwriter.X0) + reg(i) }
func (b *arm64Backend) tmp() reg         { return reg(elfwriter.X16) }

func (b *arm64Backend) enter() {
	b.a.Mov(elfwriter.X29, elfwriter.SP)
	b.a.AddImm(elfwriter.SP, elfwriter.SP, -frameSize)
}

func (b *arm64Backend) argc(r reg)         { b.a.Ldr(8, x(r), elfwriter.X29, 0) }
func (b *arm64Backend) argv(r reg, i int)  { b.a.Ldr(8, x(r), elfwriter.X29, int64(8+8*i)) }
func (b *arm64Backend) imm(r reg, v int64) { b.a.MovImm(x(r), v) }
func (b *arm64Backend) addr(r reg, l elfwriter.Label, off int64) {
	b.a.Adr(x(r), l, off)
}
func (b *arm64Backend) load(size int, r, base reg, off int64) { b.a.Ldr(size, x(r), x(base), off) }
func (b *arm64Backend) store(size int, r, base reg, off int64) {
	b.a.Str(size, x(r), x(base), off)
}

func (b *arm64Backend) addImm(r reg, v int64) {
	if v > -1<<12 && v < 1<<12 {
		b.a.AddImm(x(r), x(r), v)
		return
	}
	b.a.MovImm(a64Scratch, v)
	b.a.Add(x(r), x(r), a64Scratch)
}

func (b *arm64Backend) mulImm(r reg, v int64) {
	b.a.MovImm(a64Scratch, v)
	b.a.Mul(x(r), x(r), a64Scratch)
}

func (b *arm64Backend) add(d, s reg) { b.a.Add(x(d), x(d), x(s)) }
func (b *arm64Backend) sub(d, s reg) { b.a.Sub(x(d), x(d), x(s)) }
func (b *arm64Backend) neg(r reg)    { b.a.Neg(x(r), x(r)) }

func (b *arm64Backend) divu(q, rem, d reg) {
	b.a.Udiv(a64Scratch, x(q), x(d))
	b.a.Msub(x(rem), a64Scratch, x(d), x(q))
	b.a.Mov(x(q), a64Scratch)
}

var a64Conds = map[cond]elfwriter.ARM64Cond{
	condEQ: elfwriter.ARM64EQ, condNE: elfwriter.ARM64NE, condLO: elfwriter.ARM64LO,
	condHS: elfwriter.ARM64HS, condHI: elfwriter.ARM64HI,
}

func (b *arm64Backend) brImm(c cond, r reg, v int64, l elfwriter.Label) {
	switch {
	case v == 0 && c == condEQ:
		b.a.Cbz(x(r), l)
	case v == 0 && c == condNE:
		b.a.Cbnz(x(r), l)
	default:
		b.a.CmpImm(x(r), v)
		b.a.BCond(a64Conds[c], l)
	}
}

func (b *arm64Backend) br(c cond, r, s reg, l elfwriter.Label) {
	b.a.Cmp(x(r), x(s))
	b.a.BCond(a64Conds[c], l)
}

func (b *arm64Backend) jmp(l elfwriter.Label)  { b.a.B(l) }
func (b *arm64Backend) call(l elfwriter.Label) { b.a.Bl(l) }
func (b *arm64Backend) ret()                   { b.a.Ret() }

// a64Syscalls are the system call numbers of the generic Linux table.
var a64Syscalls = map[sysno]int64{sysWrite: 64, sysNanosleep: 101, sysExitGroup: 94}

func (b *arm64Backend) syscall(n sysno) {
	b.a.MovImm(elfwriter.X8, a64Syscalls[n])
	b.a.Svc()
}

// form maps rip to mem: aarch64 operands name no symbol (gcc writes a
// global as [x1, #:lo12:sym], a relocation the note does not resolve).
func (b *arm64Backend) form(f form, a argType, typ elfwriter.Type) form {
	if f == formRIP {
		return formMem
	}
	return f
}

func (b *arm64Backend) pool() []reg {
	var p []reg
	for r := elfwriter.X0; r <= elfwriter.X15; r++ {
		p = append(p, reg(r))
	}
	for r := elfwriter.X19; r <= elfwriter.X28; r++ {
		p = append(p, reg(r))
	}
	return p
}

// sibIndexPerArg: [xB, xI] has no displacement, so each argument needs
// its own index.
func (b *arm64Backend) sibIndexPerArg() bool   { return true }
func (b *arm64Backend) pair(r reg) (reg, bool) { return 0, false }
func (b *arm64Backend) sibScale(i int) int     { return 1 }

func (b *arm64Backend) memSlot(i int) (reg, int64) {
	if i%2 == 1 {
		return reg(elfwriter.SP), int64(8 * i)
	}
	return reg(elfwriter.X29), int64(-8 * (i + 1))
}

func (b *arm64Backend) highHalf(hi, lo reg, signed bool) {}

func (b *arm64Backend) storeInt(r reg, a argType, base reg, disp int64) {
	b.store(a.size, r, base, disp)
}

// float computes floating-point argument i into v: the integer
// -(2*(k*1000+i)+1), converted, times 0.5, so that every step is exact.
func (b *arm64Backend) float(v elfwriter.ARM64VReg, a argType, i int, k1000 elfwriter.Label) {
	placeInt(b, reg(a64Scratch), argType{size: 8}, i, k1000)
	b.a.Add(a64Scratch, a64Scratch, a64Scratch)
	b.a.AddImm(a64Scratch, a64Scratch, 1)
	b.a.Neg(a64Scratch, a64Scratch)
	b.a.Scvtf(a.size, v, a64Scratch)
	b.a.FmovImm(a.size, 30, 0.5)
	b.a.Fmul(a.size, v, v, 30)
}

func (b *arm64Backend) floatBits(r reg, a argType, i int, k1000 elfwriter.Label) {
	b.float(31, a, i, k1000)
	b.a.FmovToX(a.size, x(r), 31)
}

func (b *arm64Backend) storeFloat(a argType, i int, base reg, disp int64, k1000 elfwriter.Label) {
	b.floatBits(reg(a64Scratch), a, i, k1000)
	b.a.Str(a.size, a64Scratch, x(base), disp)
}

// floatReg puts argument i in v<i>, as gcc names it for the norx
// constraint.
func (b *arm64Backend) floatReg(a argType, i int, k1000 elfwriter.Label) string {
	v := elfwriter.ARM64VReg(i)
	b.float(v, a, i, k1000)
	return v.Name()
}

// regOperand names the x register whatever the argument's size, as gcc
// does.
func (b *arm64Backend) regOperand(r reg, a argType) string { return x(r).Name() }

func (b *arm64Backend) memOperand(base reg, disp int64) string {
	if disp == 0 {
		return "[" + x(base).Name() + "]"
	}
	return "[" + x(base).Name() + ", " + strconv.FormatInt(disp, 10) + "]"
}

func (b *arm64Backend) sibOperand(base, index reg, disp int64, scale int) string {
	return "[" + x(base).Name() + ", " + x(index).Name() + "]"
}

func (b *arm64Backend) immOperand(v int64) string { return strconv.FormatInt(v, 10) }

func (b *arm64Backend) symOperand(sym string, off int64, base reg) string {
	panic("sdtgen: aarch64 operands name no symbol")
}

func (b *arm64Backend) symBase(reg) {}

// The C functions follow AAPCS64: the argument and the result in x0, the
// return address in x30; x19 to x28, x29, sp and the low 8 bytes of v8 to
// v15 (which float arguments 8 and up take) are preserved.

// a64SaveArea is what cEnter saves below the caller's sp: x29 and x30 at
// the bottom, the frame record x29 then points to, x19 to x28, and d8 to
// d15; sp stays a multiple of 16.
const a64SaveArea = 8 * (2 + 10 + 8)

// a64SavedFP is the offset of d8 in the save area.
const a64SavedFP = 8 * (2 + 10)

func (b *arm64Backend) cEnter() {
	b.a.AddImm(elfwriter.SP, elfwriter.SP, -a64SaveArea)
	b.saveArea(b.a.Str, true)
	b.enter()
}

func (b *arm64Backend) cReturn() {
	b.a.Mov(elfwriter.SP, elfwriter.X29)
	b.saveArea(b.a.Ldr, false)
	b.a.AddImm(elfwriter.SP, elfwriter.SP, a64SaveArea)
	b.a.Ret()
}

// saveArea stores the preserved registers into the save area at sp, or
// loads them back, with op (Str or Ldr).
func (b *arm64Backend) saveArea(op func(size int, t, n elfwriter.ARM64Reg, off int64), store bool) {
	op(8, elfwriter.X29, elfwriter.SP, 0)
	op(8, elfwriter.X30, elfwriter.SP, 8)
	for r := elfwriter.X19; r <= elfwriter.X28; r++ {
		op(8, r, elfwriter.SP, int64(16+8*(r-elfwriter.X19)))
	}
	for v := 8; v <= 15; v++ {
		b.fpSlot(store, v, int64(a64SavedFP+8*(v-8)))
	}
}

// fpSlot emits str dV, [sp, off] (or ldr when store is false), which the
// assembler lacks: the low 8 bytes of vV, at an offset that is a multiple
// of 8.
func (b *arm64Backend) fpSlot(store bool, v int, off int64) {
	w := 0xfd000000 | uint32(off/8)<<10 | uint32(elfwriter.SP)<<5 | uint32(v)
	if !store {
		w |= 1 << 22
	}
	b.f.Raw(binary.LittleEndian.AppendUint32(nil, w)...)
}

func (b *arm64Backend) cCall(l elfwriter.Label) { b.a.Bl(l) }
func (b *arm64Backend) kept(i int) reg          { return reg(elfwriter.X19) + reg(i) }
func (b *arm64Backend) mov(d, s reg)            { b.a.Mov(x(d), x(s)) }
