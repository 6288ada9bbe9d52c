package argspec

import (
	"debug/elf"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// x86 operands are in AT&T syntax, as gcc prints them.

// The register tables are built on first use, so that a program pays
// only for the machines it meets.
var (
	amd64Tabs = sync.OnceValues(amd64Tables)
	i386Tabs  = sync.OnceValues(i386Tables)
)

func amd64Regs() regTable  { gp, _ := amd64Tabs(); return gp }
func amd64Float() regTable { _, fp := amd64Tabs(); return fp }
func i386Regs() regTable   { gp, _ := i386Tabs(); return gp }
func i386Float() regTable  { _, fp := i386Tabs(); return fp }

// amd64Tables returns the general-purpose registers, at their offsets in
// the x86-64 struct pt_regs, and the vector registers.
func amd64Tables() (gp, fp regTable) {
	gp = regTable{}
	for _, r := range []struct {
		q, d, w, b, h string
		off           int
	}{
		{"rax", "eax", "ax", "al", "ah", 80},
		{"rbx", "ebx", "bx", "bl", "bh", 40},
		{"rcx", "ecx", "cx", "cl", "ch", 88},
		{"rdx", "edx", "dx", "dl", "dh", 96},
		{"rsi", "esi", "si", "sil", "", 104},
		{"rdi", "edi", "di", "dil", "", 112},
		{"rbp", "ebp", "bp", "bpl", "", 32},
		{"rsp", "esp", "sp", "spl", "", 152},
	} {
		gp.add(r.q, r.q, r.off, 8, 0)
		gp.add(r.d, r.q, r.off, 4, 0)
		gp.add(r.w, r.q, r.off, 2, 0)
		gp.add(r.b, r.q, r.off, 1, 0)
		if r.h != "" {
			gp.add(r.h, r.q, r.off, 1, 8)
		}
	}
	// r8 sits at 72 and r15 at 0: pt_regs lists them in reverse.
	for n := 8; n <= 15; n++ {
		q := "r" + strconv.Itoa(n)
		off := 8 * (17 - n) // r8 at 72 ... r11 at 48
		if n >= 12 {
			off = 8 * (15 - n) // r12 at 24 ... r15 at 0
		}
		gp.add(q, q, off, 8, 0)
		gp.add(q+"d", q, off, 4, 0)
		gp.add(q+"w", q, off, 2, 0)
		gp.add(q+"b", q, off, 1, 0)
	}
	gp.add("rip", "rip", 128, 8, 0)
	return gp, x86Vector(32)
}

// i386Pairs gives, for each i386 register that gcc names for an 8-byte
// value, the register holding the value's high half: gcc keeps such a
// value in a pair in the order ax, dx, cx, bx, si, di, bp, and the note
// names only the low one (-8@%eax is %edx:%eax).
var i386Pairs = map[string]string{"eax": "edx", "edx": "ecx", "ecx": "ebx", "ebx": "esi", "esi": "edi", "edi": "ebp"}

// i386Tables is amd64Tables for the i386 struct pt_regs.
func i386Tables() (gp, fp regTable) {
	gp = regTable{}
	for _, r := range []struct {
		d, w, b, h string
		off        int
	}{
		{"eax", "ax", "al", "ah", 24},
		{"ebx", "bx", "bl", "bh", 0},
		{"ecx", "cx", "cl", "ch", 4},
		{"edx", "dx", "dl", "dh", 8},
		{"esi", "si", "", "", 12},
		{"edi", "di", "", "", 16},
		{"ebp", "bp", "", "", 20},
		{"esp", "sp", "", "", 60},
	} {
		gp.add(r.d, r.d, r.off, 4, 0)
		gp.add(r.w, r.d, r.off, 2, 0)
		if r.b != "" {
			gp.add(r.b, r.d, r.off, 1, 0)
			gp.add(r.h, r.d, r.off, 1, 8)
		}
	}
	return gp, x86Vector(8)
}

func x86Vector(n int) regTable {
	t := regTable{}
	t.addSeq("xmm", 0, n-1, 16, nil)
	t.addSeq("ymm", 0, n-1, 32, nil)
	t.addSeq("zmm", 0, n-1, 64, nil)
	return t
}

func parseX86(a *Arg, op string, gp, fp regTable) error {
	if strings.IndexByte(op, ':') >= 0 {
		return fmt.Errorf("segment override %q not supported", op)
	}
	switch op[0] {
	case '$':
		v, err := parseConst(op[1:])
		if err != nil {
			if len(op) > 1 && isSymStart(op[1]) {
				return fmt.Errorf("symbolic immediate %q not supported", op)
			}
			return numError("constant", op[1:], err)
		}
		a.Kind, a.Offset = Const, v
		return nil
	case '%':
		if r, ok := gp.lookup(op[1:]); ok {
			a.Kind, a.Base = Register, r
			if hi, ok := i386Pairs[r.Name]; ok && a.Machine == elf.EM_386 && a.Size == 8 {
				a.Index = gp[hi]
			}
			return nil
		}
		if r, ok := fp.lookup(op[1:]); ok {
			a.Kind, a.Base = FloatRegister, r
			return nil
		}
		return fmt.Errorf("unknown register %q", op)
	}

	open := strings.IndexByte(op, '(')
	if a.Reloc != "" && open < 0 {
		return fmt.Errorf("%s operand without a base register", a.Reloc)
	}
	if open < 0 {
		// A bare symbol: absolute addressing, as in i386 non-PIC code.
		sym, off, err := parseSymOff(op)
		if err != nil {
			return err
		}
		if sym == "" {
			return fmt.Errorf("absolute address %q not supported", op)
		}
		a.Kind, a.Symbol, a.Offset = Symbol, sym, off
		return nil
	}
	if op[len(op)-1] != ')' {
		return fmt.Errorf("bad memory operand %q", op)
	}
	sym, off, err := parseSymOff(op[:open])
	if err != nil {
		return err
	}
	var parts [3]string
	n, ok := splitList(op[open+1:len(op)-1], parts[:])
	if !ok {
		return fmt.Errorf("bad memory operand %q", op)
	}
	var base Reg
	if n == 1 || parts[0] != "" {
		if base, err = x86AddrReg(gp, parts[0]); err != nil {
			return err
		}
	}
	if a.Reloc != "" {
		switch {
		case sym == "":
			return fmt.Errorf("%s operand without a symbol", a.Reloc)
		case base.Name == "rip":
			return fmt.Errorf("%s operand relative to %%rip", a.Reloc)
		}
	}
	if n == 1 {
		a.Kind = Memory
		if base.Name == "rip" && sym != "" {
			a.Kind = Symbol
		}
		a.Base, a.Symbol, a.Offset = base, sym, off
		return nil
	}
	if base.Name == "rip" {
		return errors.New("%rip cannot take an index register")
	}
	index, err := x86AddrReg(gp, parts[1])
	if err != nil {
		return err
	}
	if index.Base == "rsp" || index.Base == "esp" || index.Base == "rip" {
		return fmt.Errorf("bad index register %q", parts[1])
	}
	scale := 1
	if n == 3 {
		switch parts[2] {
		case "1", "2", "4", "8":
			scale = int(parts[2][0] - '0')
		default:
			return fmt.Errorf("bad scale %q", parts[2])
		}
	}
	if a.Reloc != "" && base.Name == "" {
		return fmt.Errorf("%s operand without a base register", a.Reloc)
	}
	a.Kind, a.Base, a.Index, a.Scale, a.Offset, a.Symbol = SIB, base, index, scale, off, sym
	return nil
}

// x86AddrReg decodes a base or index register: 32 or 64 bits wide.
func x86AddrReg(gp regTable, s string) (Reg, error) {
	if s == "" || s[0] != '%' {
		return Reg{}, fmt.Errorf("bad address register %q", s)
	}
	r, ok := gp.lookup(s[1:])
	if !ok {
		return Reg{}, fmt.Errorf("unknown register %q", s)
	}
	if r.Size < 4 {
		return Reg{}, fmt.Errorf("bad address register %q", s)
	}
	return r, nil
}

// appendX86Disp appends the displacement of a memory or sib operand: the
// offset, or nothing for 0; an absolute symbol before it, "arr+8"; a
// GOT-relative symbol after it, as gcc writes them, "12+gs@GOTOFF".
func appendX86Disp(b []byte, a *Arg) []byte {
	switch {
	case a.Symbol == "":
		if a.Offset != 0 {
			b = appendOffset(b, a.Offset)
		}
		return b
	case a.Reloc == "":
		return appendSymOff(b, a.Symbol, a.Offset)
	}
	if a.Offset != 0 {
		b = append(appendOffset(b, a.Offset), '+')
	}
	return append(append(append(b, a.Symbol...), '@'), a.Reloc...)
}

// formatX86 writes offsets in decimal, leaves out a zero displacement and
// a scale of 1 (unless there is no base: "(,%rax,1)"), and puts a symbol's
// offset after it: "sym+8(%rip)".
func formatX86(b []byte, a *Arg) []byte {
	switch a.Kind {
	case Const:
		return appendOffset(append(b, '$'), a.Offset)
	case Register, FloatRegister:
		return append(append(b, '%'), a.Base.Name...)
	case Memory:
		b = appendX86Disp(b, a)
		return append(append(append(b, "(%"...), a.Base.Name...), ')')
	case SIB:
		b = appendX86Disp(b, a)
		b = append(b, '(')
		if a.Base.Name != "" {
			b = append(append(b, '%'), a.Base.Name...)
		}
		b = append(append(b, ",%"...), a.Index.Name...)
		if a.Scale != 1 || a.Base.Name == "" {
			b = append(append(b, ','), byte('0'+a.Scale))
		}
		return append(b, ')')
	case Symbol:
		b = appendSymOff(b, a.Symbol, a.Offset)
		if a.Base.Name != "" {
			b = append(append(append(b, "(%"...), a.Base.Name...), ')')
		}
		return b
	}
	return b
}
