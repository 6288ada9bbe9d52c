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

// Align pads .text with zero bytes to a multiple of n bytes.
func (f *File) Align(n int) {
	for len(f.text)%n != 0 {
		f.text = append(f.text, 0)
	}
}

// encoder writes ELF structures in the class and byte order of one machine.
type encoder struct {
	machine elf.Machine
	arch
}

func (e *encoder) is64() bool { return e.class == elf.ELFCLASS64 }

// sizes of the ELF structures of e's class.
func (e *encoder) ehdrSize() uint64 { return e.pick(52, 64) }
func (e *encoder) phdrSize() uint64 { return e.pick(32, 56) }
func (e *encoder) shdrSize() uint64 { return e.pick(40, 64) }
func (e *encoder) symSize() uint64  { return e.pick(16, 24) }
func (e *encoder) dynSize() uint64  { return e.pick(8, 16) }
func (e *encoder) addrSize() uint64 { return e.pick(4, 8) }

func (e *encoder) pick(n32, n64 uint64) uint64 {
	if e.is64() {
		return n64
	}
	return n32
}

// addr appends an address-sized word.
func (e *encoder) addr(b []byte, v uint64) []byte {
	if e.is64() {
		return e.order.AppendUint64(b, v)
	}
	return e.order.AppendUint32(b, uint32(v))
}

func (e *encoder) u16(b []byte, v uint16) []byte { return e.order.AppendUint16(b, v) }
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
	b = append(b, ident[:]...)
	b = e.u16(b, uint16(typ))
	b = e.u16(b, uint16(e.machine))
	b = e.u32(b, uint32(elf.EV_CURRENT))
	var phoff uint64
	var phentsize uint16
	if phnum > 0 {
		phoff, phentsize = e.ehdrSize(), uint16(e.phdrSize())
	}
	b = e.addr(b, entry)
	b = e.addr(b, phoff)
	b = e.addr(b, shoff)
	b = e.u32(b, 0) // flags
	b = e.u16(b, uint16(e.ehdrSize()))
	b = e.u16(b, phentsize)
	b = e.u16(b, uint16(phnum))
	b = e.u16(b, uint16(e.shdrSize()))
	b = e.u16(b, uint16(shnum+1))
	return e.u16(b, uint16(shnum))
}

// prog appends a program header.
func (e *encoder) prog(b []byte, p elf.Prog64) []byte {
	if e.is64() {
		b = e.u32(b, p.Type)
		b = e.u32(b, p.Flags)
		b = e.addr(b, p.Off)
		b = e.addr(b, p.Vaddr)
		b = e.addr(b, p.Paddr)
		b = e.addr(b, p.Filesz)
		b = e.addr(b, p.Memsz)
		return e.addr(b, p.Align)
	}
	b = e.u32(b, p.Type)
	b = e.addr(b, p.Off)
	b = e.addr(b, p.Vaddr)
	b = e.addr(b, p.Paddr)
	b = e.addr(b, p.Filesz)
	b = e.addr(b, p.Memsz)
	b = e.u32(b, p.Flags)
	return e.addr(b, p.Align)
}

// section appends a section header.
func (e *encoder) section(b []byte, s elf.Section64) []byte {
	b = e.u32(b, s.Name)
	b = e.u32(b, s.Type)
	b = e.addr(b, s.Flags)
	b = e.addr(b, s.Addr)
	b = e.addr(b, s.Off)
	b = e.addr(b, s.Size)
	b = e.u32(b, s.Link)
	b = e.u32(b, s.Info)
	b = e.addr(b, s.Addralign)
	return e.addr(b, s.Entsize)
}

// sym appends a symbol.
func (e *encoder) sym(b []byte, s elf.Sym64) []byte {
	b = e.u32(b, s.Name)
	if e.is64() {
		b = append(b, s.Info, s.Other)
		b = e.u16(b, s.Shndx)
		b = e.addr(b, s.Value)
		return e.addr(b, s.Size)
	}
	b = e.addr(b, s.Value)
	b = e.addr(b, s.Size)
	b = append(b, s.Info, s.Other)
	return e.u16(b, s.Shndx)
}

// dyn appends a dynamic section entry.
func (e *encoder) dyn(b []byte, tag elf.DynTag, v uint64) []byte {
	b = e.addr(b, uint64(tag))
	return e.addr(b, v)
}
