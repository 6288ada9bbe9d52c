package elfwriter

import (
	"debug/elf"
	"fmt"
	"math"
)

// shdr is a section header under construction; sec is the section whose
// labels it holds, if any.
type shdr struct {
	name string
	elf.Section64
	data []byte
	sec  section
}

// A sectionTable is the sections of a file after section 0, in order.
type sectionTable []shdr

// index returns the index of the section called name in the section
// header table.
func (t sectionTable) index(name string) uint32 {
	for i := range t {
		if t[i].name == name {
			return uint32(i + 1)
		}
	}
	panic("elfwriter: no section " + name)
}

// at returns the section called name.
func (t sectionTable) at(name string) *shdr { return &t[t.index(name)-1] }

// indexes returns the index of the section holding each kind of label.
func (t sectionTable) indexes() map[section]uint16 {
	m := make(map[section]uint16)
	for i, s := range t {
		if s.sec != secNone {
			m[s.sec] = uint16(i + 1)
		}
	}
	return m
}

// names fills in the section names and .shstrtab, the last section.
func (t sectionTable) names() {
	shstrtab := []byte{0}
	for i := range t {
		t[i].Name = uint32(len(shstrtab))
		shstrtab = append(append(shstrtab, t[i].name...), 0)
	}
	t[len(t)-1].data = shstrtab
}

func progbits(name string, sec section, flags elf.SectionFlag, align uint64, data []byte) shdr {
	return shdr{name: name, sec: sec, Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(flags), Addralign: align}, data: data}
}

// sections returns the sections of the file, with their contents: the
// loaded ones in the order of their addresses, then the notes and the
// symbol tables.
func (l *linker) sections(text, notes []byte) sectionTable {
	f, e := l.f, l.e
	t := sectionTable{
		progbits(".text", secText, elf.SHF_ALLOC|elf.SHF_EXECINSTR, 16, text),
		progbits(".stapsdt.base", secBase, elf.SHF_ALLOC, 1, []byte{0}),
	}
	if l.dyn != nil {
		t = append(t,
			shdr{name: ".gnu.hash", sec: secGnuHash, Section64: elf.Section64{Type: uint32(elf.SHT_GNU_HASH), Flags: uint64(elf.SHF_ALLOC), Addralign: e.addrSize()}, data: l.dyn.hash},
			shdr{name: ".dynsym", sec: secDynsym, Section64: elf.Section64{Type: uint32(elf.SHT_DYNSYM), Flags: uint64(elf.SHF_ALLOC), Addralign: e.addrSize(), Entsize: e.symSize(), Info: 1}},
			shdr{name: ".dynstr", sec: secDynstr, Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Flags: uint64(elf.SHF_ALLOC), Addralign: 1}, data: l.dyn.strtab},
			shdr{name: ".dynamic", sec: secDynamic, Section64: elf.Section64{Type: uint32(elf.SHT_DYNAMIC), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: e.addrSize(), Entsize: e.dynSize()}},
		)
	}
	t = append(t,
		progbits(".probes", secProbes, elf.SHF_ALLOC|elf.SHF_WRITE, 8, f.probes),
		progbits(".data", secData, elf.SHF_ALLOC|elf.SHF_WRITE, 8, f.data),
		shdr{name: ".note.stapsdt", Section64: elf.Section64{Type: uint32(elf.SHT_NOTE), Addralign: 4}, data: notes},
		shdr{name: ".symtab", Section64: elf.Section64{Type: uint32(elf.SHT_SYMTAB), Addralign: e.addrSize(), Entsize: e.symSize()}},
		shdr{name: ".strtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
		shdr{name: ".shstrtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
	)
	secIndex := t.indexes()
	symtab, strtab, firstGlobal := f.symbols(e, l.im, secIndex)
	s := t.at(".symtab")
	s.data, s.Link, s.Info = symtab, t.index(".strtab"), firstGlobal
	t.at(".strtab").data = strtab
	if l.dyn != nil {
		l.fillDynamic(t, secIndex)
	}
	t.names()
	return t
}

// place sets the size, offset and address of every section, the loaded
// ones where layout put them and the others after the writable segment,
// and returns the offset of the section header table.
func (l *linker) place(t sectionTable) (shoff uint64) {
	end := l.endRW
	for i := range t {
		s := &t[i]
		s.Size = uint64(len(s.data))
		if s.sec != secNone {
			s.Off, s.Addr = l.im.off[s.sec], l.im.addr[s.sec]
			continue
		}
		end = align(end, s.Addralign)
		s.Off = end
		end += s.Size
	}
	return align(end, l.e.addrSize())
}

// appendNotes appends the stapsdt notes, laid out as sys/sdt.h's
// _SDT_ASM_BODY emits them, with addresses of the machine's size.
func (f *File) appendNotes(e *encoder, b []byte, im *Image) ([]byte, error) {
	const owner = "stapsdt\x00"
	for _, n := range f.notes {
		if n.PC == 0 {
			return nil, fmt.Errorf("note %s:%s: no pc", n.Provider, n.Name)
		}
		descsz := 3*int(e.addrSize()) + len(n.Provider) + len(n.Name) + len(n.Args) + 3
		if uint64(descsz) > math.MaxUint32 {
			return nil, fmt.Errorf("note %s:%s: too long", n.Provider, n.Name)
		}
		b = e.u32(b, uint32(len(owner)))
		b = e.u32(b, uint32(descsz))
		b = e.u32(b, 3) // NT_STAPSDT
		b = append(b, owner...)
		var sema uint64
		if n.Semaphore != 0 {
			sema = im.Addr(n.Semaphore)
		}
		b = e.addr(b, im.Addr(n.PC))
		b = e.addr(b, im.Base)
		b = e.addr(b, sema)
		for _, s := range []string{n.Provider, n.Name, n.Args} {
			b = append(append(b, s...), 0)
		}
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b, nil
}

// symbols returns .symtab, .strtab and the index of the first global
// symbol: local symbols come first, as the ELF specification requires.
func (f *File) symbols(e *encoder, im *Image, secIndex map[section]uint16) (symtab, strtab []byte, firstGlobal uint32) {
	strtab = []byte{0}
	symtab = make([]byte, e.symSize()) // symbol 0
	add := func(name string, sec section, addr, size uint64, bind elf.SymBind, typ elf.SymType, other byte) {
		s := elf.Sym64{Name: uint32(len(strtab)), Info: elf.ST_INFO(bind, typ), Other: other, Shndx: secIndex[sec], Value: addr, Size: size}
		strtab = append(append(strtab, name...), 0)
		symtab = e.sym(symtab, s)
	}
	add("_.stapsdt.base", secBase, im.Base, 1, elf.STB_LOCAL, elf.STT_NOTYPE, byte(elf.STV_HIDDEN))
	for _, global := range []bool{false, true} {
		if global {
			firstGlobal = uint32(uint64(len(symtab)) / e.symSize())
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
