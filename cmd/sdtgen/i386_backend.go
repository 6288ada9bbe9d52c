package main

import (
	"fmt"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// i386Backend emits i386 code. %eax is tmp, and holds the system call
// number and the dividend; %ebp keeps the initial stack pointer and is
// the frame pointer. Floating-point values are computed on the x87 stack
// through a scratch area 256 bytes above %esp.
type i386Backend struct {
	a   *elfwriter.I386
	pic bool            // a PIE or a shared object
	got elfwriter.Label // _GLOBAL_OFFSET_TABLE_, in PIC code
}

// newI386Backend defines _GLOBAL_OFFSET_TABLE_ in PIC code, as every
// such file has it: operands of globals count from it.
func newI386Backend(f *elfwriter.File) backend {
	b := &i386Backend{a: f.I386(), pic: f.Type != elfwriter.Exec}
	if b.pic {
		b.got = f.Data("_GLOBAL_OFFSET_TABLE_", make([]byte, 12), 4)
	}
	return b
}

const i386FloatScratch = 256

func er(r reg) elfwriter.I386Reg { return elfwriter.I386Reg(r) }

var i386Temps = [4]elfwriter.I386Reg{elfwriter.EBX, elfwriter.ECX, elfwriter.EDX, elfwriter.ESI}

func (b *i386Backend) wordSize() int    { return 4 }
func (b *i386Backend) charSigned() bool { return true }
func (b *i386Backend) dataAlign() int   { return 1 }
func (b *i386Backend) t(i int) reg      { return reg(i386Temps[i]) }
func (b *i386Backend) tmp() reg         { return reg(elfwriter.EAX) }

func (b *i386Backend) enter() {
	b.a.Mov(elfwriter.ESP, elfwriter.EBP)
	b.a.AddImm(elfwriter.ESP, -frameSize)
}

func (b *i386Backend) argc(r reg)        { b.a.Load(4, er(r), elfwriter.EBP, 0) }
func (b *i386Backend) argv(r reg, i int) { b.a.Load(4, er(r), elfwriter.EBP, int32(4+4*i)) }

func (b *i386Backend) imm(r reg, v int64) { b.a.MovImm(er(r), int32(v)) }
func (b *i386Backend) addr(r reg, l elfwriter.Label, off int64) {
	b.a.Addr(er(r), l, off)
}
func (b *i386Backend) load(size int, r, base reg, off int64) {
	b.a.Load(size, er(r), er(base), int32(off))
}
func (b *i386Backend) store(size int, r, base reg, off int64) {
	b.a.Store(size, er(r), er(base), int32(off))
}
func (b *i386Backend) addImm(r reg, v int64) { b.a.AddImm(er(r), int32(v)) }
func (b *i386Backend) mulImm(r reg, v int64) { b.a.MulImm(er(r), int32(v)) }
func (b *i386Backend) add(d, s reg)          { b.a.Add(er(s), er(d)) }
func (b *i386Backend) sub(d, s reg)          { b.a.Sub(er(s), er(d)) }
func (b *i386Backend) neg(r reg)             { b.a.Neg(er(r)) }

// divu divides %edx:%eax by d, which is neither.
func (b *i386Backend) divu(q, rem, d reg) {
	b.a.Mov(er(q), elfwriter.EAX)
	b.a.Xor(elfwriter.EDX, elfwriter.EDX)
	b.a.Div(er(d))
	b.a.Mov(elfwriter.EAX, er(q))
	if er(rem) != elfwriter.EDX {
		b.a.Mov(elfwriter.EDX, er(rem))
	}
}

var i386Conds = map[cond]elfwriter.Cond{
	condEQ: elfwriter.CondE, condNE: elfwriter.CondNE, condLO: elfwriter.CondB,
	condHS: elfwriter.CondAE, condHI: elfwriter.CondA,
}

func (b *i386Backend) brImm(c cond, r reg, v int64, l elfwriter.Label) {
	b.a.CmpImm(er(r), int32(v))
	b.a.J(i386Conds[c], l)
}

func (b *i386Backend) br(c cond, r, s reg, l elfwriter.Label) {
	b.a.Cmp(er(s), er(r))
	b.a.J(i386Conds[c], l)
}

func (b *i386Backend) jmp(l elfwriter.Label)  { b.a.Jmp(l) }
func (b *i386Backend) call(l elfwriter.Label) { b.a.Call(l) }
func (b *i386Backend) ret()                   { b.a.Ret() }

var i386Syscalls = map[sysno]int32{sysWrite: 4, sysNanosleep: 162, sysExitGroup: 252}

func (b *i386Backend) syscall(n sysno) {
	b.a.MovImm(elfwriter.EAX, i386Syscalls[n])
	b.a.Int80()
}

// form keeps rip, a global: in an executable the bare symbol, absolute;
// in a PIE or a shared object relative to the GOT, sym@GOTOFF(%ebx), as
// gcc writes them. A floating-point argument whose turn is reg or float
// takes mem: gcc keeps floating-point values on i386 in memory (the x87
// registers are a stack no note names).
func (b *i386Backend) form(f form, a argType, typ elfwriter.Type) form {
	if a.float && (f == formReg || f == formFloat) {
		return formMem
	}
	return f
}

// pool lists the registers in gcc's order, in which an 8-byte value's
// high half is in the register after its low half's.
func (b *i386Backend) pool() []reg {
	return []reg{reg(elfwriter.EAX), reg(elfwriter.EDX), reg(elfwriter.ECX), reg(elfwriter.EBX), reg(elfwriter.ESI), reg(elfwriter.EDI)}
}

func (b *i386Backend) pair(r reg) (reg, bool) {
	p := b.pool()
	for i, q := range p[:len(p)-1] {
		if q == r {
			return p[i+1], true
		}
	}
	return 0, false
}

func (b *i386Backend) sibIndexPerArg() bool { return false }
func (b *i386Backend) sibScale(i int) int   { return sibScales[i%len(sibScales)] }

func (b *i386Backend) memSlot(i int) (reg, int64) {
	if i%2 == 1 {
		return reg(elfwriter.ESP), int64(8 * i)
	}
	return reg(elfwriter.EBP), int64(-8 * (i + 1))
}

// highHalf extends the low word: the values fit 32 bits.
func (b *i386Backend) highHalf(hi, lo reg, signed bool) {
	if !signed {
		b.imm(hi, 0)
		return
	}
	b.a.Mov(er(lo), er(hi))
	b.a.Sar(er(hi), 31)
}

// storeInt stores an 8-byte value as two words, the low one first.
func (b *i386Backend) storeInt(r reg, a argType, base reg, disp int64) {
	if a.size <= 4 {
		b.store(a.size, r, base, disp)
		return
	}
	b.store(4, r, base, disp)
	b.highHalf(r, r, a.signed)
	b.store(4, r, base, disp+4)
}

// storeFloat computes -(2*(k*1000+i)+1)/2 on the x87 stack, exactly, and
// stores it at disp(base).
func (b *i386Backend) storeFloat(a argType, i int, base reg, disp int64, k1000 elfwriter.Label) {
	t := b.tmp()
	placeInt(b, t, argType{size: 4}, i, k1000)
	b.add(t, t)
	b.addImm(t, 1)
	b.neg(t)
	b.store(4, t, reg(elfwriter.ESP), i386FloatScratch)
	b.imm(t, 2)
	b.store(4, t, reg(elfwriter.ESP), i386FloatScratch+4)
	b.a.Fild(elfwriter.ESP, i386FloatScratch)
	b.a.Fidiv(elfwriter.ESP, i386FloatScratch+4)
	b.a.Fstp(a.size, er(base), int32(disp))
}

func (b *i386Backend) floatBits(r reg, a argType, i int, k1000 elfwriter.Label) {
	panic("sdtgen: i386 floating-point arguments live in memory")
}

func (b *i386Backend) floatReg(a argType, i int, k1000 elfwriter.Label) string {
	panic("sdtgen: i386 floating-point arguments live in memory")
}

// regOperand names the 32-bit register whatever the argument's size, as
// sys/sdt.h has gcc do (%k); an 8-byte value's high half is in pair(r).
func (b *i386Backend) regOperand(r reg, a argType) string { return er(r).Name() }

func (b *i386Backend) memOperand(base reg, disp int64) string {
	return offset(int32(disp)) + "(" + er(base).Name() + ")"
}

func (b *i386Backend) sibOperand(base, index reg, disp int64, scale int) string {
	if scale == 1 {
		return fmt.Sprintf("%s(%s,%s)", offset(int32(disp)), er(base).Name(), er(index).Name())
	}
	return fmt.Sprintf("%s(%s,%s,%d)", offset(int32(disp)), er(base).Name(), er(index).Name(), scale)
}

func (b *i386Backend) immOperand(v int64) string { return "$" + strconv.FormatInt(v, 10) }

// symOperand writes a global as gcc does: in an executable the bare
// symbol, absolute, sym or sym+8; in PIC code relative to the GOT, whose
// address symBase leaves in base, sym@GOTOFF(%ebx) or 8+sym@GOTOFF(%ebx).
func (b *i386Backend) symOperand(sym string, off int64, base reg) string {
	if b.pic {
		s := sym + "@GOTOFF(" + er(base).Name() + ")"
		if off != 0 {
			s = strconv.FormatInt(off, 10) + "+" + s
		}
		return s
	}
	if off == 0 {
		return sym
	}
	return sym + "+" + strconv.FormatInt(off, 10)
}

// symBase loads the address of the GOT into base in PIC code, as the
// code around a probe that gcc compiles with -fpic has it in %ebx.
func (b *i386Backend) symBase(base reg) {
	if b.pic {
		b.a.Addr(er(base), b.got, 0)
	}
}

// The C functions follow the i386 System V ABI (cdecl): the argument at
// 4(%esp), the result in %eax; %ebx, %esi, %edi and %ebp are preserved.

// i386Saved are the registers cEnter saves, in turn from %esp up.
var i386Saved = []elfwriter.I386Reg{elfwriter.EBP, elfwriter.EBX, elfwriter.ESI, elfwriter.EDI}

const i386SaveArea = 4 * 4

// cEnter loads the argument from above the save area and the return
// address.
func (b *i386Backend) cEnter() {
	b.a.AddImm(elfwriter.ESP, -i386SaveArea)
	for i, r := range i386Saved {
		b.a.Store(4, r, elfwriter.ESP, int32(4*i))
	}
	b.enter()
	b.a.Load(4, er(b.t(0)), elfwriter.EBP, i386SaveArea+4)
}

func (b *i386Backend) cReturn() {
	b.a.Mov(er(b.t(0)), elfwriter.EAX)
	b.a.Mov(elfwriter.EBP, elfwriter.ESP)
	for i, r := range i386Saved {
		b.a.Load(4, r, elfwriter.ESP, int32(4*i))
	}
	b.a.AddImm(elfwriter.ESP, i386SaveArea)
	b.a.Ret()
}

// cCall passes the argument at 0(%esp), where no mem operand lives.
func (b *i386Backend) cCall(l elfwriter.Label) {
	b.a.Store(4, er(b.t(0)), elfwriter.ESP, 0)
	b.a.Call(l)
	b.a.Mov(elfwriter.EAX, er(b.t(0)))
}

// i386Kept are the registers kept returns.
var i386Kept = [2]elfwriter.I386Reg{elfwriter.EDI, elfwriter.ESI}

func (b *i386Backend) kept(i int) reg { return reg(i386Kept[i]) }
func (b *i386Backend) mov(d, s reg)   { b.a.Mov(er(s), er(d)) }
