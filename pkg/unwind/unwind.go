package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrNotSupported is returned for a machine Unwind does not know.
var ErrNotSupported = errors.New("not supported")

// Regs are the registers an unwind starts from, those of the thread at
// the probe.
type Regs struct {
	PC uint64 // x86-64 rip
	SP uint64 // x86-64 rsp
	FP uint64 // the frame pointer: x86-64 rbp, arm64 x29
	LR uint64 // arm64 x30, the link register; 0 on x86-64
}

// A Stack is the top of a thread's user stack, copied at the probe.
type Stack struct {
	Regs
	// Bytes is the memory of the stack from Regs.SP up.
	Bytes []byte
}

// A Mapper gives the Table of the code at a run-time address, and the
// bias of its mapping: the link-time address is the run-time address
// minus bias.
type Mapper interface {
	Lookup(pc uint64) (t *Table, bias uint64, ok bool)
}

// An arch numbers the registers of a machine as DWARF does.
type arch struct {
	sp, fp, lr int   // lr -1 where there is none
	volatile   []int // not preserved across a call: unknown in a caller
	raMask     uint64
}

var (
	amd64 = &arch{sp: 7, fp: 6, lr: -1, volatile: []int{0, 1, 2, 4, 5, 8, 9, 10, 11}, raMask: ^uint64(0)}
	// Return addresses signed with pointer authentication carry the
	// signature above the 48 bits of a user address; they are
	// stripped, as the kernel's unwinder does.
	arm64 = &arch{sp: 31, fp: 29, lr: 30, volatile: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, raMask: 1<<48 - 1}
)

func archOf(m elf.Machine) (*arch, error) {
	switch m {
	case elf.EM_X86_64:
		return amd64, nil
	case elf.EM_AARCH64:
		return arm64, nil
	}
	return nil, fmt.Errorf("unwind: %v: %w", m, ErrNotSupported)
}

// regState holds the registers known in one frame.
type regState struct {
	v     [MaxReg + 1]uint64
	known uint64 // bit i: v[i] is known
}

func (s *regState) get(reg uint64) (uint64, bool) {
	if reg > MaxReg || s.known&(1<<reg) == 0 {
		return 0, false
	}
	return s.v[reg], true
}

func (s *regState) set(reg int, v uint64) {
	s.v[reg] = v
	s.known |= 1 << reg
}

// Unwind appends to dst the return addresses of the stack st, innermost
// first, starting with the address of the probe itself, st.PC, and
// returns it, with at most max addresses in all. Each frame is unwound
// by the rules of the FDE that covers it, in the Table tables give; a
// frame that none covers by its frame pointer (a frame record: the
// caller's frame pointer, then the return address). The unwind ends at
// the outermost frame (a return address the CFI leaves undefined, or
// 0), where the copy of the stack ends, and where a step would not
// climb the stack.
func Unwind(dst []uint64, m elf.Machine, st *Stack, tables Mapper, max int) ([]uint64, error) {
	a, err := archOf(m)
	if err != nil {
		return dst, err
	}
	mem := func(addr uint64) (uint64, bool) {
		off := addr - st.SP
		if addr < st.SP || off+8 > uint64(len(st.Bytes)) || off+8 < off {
			return 0, false
		}
		return binary.LittleEndian.Uint64(st.Bytes[off:]), true
	}
	var regs regState
	regs.set(a.sp, st.SP)
	regs.set(a.fp, st.FP)
	if a.lr >= 0 {
		regs.set(a.lr, st.LR)
	}
	pc := st.PC
	for n := 0; n < max; n++ {
		dst = append(dst, pc)
		// A return address follows the call: the call itself, which
		// may be the last instruction of its function (a call of a
		// noreturn function), lies before it.
		lookup := pc
		if n > 0 {
			lookup--
		}
		sp, _ := regs.get(uint64(a.sp))
		next, ra, ok := step(a, &regs, lookup, tables, mem)
		if !ok || ra == 0 {
			break
		}
		nsp, _ := next.get(uint64(a.sp))
		if nsp < sp || nsp == sp && n > 0 {
			// Not climbing: a loop, or garbage. (Only the innermost
			// frame may have no frame of its own, on arm64, its return
			// address in the link register.)
			break
		}
		regs, pc = next, ra&a.raMask
	}
	return dst, nil
}

