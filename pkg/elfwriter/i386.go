package elfwriter

import (
	"encoding/binary"
	"fmt"
)

// I386 appends i386 instructions to the .text of a File whose Machine is
// EM_386. Registers are 32-bit; memory operands are base+displacement
// (always encoded with a 32-bit displacement). The machine has no
// PC-relative data addressing: Addr gets the address of data from the
// return address of a call, which works alike in an Exec and a PIE, and
// needs no relocations.
type I386 struct{ f *File }

// I386 returns the i386 assembler of f.
func (f *File) I386() *I386 { return &I386{f} }

// I386Reg is an i386 general-purpose register, numbered as in the
// instruction encoding.
type I386Reg uint8

const (
	EAX I386Reg = iota
	ECX
	EDX
	EBX
	ESP
	EBP
	ESI
	EDI
)

var i386Names = [8]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}

// Name returns the register's AT&T name, "%eax". sys/sdt.h has gcc name
// the 32-bit register whatever the size of the value it holds.
func (r I386Reg) Name() string { return "%" + i386Names[r&7] }

func (r I386Reg) String() string { return r.Name() }

func (a *I386) emit(b ...byte) { a.f.text = append(a.f.text, b...) }
func (a *I386) u32(v uint32)   { a.f.text = binary.LittleEndian.AppendUint32(a.f.text, v) }

func (a *I386) regReg(op []byte, reg, rm I386Reg) {
	a.emit(op...)
	a.emit(0xc0 | byte(reg&7)<<3 | byte(rm&7))
}

// mem emits op with a disp32(base) operand.
func (a *I386) mem(op []byte, reg, base I386Reg, disp int32) {
	a.emit(op...)
	a.emit(0x80 | byte(reg&7)<<3 | byte(base&7))
	if base&7 == ESP {
		a.emit(0x24)
	}
	a.u32(uint32(disp))
}

// MovImm emits mov $v, %r.
func (a *I386) MovImm(r I386Reg, v int32) {
	a.emit(0xb8 | byte(r&7))
	a.u32(uint32(v))
}

// Mov emits mov %src, %dst.
func (a *I386) Mov(src, dst I386Reg) { a.regReg([]byte{0x89}, src, dst) }

// Load emits the load of size bytes (1, 2 or 4, zero-extended) at
// disp(%base) into dst: movzbl, movzwl or mov.
func (a *I386) Load(size int, dst, base I386Reg, disp int32) {
	switch size {
	case 1:
		a.mem([]byte{0x0f, 0xb6}, dst, base, disp)
	case 2:
		a.mem([]byte{0x0f, 0xb7}, dst, base, disp)
	case 4:
		a.mem([]byte{0x8b}, dst, base, disp)
	default:
		panic(fmt.Sprintf("elfwriter: i386 load of %d bytes", size))
	}
}

// Store emits the store of the low size bytes (1, 2 or 4) of src at
// disp(%base): movb, movw or mov. Only %eax to %ebx have a low byte.
func (a *I386) Store(size int, src, base I386Reg, disp int32) {
	switch {
	case size == 1 && src <= EBX:
		a.mem([]byte{0x88}, src, base, disp)
	case size == 2:
		a.mem([]byte{0x66, 0x89}, src, base, disp)
	case size == 4:
		a.mem([]byte{0x89}, src, base, disp)
	default:
		panic(fmt.Sprintf("elfwriter: i386 store of %d bytes of %v", size, src))
	}
}

// AddImm emits add $v, %r.
func (a *I386) AddImm(r I386Reg, v int32) {
	a.regReg([]byte{0x81}, 0, r)
	a.u32(uint32(v))
}

// CmpImm emits cmp $v, %r.
func (a *I386) CmpImm(r I386Reg, v int32) {
	a.regReg([]byte{0x81}, 7, r)
	a.u32(uint32(v))
}

// MulImm emits imul $v, %r, %r.
func (a *I386) MulImm(r I386Reg, v int32) {
	a.regReg([]byte{0x69}, r, r)
	a.u32(uint32(v))
}

// Add emits add %src, %dst.
func (a *I386) Add(src, dst I386Reg) { a.regReg([]byte{0x01}, src, dst) }

// Sub emits sub %src, %dst.
func (a *I386) Sub(src, dst I386Reg) { a.regReg([]byte{0x29}, src, dst) }

// Cmp emits cmp %src, %dst, setting flags for dst-src.
func (a *I386) Cmp(src, dst I386Reg) { a.regReg([]byte{0x39}, src, dst) }

// Xor emits xor %src, %dst.
func (a *I386) Xor(src, dst I386Reg) { a.regReg([]byte{0x31}, src, dst) }

// Neg emits neg %r.
func (a *I386) Neg(r I386Reg) { a.regReg([]byte{0xf7}, 3, r) }

// Div emits div %src: unsigned %edx:%eax / src, quotient in %eax,
// remainder in %edx.
func (a *I386) Div(src I386Reg) { a.regReg([]byte{0xf7}, 6, src) }

// Sar emits sar $n, %r.
func (a *I386) Sar(r I386Reg, n uint8) {
	a.regReg([]byte{0xc1}, 7, r)
	a.emit(n)
}

// Jmp emits jmp target (rel32).
func (a *I386) Jmp(target Label) { a.emit(0xe9); a.f.rel32(target) }

// J emits a conditional jump to target (rel32); the conditions are those
// of x86-64.
func (a *I386) J(c Cond, target Label) { a.emit(0x0f, 0x80|byte(c)); a.f.rel32(target) }

// Call emits call target (rel32).
func (a *I386) Call(target Label) { a.emit(0xe8); a.f.rel32(target) }

// Ret emits ret.
func (a *I386) Ret() { a.emit(0xc3) }

// Int80 emits int $0x80, the system call: number in %eax, arguments in
// %ebx, %ecx, %edx, result in %eax.
func (a *I386) Int80() { a.emit(0xcd, 0x80) }

// Nop emits nop, the instruction of a probe site, and returns its Label.
func (a *I386) Nop() Label { return a.f.Nop() }

// Addr emits call 1f; 1: pop %r; add $target+addend-1b, %r: the address
// of target+addend, from the return address the call pushes. It uses 4
// bytes of stack below %esp.
func (a *I386) Addr(r I386Reg, target Label, addend int64) {
	a.emit(0xe8, 0, 0, 0, 0)
	next := len(a.f.text)
	a.emit(0x58 | byte(r&7))
	a.regReg([]byte{0x81}, 0, r)
	off := len(a.f.text)
	a.u32(0)
	a.f.fixups = append(a.f.fixups, fixup{off: off, end: next, target: target, addend: addend})
}

// Fild emits fildl disp(%base): the 32-bit integer there onto the x87
// stack.
func (a *I386) Fild(base I386Reg, disp int32) { a.mem([]byte{0xdb}, 0, base, disp) }

// Fidiv emits fidivl disp(%base): st(0) divided by the 32-bit integer
// there.
func (a *I386) Fidiv(base I386Reg, disp int32) { a.mem([]byte{0xda}, 6, base, disp) }

// Fstp emits fstps (size 4) or fstpl (size 8) disp(%base): st(0) stored
// as a float or double, and popped.
func (a *I386) Fstp(size int, base I386Reg, disp int32) {
	switch size {
	case 4:
		a.mem([]byte{0xd9}, 3, base, disp)
	case 8:
		a.mem([]byte{0xdd}, 3, base, disp)
	default:
		panic(fmt.Sprintf("elfwriter: i386 fstp of %d bytes", size))
	}
}
