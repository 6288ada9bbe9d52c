package elfwriter

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
)

const (
	pageSize = 0x1000
	ehdrSize = 64
	phdrSize = 56
	shdrSize = 64
	symSize  = 24
	numPhdrs = 3
)

// An Image is a linked File.
type Image struct {
	// Bytes is the ELF file.
	Bytes []byte
	// Base is the address of .stapsdt.base.
	Base uint64

	addr, off map[section]uint64
	labels    []label
}

// Addr returns the link-time address of l.
func (im *Image) Addr(l Label) uint64 {
	lb := im.labels[l]
	return im.addr[lb.sec] + lb.off
}

// Offset returns the file offset of l.
func (im *Image) Offset(l Label) uint64 {
	lb := im.labels[l]
	return im.off[lb.sec] + lb.off
}

func align(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// shdr is a section header under construction.
type shdr struct {
	name string
	elf.Section64
	data []byte
}

// Link lays out the sections, resolves labels and returns the ELF file.
func (f *File) Link() (*Image, error) {
	if f.entry == 0 {
		return nil, fmt.Errorf("link: no entry point")
	}
	for i, l := range f.labels[1:] {
		if !l.bound {
			return nil, fmt.Errorf("link: label %d %q: %w", i+1, l.name, ErrUnbound)
		}
	}
	base := f.Base
	if base == 0 && f.Type == Exec {
		base = DefaultExecBase
	}

	// The read-only executable segment: headers, .text, .stapsdt.base.
	im := &Image{addr: map[section]uint64{}, off: map[section]uint64{}, labels: f.labels}
	textOff := uint64(pageSize)
	baseOff := textOff + uint64(len(f.text))
	endRX := baseOff + 1
	// The writable segment: .probes, .data.
	probesOff := align(endRX, pageSize)
	dataOff := align(probesOff+uint64(len(f.probes)), 8)
	endRW := dataOff + uint64(len(f.data))
	for sec, off := range map[section]uint64{secText: textOff, secBase: baseOff, secProbes: probesOff, secData: dataOff} {
		im.off[sec] = off
		im.addr[sec] = base + off
	}
	im.Base = base + baseOff

	text := bytes.Clone(f.text)
	for _, fx := range f.fixups {
		target := int64(im.Addr(fx.target)) + fx.addend
		disp := target - int64(im.addr[secText]+uint64(fx.end))
		if disp != int64(int32(disp)) {
			return nil, fmt.Errorf("link: displacement %d out of range", disp)
		}
		binary.LittleEndian.PutUint32(text[fx.off:], uint32(int32(disp)))
	}

	notes, err := f.appendNotes(nil, im)
	if err != nil {
		return nil, err
	}
	symtab, strtab, firstGlobal := f.symbols(im)

	sections := []shdr{
		{name: ".text", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Addralign: 16}, data: text},
		{name: ".stapsdt.base", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC), Addralign: 1}, data: []byte{0}},
		{name: ".probes", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: 2}, data: f.probes},
		{name: ".data", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: 8}, data: f.data},
		{name: ".note.stapsdt", Section64: elf.Section64{Type: uint32(elf.SHT_NOTE), Addralign: 4}, data: notes},
		{name: ".symtab", Section64: elf.Section64{Type: uint32(elf.SHT_SYMTAB), Addralign: 8, Entsize: symSize, Link: 7, Info: firstGlobal}, data: symtab},
		{name: ".strtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}, data: strtab},
		{name: ".shstrtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
	}
	var shstrtab []byte
	shstrtab = append(shstrtab, 0)
	for i := range sections {
		sections[i].Name = uint32(len(shstrtab))
		shstrtab = append(shstrtab, sections[i].name...)
		shstrtab = append(shstrtab, 0)
	}
	sections[7].data = shstrtab
	for i, off := range []uint64{textOff, baseOff, probesOff, dataOff} {
		sections[i].Off = off
		sections[i].Addr = base + off
	}
	end := endRW
	for i := 4; i < len(sections); i++ {
		end = align(end, sections[i].Addralign)
		sections[i].Off = end
		end += uint64(len(sections[i].data))
	}
	shoff := align(end, 8)

	buf := make([]byte, shoff+uint64(shdrSize*(len(sections)+1)))
	for i := range sections {
		s := &sections[i]
		s.Size = uint64(len(s.data))
		copy(buf[s.Off:], s.data)
	}

	typ := elf.ET_EXEC
	if f.Type == PIE {
		typ = elf.ET_DYN
	}
	hdr := header(typ, im.Addr(f.entry), shoff, numPhdrs, len(sections))

	phdrs := [numPhdrs]elf.Prog64{
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Off: 0, Vaddr: base, Paddr: base, Filesz: endRX, Memsz: endRX, Align: pageSize},
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_W), Off: probesOff, Vaddr: base + probesOff, Paddr: base + probesOff, Filesz: endRW - probesOff, Memsz: endRW - probesOff, Align: pageSize},
		{Type: uint32(elf.PT_GNU_STACK), Flags: uint32(elf.PF_R | elf.PF_W), Align: 16},
	}

	w := &sliceWriter{buf: buf}
	binary.Write(w.at(0), binary.LittleEndian, &hdr)
	binary.Write(w.at(ehdrSize), binary.LittleEndian, &phdrs)
	w.at(shoff + shdrSize) // section 0 stays zero
	for i := range sections {
		binary.Write(w, binary.LittleEndian, &sections[i].Section64)
	}
	im.Bytes = buf
	return im, nil
}

