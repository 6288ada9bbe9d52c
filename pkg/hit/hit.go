package hit

import (
	"math"
	"strconv"
	"time"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// An Event is one firing of a probe site.
type Event struct {
	Time  time.Time // when the probe fired
	PID   uint32    // process (thread group) id, see PID namespaces in the package doc
	TID   uint32    // thread id, likewise
	CPU   uint32
	Comm  string // command name of the thread
	Site  uint32 // the site, numbered as the backend that read it numbers them
	Probe uint32 // the probe id of the site's Spec
	Args  []Value
	// Stack holds the return addresses of the thread's user stack,
	// innermost first, the probe's own address first, when the
	// tracer was asked for stacks; nil otherwise.
	Stack []uint64
	// StackCopy is the copy of the user stack a tracer that unwinds in
	// user space takes; empty otherwise.
	StackCopy StackCopy
}

// A StackCopy is the top of a thread's user stack, copied at the probe,
// with the registers an unwind starts from.
type StackCopy struct {
	// Regs are, on x86-64, rip, rsp, rbp and 0; on arm64, pc, sp, x29
	// and x30.
	Regs [4]uint64
	// Bytes is the stack from the stack pointer up.
	Bytes []byte
}

// A Kind tells how to interpret a Value.
type Kind uint8

const (
	NotRead Kind = iota // the argument could not be read
	Int                 // a signed integer
	Uint                // an unsigned integer
	Float               // a float or double
	String              // a NUL-terminated string, Bits holds its address
)

var kindNames = [...]string{NotRead: "not read", Int: "int", Uint: "uint", Float: "float", String: "string"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is one argument of an event.
type Value struct {
	Kind Kind
	// Bits is the argument as read: the integer (sign-extended for Int),
	// the IEEE 754 bits of a Float of Size bytes, or the address of a
	// String.
	Bits uint64
	Size int // bytes of the argument, 1, 2, 4 or 8
	// Str is the string of a String, cut at the most bytes kept of a string
	// when Truncated.
	Str       string
	Truncated bool
}

// Int returns the value as a signed integer.
func (v Value) Int() int64 { return int64(v.Bits) }

// As returns the low size bytes of the value, sign-extended when signed:
// the value read as an integer of another size.
func (v Value) As(size int, signed bool) uint64 { return argspec.Extend(v.Bits, size, signed) }

// Float returns the value of a Float.
func (v Value) Float() float64 {
	if v.Size == 4 {
		return float64(math.Float32frombits(uint32(v.Bits)))
	}
	return math.Float64frombits(v.Bits)
}

// String returns the value as it reads in C: an integer in decimal, a
// float in the shortest form that reads back the same, a string quoted
// with its address, "<not read>" for an argument that could not be read.
func (v Value) String() string {
	switch v.Kind {
	case NotRead:
		return "<not read>"
	case Int:
		return strconv.FormatInt(v.Int(), 10)
	case Float:
		bits := 64
		if v.Size == 4 {
			bits = 32
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, bits)
	case String:
		s := strconv.Quote(v.Str)
		if v.Truncated {
			s += "..."
		}
		return s + " at " + "0x" + strconv.FormatUint(v.Bits, 16)
	}
	return strconv.FormatUint(v.Bits, 10)
}

// An ArgMask is a set of argument indexes, bit i for argument i.
type ArgMask uint16

// Has reports whether argument i is in the set.
func (m ArgMask) Has(i int) bool { return i >= 0 && i < 16 && m&(1<<i) != 0 }
