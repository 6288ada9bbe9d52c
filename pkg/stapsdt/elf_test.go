package stapsdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// Layout of the ELF files built by buildELF.
const (
	textAddr = 0x400000 // vaddr of file offset 0 in the text segment
	dataAddr = 0x600000 // vaddr base of the data segment
	textOff  = 0x100    // .text: 16 bytes of nops
	baseOff  = 0x110    // .stapsdt.base: 1 byte
	semaOff  = 0x118    // .probes: 8 bytes, in the data segment
	noteOff  = 0x120    // .note.stapsdt
)

// testNote is one note for buildELF; zero pc means "use the default".
type testNote struct {
	owner    string
	typ      uint32
	pc, base uint64
	sema     uint64
	strs     string // provider\0name\0args\0
}

func stdNote(provider, name, args string, pc, sema uint64) testNote {
	return testNote{owner: "stapsdt", typ: 3, pc: pc, base: textAddr + baseOff, sema: sema,
		strs: provider + "\x00" + name + "\x00" + args + "\x00"}
}

// elfSpec describes a synthetic ELF file with stapsdt notes.
type elfSpec struct {
	class   elf.Class
	order   binary.ByteOrder
	typ     elf.Type
	machine elf.Machine
	notes   []testNote
	rawNote []byte // used instead of notes when not nil
	noBase  bool
	// noSections leaves out the section headers and puts the notes in a
	// PT_NOTE segment instead, as in a file whose section headers were
	// stripped; noteAlign is the segment's alignment (4 if 0).
	noSections bool
	noteAlign  uint64
}

// buildELF writes a small but well-formed ELF file: a text and a data
// PT_LOAD segment and the sections stapsdt reads.
func buildELF(s elfSpec) []byte {
	is64 := s.class == elf.ELFCLASS64
	addr := func(b *bytes.Buffer, v uint64) {
		if is64 {
			binary.Write(b, s.order, v)
		} else {
			binary.Write(b, s.order, uint32(v))
		}
	}
	notes := s.rawNote
	if notes == nil {
		var nb bytes.Buffer
		for _, n := range s.notes {
			var desc bytes.Buffer
			addr(&desc, n.pc)
			addr(&desc, n.base)
			addr(&desc, n.sema)
			desc.WriteString(n.strs)
			name := n.owner + "\x00"
			binary.Write(&nb, s.order, uint32(len(name)))
			binary.Write(&nb, s.order, uint32(desc.Len()))
			binary.Write(&nb, s.order, n.typ)
			nb.WriteString(name)
			pad4(&nb)
			nb.Write(desc.Bytes())
			pad4(&nb)
		}
		notes = nb.Bytes()
	}
	shstr := "\x00.text\x00.stapsdt.base\x00.probes\x00.note.stapsdt\x00.shstrtab\x00"
	nameIdx := func(n string) uint32 { return uint32(bytes.Index([]byte(shstr), []byte("\x00"+n+"\x00")) + 1) }

	f := make([]byte, noteOff)
	for i := textOff; i < baseOff; i++ {
		f[i] = 0x90
	}
	f = append(f, notes...)
	for len(f)%8 != 0 {
		f = append(f, 0)
	}
	shstrOff := len(f)
	f = append(f, shstr...)
	for len(f)%8 != 0 {
		f = append(f, 0)
	}
	shoff := len(f)

	type sec struct {
		name          string
		typ           elf.SectionType
		flags         elf.SectionFlag
		addr, off, sz uint64
	}
	secs := []sec{
		{},
		{".text", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, textAddr + textOff, textOff, 16},
		{".stapsdt.base", elf.SHT_PROGBITS, elf.SHF_ALLOC, textAddr + baseOff, baseOff, 1},
		{".probes", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_WRITE, dataAddr + semaOff, semaOff, 8},
		{".note.stapsdt", elf.SHT_NOTE, 0, 0, noteOff, uint64(len(notes))},
		{".shstrtab", elf.SHT_STRTAB, 0, 0, uint64(shstrOff), uint64(len(shstr))},
	}
	if s.noBase {
		secs[2].name = ".text"
	}
	var sh bytes.Buffer
	for _, x := range secs {
		var name uint32
		if x.name != "" {
			name = nameIdx(x.name)
		}
		binary.Write(&sh, s.order, name)
		binary.Write(&sh, s.order, uint32(x.typ))
		addr(&sh, uint64(x.flags))
		addr(&sh, x.addr)
		addr(&sh, x.off)
		addr(&sh, x.sz)
		binary.Write(&sh, s.order, uint32(0)) // link
		binary.Write(&sh, s.order, uint32(0)) // info
		addr(&sh, 4)                          // addralign
		addr(&sh, 0)                          // entsize
	}
	f = append(f, sh.Bytes()...)

	var h bytes.Buffer
	h.Write([]byte{0x7f, 'E', 'L', 'F', byte(s.class), dataByte(s.order), 1, 0})
	h.Write(make([]byte, 8))
	binary.Write(&h, s.order, uint16(s.typ))
	binary.Write(&h, s.order, uint16(s.machine))
	binary.Write(&h, s.order, uint32(1))
	addr(&h, textAddr+textOff) // entry
	ehsize, phentsize, shentsize := 52, 32, 40
	if is64 {
		ehsize, phentsize, shentsize = 64, 56, 64
	}
	phnum, shnum := 2, len(secs)
	if s.typ == elf.ET_REL {
		phnum = 0
	}
	if s.noSections {
		f = f[:shoff]
		phnum, shnum, shoff = 3, 0, 0
	}
	addr(&h, uint64(ehsize)) // phoff
	addr(&h, uint64(shoff))
	binary.Write(&h, s.order, uint32(0)) // flags
	binary.Write(&h, s.order, uint16(ehsize))
	binary.Write(&h, s.order, uint16(phentsize))
	binary.Write(&h, s.order, uint16(phnum))
	binary.Write(&h, s.order, uint16(shentsize))
	binary.Write(&h, s.order, uint16(shnum))
	binary.Write(&h, s.order, uint16(max(shnum-1, 0)))
	for _, p := range []struct {
		typ                              elf.ProgType
		flags                            elf.ProgFlag
		off, vaddr, filesz, memsz, align uint64
	}{
		{elf.PT_LOAD, elf.PF_R | elf.PF_X, 0, textAddr, baseOff + 1, baseOff + 1, 0x1000},
		{elf.PT_LOAD, elf.PF_R | elf.PF_W, semaOff, dataAddr + semaOff, 8, 0x100, 0x1000},
		{elf.PT_NOTE, elf.PF_R, noteOff, 0, uint64(len(notes)), 0, max(s.noteAlign, 4)},
	}[:phnum] {
		binary.Write(&h, s.order, uint32(p.typ))
		if is64 {
			binary.Write(&h, s.order, uint32(p.flags))
		}
		addr(&h, p.off)
		addr(&h, p.vaddr)
		addr(&h, p.vaddr) // paddr
		addr(&h, p.filesz)
		addr(&h, p.memsz)
		if !is64 {
			binary.Write(&h, s.order, uint32(p.flags))
		}
		addr(&h, p.align)
	}
	copy(f, h.Bytes())
	return f
}

func pad4(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}

func dataByte(o binary.ByteOrder) byte {
	if o == binary.BigEndian {
		return byte(elf.ELFDATA2MSB)
	}
	return byte(elf.ELFDATA2LSB)
}