// header returns the ELF header of an x86-64 file with phnum program
// headers right after it and shnum sections besides section 0, whose
// headers start at shoff; the last section is .shstrtab.
func header(typ elf.Type, entry, shoff uint64, phnum, shnum int) elf.Header64 {
	hdr := elf.Header64{
		Type:      uint16(typ),
		Machine:   uint16(elf.EM_X86_64),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     entry,
		Shoff:     shoff,
		Ehsize:    ehdrSize,
		Shentsize: shdrSize,
		Shnum:     uint16(shnum + 1),
		Shstrndx:  uint16(shnum),
	}
	if phnum > 0 {
		hdr.Phoff = ehdrSize
		hdr.Phentsize = phdrSize
		hdr.Phnum = uint16(phnum)
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	hdr.Ident[elf.EI_OSABI] = byte(elf.ELFOSABI_NONE)
	return hdr
}

// sliceWriter writes into a fixed buffer at a movable position.
type sliceWriter struct {
	buf []byte
	pos uint64
}

func (w *sliceWriter) at(pos uint64) *sliceWriter { w.pos = pos; return w }

func (w *sliceWriter) Write(p []byte) (int, error) {
	n := copy(w.buf[w.pos:], p)
	w.pos += uint64(n)
	return n, nil
}

// appendNotes appends the stapsdt notes, laid out as sys/sdt.h's
// _SDT_ASM_BODY emits them.
func (f *File) appendNotes(b []byte, im *Image) ([]byte, error) {
	const owner = "stapsdt\x00"
	for _, n := range f.notes {
		if n.PC == 0 {
			return nil, fmt.Errorf("link: note %s:%s: no pc", n.Provider, n.Name)
		}
		descsz := 3*8 + len(n.Provider) + len(n.Name) + len(n.Args) + 3
		if descsz > math.MaxUint32 {
			return nil, fmt.Errorf("link: note %s:%s: too long", n.Provider, n.Name)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(owner)))
		b = binary.LittleEndian.AppendUint32(b, uint32(descsz))
		b = binary.LittleEndian.AppendUint32(b, 3) // NT_STAPSDT
		b = append(b, owner...)
		var sema uint64
		if n.Semaphore != 0 {
			sema = im.Addr(n.Semaphore)
		}
		b = binary.LittleEndian.AppendUint64(b, im.Addr(n.PC))
		b = binary.LittleEndian.AppendUint64(b, im.Base)
		b = binary.LittleEndian.AppendUint64(b, sema)
		for _, s := range []string{n.Provider, n.Name, n.Args} {
			b = append(b, s...)
			b = append(b, 0)
		}
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b, nil
}

var sectionIndex = map[section]uint16{secText: 1, secBase: 2, secProbes: 3, secData: 4}

// symbols returns .symtab, .strtab and the index of the first global
// symbol: local symbols come first, as the ELF specification requires.
func (f *File) symbols(im *Image) (symtab, strtab []byte, firstGlobal uint32) {
	strtab = []byte{0}
	symtab = make([]byte, symSize) // symbol 0
	add := func(name string, sec section, addr, size uint64, bind elf.SymBind, typ elf.SymType, other byte) {
		var s elf.Sym64
		s.Name = uint32(len(strtab))
		strtab = append(strtab, name...)
		strtab = append(strtab, 0)
		s.Info = elf.ST_INFO(bind, typ)
		s.Other = other
		s.Shndx = sectionIndex[sec]
		s.Value = addr
		s.Size = size
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, &s)
		symtab = append(symtab, buf.Bytes()...)
	}
	add("_.stapsdt.base", secBase, im.Base, 1, elf.STB_LOCAL, elf.STT_NOTYPE, byte(elf.STV_HIDDEN))
	for _, global := range []bool{false, true} {
		if global {
			firstGlobal = uint32(len(symtab) / symSize)
		}
		for i, l := range f.labels {
			if l.name == "" || l.global != global {
				continue
			}
			typ, bind := elf.STT_OBJECT, elf.STB_LOCAL
			if l.sec == secText {
				typ = elf.STT_FUNC
			}
			if global {
				bind = elf.STB_GLOBAL
			}
			add(l.name, l.sec, im.Addr(Label(i)), l.size, bind, typ, 0)
		}
	}
	return symtab, strtab, firstGlobal
}
