package elfwriter

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// arch describes what Link needs to know of a machine: the ELF class and
// byte order of its files, and the bytes of its probe nop and return.
type arch struct {
	class elf.Class
	order byteOrder
	nop   []byte // what sys/sdt.h places at a probe site
	ret   []byte
	// execBase is where GNU ld links an executable.
	execBase uint64
}

// arches are the machines a File can be written for.
var arches = map[elf.Machine]arch{
	elf.EM_X86_64:  {elf.ELFCLASS64, binary.LittleEndian, []byte{0x90}, []byte{0xc3}, DefaultExecBase},
	elf.EM_386:     {elf.ELFCLASS32, binary.LittleEndian, []byte{0x90}, []byte{0xc3}, 0x8048000},
	elf.EM_AARCH64: {elf.ELFCLASS64, binary.LittleEndian, le32(0xd503201f), le32(0xd65f03c0), 0x400000},
	// s390x: nop is "bc 0,0", return is "br %r14".
	elf.EM_S390: {elf.ELFCLASS64, binary.BigEndian, []byte{0x47, 0x00, 0x00, 0x00}, []byte{0x07, 0xfe}, 0x1000000},
}

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// Machines returns the machines a File can be written for.
func Machines() []elf.Machine {
	return []elf.Machine{elf.EM_X86_64, elf.EM_AARCH64, elf.EM_386, elf.EM_S390}
}

// arch returns the description of f's machine.
func (f *File) arch() (arch, error) {
	m := f.machine()
	a, ok := arches[m]
	if !ok {
		return arch{}, fmt.Errorf("machine %v not supported", m)
	}
	return a, nil
}

func (f *File) machine() elf.Machine {
	if f.Machine == elf.EM_NONE {
		return elf.EM_X86_64
	}
	return f.Machine
}

// Nop emits the instruction a probe site is on f's machine (the one-byte
// 0x90 on x86, nop on arm64 and s390x) and returns its Label.
func (f *File) Nop() Label {
	l := f.Here("")
	a, _ := f.arch()
	f.emit(a.nop...)
	return l
}

// Ret emits a return from a function on f's machine.
func (f *File) Ret() {
	a, _ := f.arch()
	f.emit(a.ret...)
}

// Raw appends b to .text as it is: machine code encoded by the caller.
func (f *File) Raw(b ...byte) { f.emit(b...) }

func (f *File) emit(b ...byte) { f.text = append(f.text, b...) }

// rel32 emits a 32-bit displacement from the end of the instruction to
// target, as x86 jumps and calls have it.
func (f *File) rel32(target Label) {
	off := len(f.text)
	f.emit(0, 0, 0, 0)
	f.fixups = append(f.fixups, fixup{off: off, end: len(f.text), target: target})
}

// Align pads .text with zero bytes to a multiple of n bytes.
func (f *File) Align(n int) {
	for len(f.text)%n != 0 {
		f.text = append(f.text, 0)
	}
}

// encoder writes ELF structures in the class and byte order of one machine:
// the types of package debug/elf, encoded with encoding/binary. Callers
// give the 64-bit types; a 32-bit file takes them converted.
type encoder struct {
	machine elf.Machine
	arch
}

func (e *encoder) is64() bool { return e.class == elf.ELFCLASS64 }

// sizes of the ELF structures of e's class.
func (e *encoder) ehdrSize() uint64 { return e.size(elf.Header32{}, elf.Header64{}) }
func (e *encoder) phdrSize() uint64 { return e.size(elf.Prog32{}, elf.Prog64{}) }
func (e *encoder) shdrSize() uint64 { return e.size(elf.Section32{}, elf.Section64{}) }
func (e *encoder) symSize() uint64  { return e.size(elf.Sym32{}, elf.Sym64{}) }
func (e *encoder) dynSize() uint64  { return e.size(elf.Dyn32{}, elf.Dyn64{}) }
func (e *encoder) addrSize() uint64 { return e.size(uint32(0), uint64(0)) }

func (e *encoder) size(v32, v64 any) uint64 {
	if e.is64() {
		return uint64(binary.Size(v64))
	}
	return uint64(binary.Size(v32))
}