// step unwinds one frame, at pc, whose registers are regs: it returns
// the caller's registers and its return address, and false at the
// outermost frame or where the frame cannot be unwound.
func step(a *arch, regs *regState, pc uint64, tables Mapper, mem func(uint64) (uint64, bool)) (regState, uint64, bool) {
	if t, bias, ok := tables.Lookup(pc); ok {
		row, err := t.row(pc - bias)
		if err == nil {
			next, ra, ok, undefined := applyRow(a, row, regs, mem)
			if ok || undefined {
				return next, ra, ok
			}
			// The rules name what was not copied: try the frame pointer.
		} else if !errors.Is(err, ErrNoFDE) {
			return regState{}, 0, false
		}
	}
	return framePointer(a, regs, mem)
}

// applyRow recovers the caller's registers by the rules of row. It
// reports undefined for the outermost frame, whose return address the
// rules leave undefined.
func applyRow(a *arch, row *Row, regs *regState, mem func(uint64) (uint64, bool)) (next regState, ra uint64, ok, undefined bool) {
	var cfa uint64
	switch row.CFA.Kind {
	case CFARegOffset:
		v, known := regs.get(row.CFA.Reg)
		if !known {
			return next, 0, false, false
		}
		cfa = v + uint64(row.CFA.Off)
	case CFAExpression:
		v, err := eval(row.CFA.Expr, binary.LittleEndian, regs, mem, 0, false)
		if err != nil {
			return next, 0, false, false
		}
		cfa = v
	default:
		return next, 0, false, false
	}
	next = *regs
	for _, r := range a.volatile {
		next.known &^= 1 << r
	}
	for reg := range row.Regs {
		rule := &row.Regs[reg]
		var v uint64
		switch rule.Kind {
		case Unspecified, SameValue:
			continue
		case Undefined:
			next.known &^= 1 << reg
			continue
		case Offset:
			var readable bool
			if v, readable = mem(cfa + uint64(rule.Off)); !readable {
				next.known &^= 1 << reg
				continue
			}
		case ValOffset:
			v = cfa + uint64(rule.Off)
		case Register:
			var known bool
			if v, known = regs.get(rule.Reg); !known {
				next.known &^= 1 << reg
				continue
			}
		case Expression, ValExpression:
			x, err := eval(rule.Expr, binary.LittleEndian, regs, mem, cfa, true)
			if err == nil && rule.Kind == Expression {
				x, err = memErr(mem, x)
			}
			if err != nil {
				next.known &^= 1 << reg
				continue
			}
			v = x
		}
		next.set(reg, v)
	}
	if row.Regs[a.sp].Kind == Unspecified || row.Regs[a.sp].Kind == SameValue {
		next.set(a.sp, cfa)
	}
	if row.RA > MaxReg || row.Regs[row.RA].Kind == Undefined {
		return next, 0, false, true
	}
	ra, known := next.get(row.RA)
	if !known {
		return next, 0, false, false
	}
	return next, ra, true, false
}

func memErr(mem func(uint64) (uint64, bool), addr uint64) (uint64, error) {
	v, ok := mem(addr)
	if !ok {
		return 0, fmt.Errorf("%w: %#x not in the stack copied", errExpr, addr)
	}
	return v, nil
}

// framePointer unwinds a frame by its frame record, at the frame
// pointer: the caller's frame pointer, then the return address, on
// x86-64 and arm64 alike.
func framePointer(a *arch, regs *regState, mem func(uint64) (uint64, bool)) (regState, uint64, bool) {
	fp, known := regs.get(uint64(a.fp))
	if !known || fp == 0 {
		return regState{}, 0, false
	}
	callerFP, ok1 := mem(fp)
	ra, ok2 := mem(fp + 8)
	if !ok1 || !ok2 {
		return regState{}, 0, false
	}
	var next regState
	next.set(a.fp, callerFP)
	next.set(a.sp, fp+16)
	return next, ra, true
}
