package argspec

import (
	"debug/elf"
	"strconv"
)

// Kind tells where the value of an argument is found.
type Kind int

const (
	Const         Kind = iota + 1 // immediate value: x86 $-1, aarch64 42, arm #1
	Register                      // value of a general-purpose register of any width
	Memory                        // memory at Base + Offset
	SIB                           // memory at Base + Index*Scale + Offset; Base may be absent
	Symbol                        // memory at Symbol + Offset, relative to Base (rip) or absolute
	FloatRegister                 // value of a floating-point or vector register
)

var kindNames = [...]string{
	Const:         "const",
	Register:      "register",
	Memory:        "memory",
	SIB:           "sib",
	Symbol:        "symbol",
	FloatRegister: "float_register",
}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Reg is a register named in an operand.
type Reg struct {
	Name   string // lowercase name as written, without sigil: "eax", "r8d", "w3", "a0"
	Base   string // the full register it is part of: "rax" for eax and ah, "x3" for w3
	Offset int    // byte offset of Base in the machine's BPF-visible pt_regs; -1 if not there
	Size   int    // width of the named register in bytes
	Shift  int    // bit position of the named part within Base: 8 for ah/bh/ch/dh, else 0
}

// An Arg is one parsed probe argument.
type Arg struct {
	Raw     string      // the token as written, e.g. "-4@-4(%rbp)"
	Machine elf.Machine // the machine whose syntax the operand is in
	Size    int         // bytes; 0 when the token has no size prefix
	Signed  bool
	Float   bool
	Kind    Kind
	Base    Reg   // Register, FloatRegister, Memory, SIB; Symbol when rip-relative
	Index   Reg   // SIB; on i386, the high half of an 8-byte Register value (gcc's pair)
	Scale   int   // SIB only: 1, 2, 4 or 8
	Offset  int64 // displacement, or the value of a Const
	// Symbol is the symbol of a Symbol operand. On a Memory or SIB
	// operand it is part of the displacement: its link-time address, as
	// in x86 non-PIC code's arr(,%eax,4), which the load bias moves, or,
	// with Reloc, its distance from the relocation's origin.
	Symbol string
	// Reloc is the relocation operator that a Memory or SIB operand's
	// Symbol is written with. The only one is "GOTOFF", which x86 PIC
	// code uses for its own data (sym@GOTOFF(%ebx), also written
	// 8+sym@GOTOFF(%eax,%edx,4)): the base register holds the address of
	// _GLOBAL_OFFSET_TABLE_, and the displacement is Offset plus
	// Symbol's distance from it.
	Reloc string
	Err   error // non-nil (an *Error) when the operand could not be decoded
}

// RelocGOTOFF is the Reloc of a GOT-relative symbol, sym@GOTOFF.
const RelocGOTOFF = "GOTOFF"

// String returns the argument in canonical form, size prefix included, or
// Raw when the argument could not be decoded.
func (a Arg) String() string {
	if a.Err != nil {
		return a.Raw
	}
	var buf [64]byte
	return string(appendLocation(appendPrefix(buf[:0], &a), &a))
}

// Location returns the operand alone in canonical form. For an argument
// that could not be decoded it returns the operand as written.
func (a Arg) Location() string {
	var buf [64]byte
	return string(a.AppendLocation(buf[:0]))
}

// AppendLocation appends the canonical operand, as Location returns it,
// to b: listing many probes need not allocate a string per argument.
func (a *Arg) AppendLocation(b []byte) []byte {
	if a.Err != nil {
		_, op, _ := cutPrefix(a.Raw)
		return append(b, op...)
	}
	return appendLocation(b, a)
}

func appendPrefix(b []byte, a *Arg) []byte {
	if a.Size == 0 {
		return b
	}
	if a.Signed {
		b = append(b, '-')
	}
	b = strconv.AppendInt(b, int64(a.Size), 10)
	if a.Float {
		b = append(b, 'f')
	}
	return append(b, '@')
}

// TypeName names the C-like type of a value of size bytes: s32, u64,
// f64, or "arg" when the size is unknown (0). Tools show arguments as
// TYPE@LOCATION with it.
func TypeName(size int, signed, float bool) string {
	if size == 0 {
		return "arg"
	}
	c := "u"
	switch {
	case float:
		c = "f"
	case signed:
		c = "s"
	}
	return c + strconv.Itoa(8*size)
}

// Extend returns the value of an integer of size bytes held in the low
// bytes of v: those bytes, extended with their sign when signed. A size
// of 0 or 8 or more keeps v.
func Extend(v uint64, size int, signed bool) uint64 {
	if size <= 0 || size >= 8 {
		return v
	}
	bits := 64 - 8*uint(size)
	if signed {
		return uint64(int64(v<<bits) >> bits)
	}
	return v << bits >> bits
}

// TypeName is TypeName of the argument's size, signedness and kind.
func (a Arg) TypeName() string { return TypeName(a.Size, a.Signed, a.Float) }
