package dtrace

import "strings"

// A Kind is the class of a C type, as far as showing a value goes.
type Kind int

const (
	Unknown  Kind = iota // a struct, or a typedef this package does not know
	Signed               // a signed integer
	Unsigned             // an unsigned integer (bool too)
	String               // char *: a pointer to a NUL-terminated string
	Pointer              // any other pointer
	Float                // float, double, long double
)

var kindNames = [...]string{"unknown", "signed", "unsigned", "string", "pointer", "float"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// A Type is what Classify tells of a C type.
type Type struct {
	Kind Kind
	Size int // bytes on LP64 (x86-64, arm64); 0 for Unknown
}

// knownTypedefs are the integer typedefs of <stdint.h>, <stddef.h> and
// <sys/types.h> that provider files commonly use, as on LP64 Linux.
var knownTypedefs = map[string]Type{
	"int8_t": {Signed, 1}, "int16_t": {Signed, 2}, "int32_t": {Signed, 4}, "int64_t": {Signed, 8},
	"uint8_t": {Unsigned, 1}, "uint16_t": {Unsigned, 2}, "uint32_t": {Unsigned, 4}, "uint64_t": {Unsigned, 8},
	"intptr_t": {Signed, 8}, "uintptr_t": {Unsigned, 8}, "ptrdiff_t": {Signed, 8},
	"size_t": {Unsigned, 8}, "ssize_t": {Signed, 8}, "off_t": {Signed, 8}, "time_t": {Signed, 8},
	"pid_t": {Signed, 4}, "uid_t": {Unsigned, 4}, "gid_t": {Unsigned, 4},
	"bool": {Unsigned, 1}, "_Bool": {Unsigned, 1},
	"uchar_t": {Unsigned, 1}, "ushort_t": {Unsigned, 2}, "uint_t": {Unsigned, 4}, "ulong_t": {Unsigned, 8},
	"string": {String, 8}, // DTrace's own string type
}

// Classify classifies the C type ctype, in the spelling Arg.Type uses or
// any other spacing: "char *" and "const char *" (also signed and
// unsigned char) are String; other pointers Pointer; integer types Signed
// or Unsigned with their LP64 size (plain char counts as signed, as on
// x86); float types Float.
func Classify(ctype string) Type {
	stars := strings.Count(ctype, "*")
	var words []string
	for _, w := range strings.Fields(strings.ReplaceAll(ctype, "*", " ")) {
		if !qualifier[w] {
			words = append(words, w)
		}
	}
	if stars > 0 {
		if stars == 1 && isChar(words) {
			return Type{String, 8}
		}
		return Type{Pointer, 8}
	}
	if len(words) == 1 {
		if t, ok := knownTypedefs[words[0]]; ok {
			return t
		}
	}
	var longs int
	var unsigned, signed, short, char, integer bool
	for _, w := range words {
		switch w {
		case "long":
			longs++
		case "unsigned":
			unsigned = true
		case "signed":
			signed = true
		case "short":
			short = true
		case "char":
			char = true
		case "int":
			integer = true
		case "float":
			return Type{Float, 4}
		case "double":
			if longs > 0 || strings.Contains(ctype, "long") {
				return Type{Float, 16}
			}
			return Type{Float, 8}
		default:
			return Type{Unknown, 0}
		}
	}
	if !(longs > 0 || unsigned || signed || short || char || integer) {
		return Type{Unknown, 0}
	}
	k := Signed
	if unsigned {
		k = Unsigned
	}
	switch {
	case char:
		return Type{k, 1}
	case short:
		return Type{k, 2}
	case longs > 0:
		return Type{k, 8}
	}
	return Type{k, 4}
}

func isChar(words []string) bool {
	switch strings.Join(words, " ") {
	case "char", "signed char", "unsigned char":
		return true
	}
	return false
}