// put appends v, a fixed-size value, in e's byte order.
func (e *encoder) put(b []byte, v any) []byte {
	b, err := binary.Append(b, e.order, v)
	if err != nil {
		panic("elfwriter: " + err.Error())
	}
	return b
}

// addr appends an address-sized word.
func (e *encoder) addr(b []byte, v uint64) []byte {
	if e.is64() {
		return e.order.AppendUint64(b, v)
	}
	return e.order.AppendUint32(b, uint32(v))
}

func (e *encoder) u32(b []byte, v uint32) []byte { return e.order.AppendUint32(b, v) }

// header appends the ELF header of a file with phnum program headers right
// after it and shnum sections besides section 0, whose headers start at
// shoff; the last section is .shstrtab.
func (e *encoder) header(b []byte, typ elf.Type, entry, shoff uint64, phnum, shnum int) []byte {
	var ident [elf.EI_NIDENT]byte
	copy(ident[:], elf.ELFMAG)
	ident[elf.EI_CLASS] = byte(e.class)
	ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	if e.order == binary.BigEndian {
		ident[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	ident[elf.EI_OSABI] = byte(elf.ELFOSABI_NONE)
	h := elf.Header64{
		Ident:     ident,
		Type:      uint16(typ),
		Machine:   uint16(e.machine),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     entry,
		Shoff:     shoff,
		Ehsize:    uint16(e.ehdrSize()),
		Phnum:     uint16(phnum),
		Shentsize: uint16(e.shdrSize()),
		Shnum:     uint16(shnum + 1),
		Shstrndx:  uint16(shnum),
	}
	if phnum > 0 {
		h.Phoff, h.Phentsize = e.ehdrSize(), uint16(e.phdrSize())
	}
	if e.is64() {
		return e.put(b, h)
	}
	return e.put(b, elf.Header32{
		Ident: h.Ident, Type: h.Type, Machine: h.Machine, Version: h.Version,
		Entry: uint32(h.Entry), Phoff: uint32(h.Phoff), Shoff: uint32(h.Shoff),
		Flags: h.Flags, Ehsize: h.Ehsize, Phentsize: h.Phentsize, Phnum: h.Phnum,
		Shentsize: h.Shentsize, Shnum: h.Shnum, Shstrndx: h.Shstrndx,
	})
}

// prog appends a program header.
func (e *encoder) prog(b []byte, p elf.Prog64) []byte {
	if e.is64() {
		return e.put(b, p)
	}
	return e.put(b, elf.Prog32{
		Type: p.Type, Off: uint32(p.Off), Vaddr: uint32(p.Vaddr), Paddr: uint32(p.Paddr),
		Filesz: uint32(p.Filesz), Memsz: uint32(p.Memsz), Flags: p.Flags, Align: uint32(p.Align),
	})
}

// section appends a section header.
func (e *encoder) section(b []byte, s elf.Section64) []byte {
	if e.is64() {
		return e.put(b, s)
	}
	return e.put(b, elf.Section32{
		Name: s.Name, Type: s.Type, Flags: uint32(s.Flags), Addr: uint32(s.Addr),
		Off: uint32(s.Off), Size: uint32(s.Size), Link: s.Link, Info: s.Info,
		Addralign: uint32(s.Addralign), Entsize: uint32(s.Entsize),
	})
}

// sym appends a symbol.
func (e *encoder) sym(b []byte, s elf.Sym64) []byte {
	if e.is64() {
		return e.put(b, s)
	}
	return e.put(b, elf.Sym32{
		Name: s.Name, Value: uint32(s.Value), Size: uint32(s.Size),
		Info: s.Info, Other: s.Other, Shndx: s.Shndx,
	})
}

// dyn appends a dynamic section entry.
func (e *encoder) dyn(b []byte, tag elf.DynTag, v uint64) []byte {
	if e.is64() {
		return e.put(b, elf.Dyn64{Tag: int64(tag), Val: v})
	}
	return e.put(b, elf.Dyn32{Tag: int32(tag), Val: uint32(v)})
}
