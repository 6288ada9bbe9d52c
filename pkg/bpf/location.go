package bpf

import "runtime"

// A Location says where the BPF program finds one argument of a site, as
// NewSpec worked it out: for BPF programs of other layouts that read
// arguments the same way, such as those of package usdt.
type Location struct {
	// Kind is LocConst, LocRegister or LocMemory; LocNone for an
	// argument that cannot be read.
	Kind LocKind
	// Value is the constant, or the displacement of memory; with Bias,
	// a link-time address, to which the load bias is added at run time
	// (the instruction pointer at the site minus Spec.PC).
	Value uint64
	// Base and Index are the offsets in the BPF program's context
	// (struct pt_regs) of the base and index registers, -1 for none.
	// For LocRegister, Base is the register, and Index, when not -1,
	// the register holding the high half of an 8-byte value whose low
	// half Base holds (i386).
	Base, Index int16
	// Scale multiplies the index register; Shift shifts the register
	// right (8 for %ah).
	Scale, Shift uint8
	// Size is the number of bytes kept (1, 2, 4 or 8); Signed says to
	// sign-extend from them; Float that the bits are a float or double.
	Size   uint8
	Signed bool
	Bias   bool
	Float  bool
}

// A LocKind is the kind of a Location.
type LocKind uint8

// Kinds of Location.
const (
	LocNone     LocKind = argNone
	LocConst    LocKind = argConst
	LocRegister LocKind = argReg
	LocMemory   LocKind = argMem
)

// Location returns where argument i of the site is read: LocNone past
// NumArgs, and for an argument NewSpec reported.
func (s *Spec) Location(i int) Location {
	if i < 0 || i >= s.NumArgs() || i >= MaxArgs {
		return Location{Base: -1, Index: -1}
	}
	a := &s.raw.Args[i]
	return Location{
		Kind:   LocKind(a.Kind),
		Value:  a.Val,
		Base:   a.Base,
		Index:  a.Index,
		Scale:  a.Scale,
		Shift:  a.Shift,
		Size:   a.Size,
		Signed: a.Flags&flagSigned != 0,
		Bias:   a.Flags&flagBias != 0,
		Float:  a.Flags&flagFloat != 0,
	}
}

// PC returns the link-time address of the site given to NewSpec.
func (s *Spec) PC() uint64 { return s.raw.Pc }

// IPOffset returns the offset of the instruction pointer in the BPF
// program's context (struct pt_regs) on this machine: 128 on x86-64, 256
// on arm64, -1 elsewhere.
func IPOffset() int16 {
	switch runtime.GOARCH {
	case "amd64":
		return 128
	case "arm64":
		return 256
	}
	return -1
}
