package bpf

import (
	"debug/elf"
	"errors"
	"fmt"
	"runtime"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// MaxArgs is the most arguments of a probe site that are read; sys/sdt.h
// allows 12.
const MaxArgs = 12

// MaxStringSize is the most bytes of a string argument an event can carry.
const MaxStringSize = 254

// Argument kinds and flags of struct arg in usdt.bpf.c.
const (
	argNone  = 0
	argConst = 1
	argReg   = 2
	argMem   = 3

	flagSigned = 1
	flagBias   = 2
	flagString = 4
	flagFloat  = 8
)

// x86NopLen is the length of the nop at an x86 probe site: %rip in an
// operand is the address of the instruction after it.
const x86NopLen = 1

// nativeMachine is the machine whose pt_regs the BPF program reads.
var nativeMachine = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}[runtime.GOARCH]

// An ArgMask is a set of argument indexes (package hit's).
type ArgMask = hit.ArgMask

// SpecOptions adjust how NewSpec reads the arguments of a site.
type SpecOptions struct {
	// Strings are the arguments that point to NUL-terminated strings;
	// events carry the string as well as the pointer.
	Strings ArgMask
	// Lengths maps a string argument to the argument that holds its
	// length in bytes, for strings that are not NUL-terminated: the JVM
	// passes its names as a pointer and a length.
	Lengths map[int]int
	// Symbols gives the link-time addresses of the symbols arguments
	// are relative to: rip-relative and absolute globals, and the
	// GOT-relative globals of x86 PIC code, which also need
	// _GLOBAL_OFFSET_TABLE_ (symbolize.Object). Nil: no argument
	// naming a symbol is read.
	Symbols stapsdt.SymbolTable
}

// A Spec tells the BPF program how to fetch the arguments of one probe
// site. Its zero value reads no arguments.
type Spec struct {
	raw usdtSpec
}

// ProbeID returns the probe id given to NewSpec.
func (s *Spec) ProbeID() uint32 { return s.raw.ProbeId }

// NumArgs returns the number of arguments events of the site carry.
func (s *Spec) NumArgs() int { return int(s.raw.Nargs) }

// Strings returns the arguments read as strings: those of
// SpecOptions.Strings that can be read at all.
func (s *Spec) Strings() ArgMask {
	var m ArgMask
	for i := range min(int(s.raw.Nargs), MaxArgs) {
		if s.raw.Args[i].Flags&flagString != 0 {
			m |= 1 << i
		}
	}
	return m
}

// An ArgError reports an argument that the BPF program cannot read.
// Events mark it as not read.
type ArgError struct {
	Index int    // from 0
	Arg   string // the argument as written
	Err   error
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("arg%d %q: %v", e.Index, e.Arg, e.Err)
}

func (e *ArgError) Unwrap() error { return e.Err }

// NewSpec translates the parsed arguments of the probe site at link-time
// address pc into a Spec. probeID is carried into every event of the site,
// typically an index into the caller's probe table.
//
// An argument that cannot be read (a floating-point register, an unknown
// symbol, an operand argspec could not decode, more than MaxArgs) yields
// an *ArgError and is marked so that events report it as not read; the
// other arguments are read as usual. opts may be nil.
func NewSpec(probeID uint32, pc uint64, args []argspec.Arg, opts *SpecOptions) (Spec, []error) {
	if opts == nil {
		opts = &SpecOptions{}
	}
	var s Spec
	s.raw.Pc = pc
	s.raw.ProbeId = probeID
	s.raw.Nargs = uint16(min(len(args), MaxArgs))
	var errs []error
	for i := range args {
		a := &args[i]
		if i >= MaxArgs {
			errs = append(errs, &ArgError{i, a.Raw, fmt.Errorf("more than %d arguments", MaxArgs)})
			continue
		}
		r, err := newArg(a, pc, opts.Symbols)
		if err == nil && opts.Strings.Has(i) {
			r.Flags |= flagString
			if j, ok := opts.Lengths[i]; ok {
				if j < 0 || j >= len(args) || j >= MaxArgs || j == i {
					err = fmt.Errorf("its length is arg%d, which the probe does not have", j)
				}
				r.LenArg = uint8(j + 1)
			}
		}
		if err != nil {
			errs = append(errs, &ArgError{i, a.Raw, err})
			r = usdtArg{Kind: argNone, Base: -1, Index: -1}
		}
		s.raw.Args[i] = r
	}
	return s, errs
}

