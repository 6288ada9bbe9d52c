package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxExprSteps bounds the operations an expression runs, branches
// included.
const maxExprSteps = 256

var errExpr = errors.New("DWARF expression")

// eval computes a DWARF expression of a CFI rule (DWARF 5, 2.5), with
// initial pushed first when push is set. Register values come from regs,
// memory from mem. It knows the operations compilers and linkers put in
// call-frame information: the PLT's CFA, stack realignment, signal
// frames.
func eval(expr []byte, order binary.ByteOrder, regs *regState, mem func(addr uint64) (uint64, bool), initial uint64, push bool) (uint64, error) {
	var st []uint64
	if push {
		st = append(st, initial)
	}
	pop := func() (uint64, bool) {
		if len(st) == 0 {
			return 0, false
		}
		v := st[len(st)-1]
		st = st[:len(st)-1]
		return v, true
	}
	r := reader{b: expr, order: order}
	for steps := 0; r.off < len(r.b); steps++ {
		if steps >= maxExprSteps || r.err != nil || len(st) > 64 {
			return 0, fmt.Errorf("%w: too long or malformed", errExpr)
		}
		op := r.u8()
		switch {
		case op >= 0x30 && op <= 0x4f: // DW_OP_lit0..31
			st = append(st, uint64(op-0x30))
			continue
		case op >= 0x70 && op <= 0x8f: // DW_OP_breg0..31
			v, ok := regs.get(uint64(op - 0x70))
			if !ok {
				return 0, fmt.Errorf("%w: register %d not known", errExpr, op-0x70)
			}
			st = append(st, v+uint64(r.sleb()))
			continue
		}
		switch op {
		case 0x92: // DW_OP_bregx
			reg := r.uleb()
			v, ok := regs.get(reg)
			if !ok {
				return 0, fmt.Errorf("%w: register %d not known", errExpr, reg)
			}
			st = append(st, v+uint64(r.sleb()))
		case 0x03: // DW_OP_addr
			st = append(st, r.u64())
		case 0x08:
			st = append(st, uint64(r.u8()))
		case 0x09:
			st = append(st, uint64(int64(int8(r.u8()))))
		case 0x0a:
			st = append(st, uint64(r.u16()))
		case 0x0b:
			st = append(st, uint64(int64(int16(r.u16()))))
		case 0x0c:
			st = append(st, uint64(r.u32()))
		case 0x0d:
			st = append(st, uint64(int64(int32(r.u32()))))
		case 0x0e, 0x0f:
			st = append(st, r.u64())
		case 0x10:
			st = append(st, r.uleb())
		case 0x11:
			st = append(st, uint64(r.sleb()))
		case 0x12: // dup
			if len(st) == 0 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			st = append(st, st[len(st)-1])
		case 0x13: // drop
			if _, ok := pop(); !ok {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
		case 0x14: // over
			if len(st) < 2 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			st = append(st, st[len(st)-2])
		case 0x16: // swap
			if len(st) < 2 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			st[len(st)-1], st[len(st)-2] = st[len(st)-2], st[len(st)-1]
		case 0x06: // deref
			a, ok := pop()
			if !ok {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			v, ok := mem(a)
			if !ok {
				return 0, fmt.Errorf("%w: %#x not in the stack copied", errExpr, a)
			}
			st = append(st, v)
		case 0x23: // plus_uconst
			if len(st) == 0 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			st[len(st)-1] += r.uleb()
		case 0x1f, 0x20: // neg, not
			if len(st) == 0 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			if op == 0x1f {
				st[len(st)-1] = -st[len(st)-1]
			} else {
				st[len(st)-1] = ^st[len(st)-1]
			}
		case 0x1a, 0x1c, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e:
			b, ok1 := pop()
			a, ok2 := pop()
			if !ok1 || !ok2 {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			st = append(st, binop(op, a, b))
		case 0x2f: // skip
			off := int(int16(r.u16()))
			r.off += off
			if r.off < 0 || r.off > len(r.b) {
				return 0, fmt.Errorf("%w: skip out of the expression", errExpr)
			}
		case 0x28: // bra
			off := int(int16(r.u16()))
			v, ok := pop()
			if !ok {
				return 0, fmt.Errorf("%w: stack empty", errExpr)
			}
			if v != 0 {
				r.off += off
				if r.off < 0 || r.off > len(r.b) {
					return 0, fmt.Errorf("%w: branch out of the expression", errExpr)
				}
			}
		case 0x96: // nop
		default:
			return 0, fmt.Errorf("%w: operation %#x not supported", errExpr, op)
		}
	}
	if r.err != nil {
		return 0, fmt.Errorf("%w: %w", errExpr, r.err)
	}
	v, ok := pop()
	if !ok {
		return 0, fmt.Errorf("%w: stack empty at the end", errExpr)
	}
	return v, nil
}

func binop(op byte, a, b uint64) uint64 {
	bool64 := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case 0x1a:
		return a & b
	case 0x1c:
		return a - b
	case 0x1e:
		return a * b
	case 0x21:
		return a | b
	case 0x22:
		return a + b
	case 0x24:
		return a << (b & 63)
	case 0x25:
		return a >> (b & 63)
	case 0x26:
		return uint64(int64(a) >> (b & 63))
	case 0x27:
		return a ^ b
	case 0x29:
		return bool64(a == b)
	case 0x2a:
		return bool64(int64(a) >= int64(b))
	case 0x2b:
		return bool64(int64(a) > int64(b))
	case 0x2c:
		return bool64(int64(a) <= int64(b))
	case 0x2d:
		return bool64(int64(a) < int64(b))
	}
	return bool64(a != b) // 0x2e
}
