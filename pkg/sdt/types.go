package sdt

import "fmt"

// A Type is the type of a probe argument.
type Type uint8

// The argument types. Integers are passed sign- or zero-extended to 64 bits
// and described in the note with their size and signedness, so tracers read
// them as the type says; a String is passed as a pointer to a
// NUL-terminated copy of a Go string or byte slice, described as an 8-byte
// unsigned argument that tracers read with str() or a str type.
const (
	Int8 Type = iota + 1
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	String
)

// MaxArgs is the most arguments a probe may have, as with sys/sdt.h.
const MaxArgs = 12

var typeNames = [...]string{Int8: "int8", Int16: "int16", Int32: "int32", Int64: "int64", Uint8: "uint8", Uint16: "uint16", Uint32: "uint32", Uint64: "uint64", String: "string"}

func (t Type) String() string {
	if t.valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

func (t Type) valid() bool { return t >= Int8 && t <= String }

// size returns the size in bytes the note gives the argument.
func (t Type) size() int {
	switch t {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32:
		return 4
	}
	return 8
}

func (t Type) signed() bool { return t >= Int8 && t <= Int64 }

// argString returns the note's argument string for args passed in regs,
// whose name is given for a size in bytes.
func argString(args []Type, reg func(i, size int) string) string {
	var b []byte
	for i, t := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		if t.signed() {
			b = append(b, '-')
		}
		b = fmt.Appendf(b, "%d@%s", t.size(), reg(i, t.size()))
	}
	return string(b)
}