func newArg(a *argspec.Arg, pc uint64, syms stapsdt.SymbolTable) (usdtArg, error) {
	r := usdtArg{Base: -1, Index: -1}
	if a.Err != nil {
		return r, a.Err
	}
	regOffset := regOffset
	switch {
	case a.Machine == nativeMachine:
	case a.Machine == elf.EM_386 && nativeMachine == elf.EM_X86_64:
		regOffset = compatRegOffset
	default:
		return r, fmt.Errorf("%v operand on a %v kernel", a.Machine, nativeMachine)
	}
	if a.Size > 8 {
		return r, fmt.Errorf("%d-byte values not supported", a.Size)
	}
	size := a.Size
	if a.Signed {
		r.Flags |= flagSigned
	}
	if a.Float {
		r.Flags |= flagFloat
	}
	switch a.Kind {
	case argspec.Const:
		if size == 0 {
			size = 8
		}
		r.Kind = argConst
		r.Val = argspec.Extend(uint64(a.Offset), size, a.Signed)
	case argspec.Register:
		off, err := regOffset(a.Base)
		if err != nil {
			return r, err
		}
		if a.Index.Name != "" {
			// An i386 8-byte value: the low half in Base, the high
			// half in Index.
			hi, err := regOffset(a.Index)
			if err != nil {
				return r, err
			}
			r.Index, size = hi, 8
		} else if size == 0 || size > a.Base.Size {
			size = a.Base.Size
		}
		r.Kind, r.Base, r.Shift = argReg, off, uint8(a.Base.Shift)
	case argspec.Memory:
		r.Kind, r.Val = argMem, uint64(a.Offset)
		if a.Base.Name == "rip" {
			// The IP seen by the program is that of the probe site.
			r.Val += pc + x86NopLen
			r.Flags |= flagBias
			break
		}
		off, err := regOffset(a.Base)
		if err != nil {
			return r, err
		}
		r.Base = off
		if err := relocate(&r, a, pc, syms); err != nil {
			return r, err
		}
	case argspec.SIB:
		r.Kind, r.Val = argMem, uint64(a.Offset)
		if a.Base.Name != "" {
			off, err := regOffset(a.Base)
			if err != nil {
				return r, err
			}
			r.Base = off
		}
		off, err := regOffset(a.Index)
		if err != nil {
			return r, err
		}
		r.Index, r.Scale = off, uint8(a.Scale)
		if err := relocate(&r, a, pc, syms); err != nil {
			return r, err
		}
	case argspec.Symbol:
		addr, err := symbolAddr(syms, a.Symbol, pc)
		if err != nil {
			return r, err
		}
		r.Kind, r.Val = argMem, addr+uint64(a.Offset)
		r.Flags |= flagBias
	case argspec.FloatRegister:
		return r, fmt.Errorf("floating-point register %%%s not readable", a.Base.Name)
	default:
		return r, fmt.Errorf("argument kind %v not supported", a.Kind)
	}
	if size == 0 {
		size = 8
	}
	r.Size = uint8(size)
	return r, nil
}

var errNoReg = errors.New("register not in pt_regs")

// symbolAddr returns the address of the symbol name that an argument of
// the site at pc names.
func symbolAddr(syms stapsdt.SymbolTable, name string, pc uint64) (uint64, error) {
	if syms == nil {
		return 0, fmt.Errorf("symbol %q: no symbol table given", name)
	}
	return syms.SymbolAddr(name, pc)
}

// relocate adds to the displacement of a memory operand the part its
// symbol gives it: the symbol's address, moved by the load bias at run
// time; for sym@GOTOFF(%reg), whose register holds the run-time address of
// the GOT, the distance from the GOT to sym, which the load bias does not
// change.
func relocate(r *usdtArg, a *argspec.Arg, pc uint64, syms stapsdt.SymbolTable) error {
	if a.Symbol == "" {
		return nil
	}
	sym, err := symbolAddr(syms, a.Symbol, pc)
	if err != nil {
		return err
	}
	switch a.Reloc {
	case "":
		// The link-time address, as non-PIC code has it.
		r.Val += sym
		r.Flags |= flagBias
	case argspec.RelocGOTOFF:
		got, err := symbolAddr(syms, stapsdt.GOTSymbol, pc)
		if err != nil {
			return fmt.Errorf("%s counts from %s: %w", a.Reloc, stapsdt.GOTSymbol, err)
		}
		r.Val += sym - got
	default:
		return fmt.Errorf("relocation %s not supported", a.Reloc)
	}
	return nil
}

// compatRegOffset is regOffset for an i386 register read on x86-64: the
// kernel keeps a 32-bit task's registers, zero-extended, in the 64-bit
// pt_regs, where their x86-64 namesakes are (%eax in rax).
func compatRegOffset(reg argspec.Reg) (int16, error) {
	a, err := argspec.ParseArg("%"+reg.Base, elf.EM_X86_64)
	if err != nil || a.Kind != argspec.Register {
		return -1, fmt.Errorf("%%%s: %w", reg.Name, errNoReg)
	}
	return regOffset(a.Base)
}

func regOffset(reg argspec.Reg) (int16, error) {
	if reg.Offset < 0 || reg.Offset > 1<<12 {
		return -1, fmt.Errorf("%%%s: %w", reg.Name, errNoReg)
	}
	return int16(reg.Offset), nil
}
