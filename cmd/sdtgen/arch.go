package main

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// An arch is a machine sdtgen writes programs for, named as --arch names
// it (Go's GOARCH).
type arch string

// arches are the values of --arch; doc.go describes each.
var arches = []arch{"amd64", "arm64", "386", "s390x"}

func parseArch(s string) (arch, error) {
	for _, a := range arches {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(arches))
	for i, a := range arches {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown architecture %q, want one of %s", s, strings.Join(names, ", "))
}

// machine returns the ELF machine of a's programs.
func (a arch) machine() elf.Machine {
	switch a {
	case "arm64":
		return elf.EM_AARCH64
	case "386":
		return elf.EM_386
	case "s390x":
		return elf.EM_S390
	}
	return elf.EM_X86_64
}

// machineName returns the manifest's name of a's machine, as binutils
// and sys/sdt.h name it.
func (a arch) machineName() string {
	switch a {
	case "arm64":
		return "aarch64"
	case "386":
		return "i386"
	case "s390x":
		return "s390x"
	}
	return "x86-64"
}

// newBackend returns the code emitter of a, which is not amd64, for f.
func (a arch) newBackend(f *elfwriter.File) backend {
	switch a {
	case "arm64":
		return newARM64Backend(f)
	case "s390x":
		return newS390XBackend(f)
	case "386":
		return newI386Backend(f)
	}
	panic("sdtgen: no backend for " + string(a))
}

// A reg is a register of a backend's machine, numbered as its assembler
// in pkg/elfwriter numbers it.
type reg uint8

// A cond is the condition of a branch, on unsigned values.
type cond int

const (
	condEQ cond = iota
	condNE
	condLO // unsigned lower
	condHS // unsigned higher or same
	condHI // unsigned higher
)

// A sysno is a system call the programs make; each backend knows its
// number.
type sysno int

const (
	sysWrite sysno = iota
	sysNanosleep
	sysExitGroup
)

// A backend emits the code of one machine for an archGen: the few
// operations of the program's skeleton, and the placement of probe
// arguments with the operand syntax gcc writes on the machine.
//
// The skeleton works in the scratch registers t(0) to t(3): a system call
// takes its arguments in t(0) to t(2). tmp is a further register that
// address computations and argument values may use; it is in none of the
// pools.
type backend interface {
	// wordSize is the size of a pointer, and of the program's counters.
	wordSize() int
	// charSigned reports whether plain char is signed.
	charSigned() bool
	// dataAlign is the least alignment of data that code addresses.
	dataAlign() int
	t(i int) reg
	tmp() reg

	// enter starts _start: it keeps the initial stack pointer for argc
	// and argv, and sets up a frame for mem operands.
	enter()
	argc(r reg)
	argv(r reg, i int)

	imm(r reg, v int64)
	addr(r reg, l elfwriter.Label, off int64)
	load(size int, r, base reg, off int64) // zero-extending
	store(size int, r, base reg, off int64)
	addImm(r reg, v int64)
	mulImm(r reg, v int64)
	add(d, s reg)
	sub(d, s reg)
	neg(r reg)
	// divu sets q to q/d and rem to q%d, unsigned.
	divu(q, rem, d reg)
	brImm(c cond, r reg, v int64, l elfwriter.Label)
	br(c cond, a, b reg, l elfwriter.Label)
	jmp(l elfwriter.Label)
	call(l elfwriter.Label)
	ret()
	syscall(n sysno)

	// form returns the form an argument of type a whose turn is f (after
	// form.forArg) takes on the machine, in a file of type typ.
	form(f form, a argType, typ elfwriter.Type) form
	// pool returns the registers reg arguments take, in turn.
	pool() []reg
	// sibIndexPerArg reports whether each sib argument needs its own index
	// register, the machine having no displacement with an index.
	sibIndexPerArg() bool
	// pair returns the register holding the high half of an 8-byte value
	// whose low half is in r, on a machine with 4-byte registers.
	pair(r reg) (reg, bool)
	// memSlot returns where mem argument i lives.
	memSlot(i int) (base reg, disp int64)

	// highHalf sets hi to the high word of the 8-byte value whose low
	// word is in lo, on a 4-byte machine.
	highHalf(hi, lo reg, signed bool)
	// storeInt stores integer or string argument a, whose value placeInt
	// or addr left in r, at disp(base).
	storeInt(r reg, a argType, base reg, disp int64)
	// storeFloat stores floating-point argument i at disp(base).
	storeFloat(a argType, i int, base reg, disp int64, k1000 elfwriter.Label)
	// floatBits loads the bits of floating-point argument i into r.
	floatBits(r reg, a argType, i int, k1000 elfwriter.Label)
	// floatReg loads floating-point argument i into the machine's
	// floating-point register for argument i and returns its operand.
	floatReg(a argType, i int, k1000 elfwriter.Label) string

	regOperand(r reg, a argType) string
	memOperand(base reg, disp int64) string
	sibOperand(base, index reg, disp int64, scale int) string
	immOperand(v int64) string
	// symOperand writes the operand of the global sym+off, through base
	// when the machine's operand has one.
	symOperand(sym string, off int64, base reg) string
	// symBase makes base, which held the address of the site's global
	// area while its arguments were stored there, what symOperand's
	// operand counts from, just before the nop: the GOT in i386 PIC code.
	symBase(base reg)
	// sibScale returns the scale of sib argument i.
	sibScale(i int) int

	// The functions of a shared object follow the machine's C calling
	// convention.

	// cEnter starts a function that C calls: it saves the registers the
	// ABI has a function preserve, sets up a frame for mem operands as
	// enter does, and leaves the function's first argument in t(0).
	cEnter()
	// cReturn returns t(0) from a function cEnter started, restoring
	// what cEnter saved.
	cReturn()
	// cCall calls the function at l, which cEnter started, with argument
	// t(0), and leaves its result in t(0).
	cCall(l elfwriter.Label)
	// kept returns callee-saved register i (0 or 1), other than t(0) and
	// tmp: a value there survives cCall.
	kept(i int) reg
	// mov sets d to s.
	mov(d, s reg)
}

// placeInt loads the value of integer argument i into r, from the
// iteration's k*1000 at k1000: the low word of an 8-byte value on a
// 4-byte machine.
func placeInt(b backend, r reg, a argType, i int, k1000 elfwriter.Label) {
	b.addr(r, k1000, 0)
	b.load(b.wordSize(), r, r, 0)
	if i != 0 {
		b.addImm(r, int64(i))
	}
	if a.signed {
		b.neg(r)
	}
}
