package elfwriter

import (
	"bytes"
	"debug/elf"
	"fmt"
	"math"
)

const pageSize = 0x1000

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

// shdr is a section header under construction; sec is the section whose
// labels it holds, if any.
type shdr struct {
	name string
	elf.Section64
	data []byte
	sec  section
}

// dynSym is a symbol of a Shared file's .dynsym.
type dynSym struct {
	name  string
	label Label
}

// Link lays out the sections, resolves labels and returns the ELF file.
func (f *File) Link() (*Image, error) {
	a, err := f.arch()
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	e := &encoder{machine: f.machine(), arch: a}
	if f.entry == 0 && f.Type != Shared {
		return nil, fmt.Errorf("link: no entry point")
	}
	for i, l := range f.labels[1:] {
		if !l.bound {
			return nil, fmt.Errorf("link: label %d %q: %w", i+1, l.name, ErrUnbound)
		}
	}
	base := f.Base
	if base == 0 && f.Type == Exec {
		base = a.execBase
	}
	shared := f.Type == Shared

	// The dynamic symbols of a shared object and the tables that do not
	// depend on addresses.
	var dsyms []dynSym
	var dynstr, gnuHash []byte
	var soname uint64
	if shared {
		dynstr = []byte{0}
		if f.Soname != "" {
			soname = uint64(len(dynstr))
			dynstr = append(append(dynstr, f.Soname...), 0)
		}
		for i, l := range f.labels {
			if l.global && l.name != "" {
				dsyms = append(dsyms, dynSym{l.name, Label(i)})
			}
		}
		gnuHash = e.gnuHash(dsyms)
	}
	dynNames := make([]uint32, len(dsyms))
	for i, s := range dsyms {
		dynNames[i] = uint32(len(dynstr))
		dynstr = append(append(dynstr, s.name...), 0)
	}
	dynsymSize := uint64(len(dsyms)+1) * e.symSize()

	// The read-only executable segment: headers, .text, .stapsdt.base and
	// the dynamic symbols.
	im := &Image{addr: map[section]uint64{}, off: map[section]uint64{}, labels: f.labels}
	set := func(sec section, off uint64) {
		im.off[sec] = off
		im.addr[sec] = base + off
	}
	set(secText, pageSize)
	set(secBase, pageSize+uint64(len(f.text)))
	endRX := im.off[secBase] + 1
	if shared {
		set(secGnuHash, align(endRX, e.addrSize()))
		set(secDynsym, align(im.off[secGnuHash]+uint64(len(gnuHash)), e.addrSize()))
		set(secDynstr, im.off[secDynsym]+dynsymSize)
		endRX = im.off[secDynstr] + uint64(len(dynstr))
	}
	// The writable segment: .dynamic, .probes, .data.
	page := f.PageSize
	if page == 0 {
		page = pageSize
	}
	startRW := align(endRX, page)
	off := startRW
	var dynamic []byte
	if shared {
		set(secDynamic, off)
		n := uint64(6)
		if f.Soname != "" {
			n++
		}
		off += n * e.dynSize()
	}
	set(secProbes, align(off, 8))
	set(secData, align(im.off[secProbes]+uint64(len(f.probes)), 8))
	endRW := im.off[secData] + uint64(len(f.data))
	im.Base = im.addr[secBase]

	text := bytes.Clone(f.text)
	for _, fx := range f.fixups {
		if err := e.patch(text, fx, int64(im.Addr(fx.target))+fx.addend-int64(im.addr[secText]+uint64(fx.end))); err != nil {
			return nil, fmt.Errorf("link: %w", err)
		}
	}
	notes, err := f.appendNotes(e, nil, im)
	if err != nil {
		return nil, err
	}

	sections := []shdr{
		{name: ".text", sec: secText, Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Addralign: 16}, data: text},
		{name: ".stapsdt.base", sec: secBase, Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC), Addralign: 1}, data: []byte{0}},
	}
	if shared {
		sections = append(sections,
			shdr{name: ".gnu.hash", sec: secGnuHash, Section64: elf.Section64{Type: uint32(elf.SHT_GNU_HASH), Flags: uint64(elf.SHF_ALLOC), Addralign: e.addrSize()}, data: gnuHash},
			shdr{name: ".dynsym", sec: secDynsym, Section64: elf.Section64{Type: uint32(elf.SHT_DYNSYM), Flags: uint64(elf.SHF_ALLOC), Addralign: e.addrSize(), Entsize: e.symSize(), Info: 1}},
			shdr{name: ".dynstr", sec: secDynstr, Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Flags: uint64(elf.SHF_ALLOC), Addralign: 1}, data: dynstr},
			shdr{name: ".dynamic", sec: secDynamic, Section64: elf.Section64{Type: uint32(elf.SHT_DYNAMIC), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: e.addrSize(), Entsize: e.dynSize()}},
		)
	}
	sections = append(sections,
		shdr{name: ".probes", sec: secProbes, Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: 8}, data: f.probes},
		shdr{name: ".data", sec: secData, Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: 8}, data: f.data},
		shdr{name: ".note.stapsdt", Section64: elf.Section64{Type: uint32(elf.SHT_NOTE), Addralign: 4}, data: notes},
		shdr{name: ".symtab", Section64: elf.Section64{Type: uint32(elf.SHT_SYMTAB), Addralign: e.addrSize(), Entsize: e.symSize()}},
		shdr{name: ".strtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
		shdr{name: ".shstrtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
	)
	index := make(map[string]uint32)
	for i := range sections {
		index[sections[i].name] = uint32(i + 1)
	}
	secIndex := make(map[section]uint16)
	for i, s := range sections {
		if s.sec != secNone {
			secIndex[s.sec] = uint16(i + 1)
		}
	}
	symtab, strtab, firstGlobal := f.symbols(e, im, secIndex)
	at := func(name string) *shdr { return &sections[index[name]-1] }
	at(".symtab").data, at(".symtab").Link, at(".symtab").Info = symtab, index[".strtab"], firstGlobal
	at(".strtab").data = strtab
	if shared {
		dynsym := make([]byte, e.symSize())
		for i, s := range dsyms {
			lb := f.labels[s.label]
			typ := elf.STT_OBJECT
			if lb.sec == secText {
				typ = elf.STT_FUNC
			}
			dynsym = e.sym(dynsym, elf.Sym64{Name: dynNames[i], Info: elf.ST_INFO(elf.STB_GLOBAL, typ), Shndx: secIndex[lb.sec], Value: im.Addr(s.label), Size: lb.size})
		}
		at(".dynsym").data, at(".dynsym").Link = dynsym, index[".dynstr"]
		at(".gnu.hash").Link = index[".dynsym"]
		dynamic = e.dyn(dynamic, elf.DT_GNU_HASH, im.addr[secGnuHash])
		dynamic = e.dyn(dynamic, elf.DT_STRTAB, im.addr[secDynstr])
		dynamic = e.dyn(dynamic, elf.DT_SYMTAB, im.addr[secDynsym])
		dynamic = e.dyn(dynamic, elf.DT_STRSZ, uint64(len(dynstr)))
		dynamic = e.dyn(dynamic, elf.DT_SYMENT, e.symSize())
		if f.Soname != "" {
			dynamic = e.dyn(dynamic, elf.DT_SONAME, soname)
		}
		dynamic = e.dyn(dynamic, elf.DT_NULL, 0)
		at(".dynamic").data, at(".dynamic").Link = dynamic, index[".dynstr"]
	}
	shstrtab := []byte{0}
	for i := range sections {
		sections[i].Name = uint32(len(shstrtab))
		shstrtab = append(append(shstrtab, sections[i].name...), 0)
	}
	at(".shstrtab").data = shstrtab

	end := endRW
	for i := range sections {
		s := &sections[i]
		s.Size = uint64(len(s.data))
		if s.sec != secNone {
			s.Off, s.Addr = im.off[s.sec], im.addr[s.sec]
			continue
		}
		end = align(end, s.Addralign)
		s.Off = end
		end += s.Size
	}
	shoff := align(end, e.addrSize())

	typ := elf.ET_EXEC
	if f.Type != Exec {
		typ = elf.ET_DYN
	}
	var entry uint64
	if f.entry != 0 {
		entry = im.Addr(f.entry)
	}
	phdrs := []elf.Prog64{
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Off: 0, Vaddr: base, Paddr: base, Filesz: endRX, Memsz: endRX, Align: page},
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_W), Off: startRW, Vaddr: base + startRW, Paddr: base + startRW, Filesz: endRW - startRW, Memsz: endRW - startRW, Align: page},
	}
	if shared {
		d := at(".dynamic")
		phdrs = append(phdrs, elf.Prog64{Type: uint32(elf.PT_DYNAMIC), Flags: uint32(elf.PF_R | elf.PF_W), Off: d.Off, Vaddr: d.Addr, Paddr: d.Addr, Filesz: d.Size, Memsz: d.Size, Align: e.addrSize()})
	}
	phdrs = append(phdrs, elf.Prog64{Type: uint32(elf.PT_GNU_STACK), Flags: uint32(elf.PF_R | elf.PF_W), Align: 16})

	buf := e.header(make([]byte, 0, shoff+e.shdrSize()*uint64(len(sections)+1)), typ, entry, shoff, len(phdrs), len(sections))
	for _, p := range phdrs {
		buf = e.prog(buf, p)
	}
	buf = buf[:shoff]
	for _, s := range sections {
		copy(buf[s.Off:], s.data)
	}
	buf = e.section(buf, elf.Section64{}) // section 0
	for _, s := range sections {
		buf = e.section(buf, s.Section64)
	}
	im.Bytes = buf
	return im, nil
}

// patch writes the displacement disp of fx into text.
func (e *encoder) patch(text []byte, fx fixup, disp int64) error {
	switch fx.kind {
	case fixRel32:
		if disp != int64(int32(disp)) {
			return fmt.Errorf("displacement %d out of range", disp)
		}
		e.order.PutUint32(text[fx.off:], uint32(int32(disp)))
		return nil
	case fixARM64Page21:
		page := (int64(fx.end&0xfff) + disp) >> 12
		if page != page<<43>>43 {
			return fmt.Errorf("adrp page displacement %d out of range", page)
		}
		e.or32(text[fx.off:], uint32(page&3)<<29|uint32(page>>2&0x7ffff)<<5)
		return nil
	case fixARM64Lo12:
		e.or32(text[fx.off:], uint32((int64(fx.end&0xfff)+disp)&0xfff)<<10)
		return nil
	case fixARM64Branch26, fixARM64Branch19:
		bits := 26
		if fx.kind == fixARM64Branch19 {
			bits = 19
		}
		w := disp >> 2
		if disp&3 != 0 || w != w<<(64-bits)>>(64-bits) {
			return fmt.Errorf("branch displacement %d out of range", disp)
		}
		field := uint32(w) & (1<<bits - 1)
		if bits == 19 {
			field <<= 5
		}
		e.or32(text[fx.off:], field)
		return nil
	case fixS390Dbl32:
		if disp&1 != 0 || disp>>1 != int64(int32(disp>>1)) {
			return fmt.Errorf("displacement %d odd or out of range", disp)
		}
		e.order.PutUint32(text[fx.off:], uint32(int32(disp>>1)))
		return nil
	}
	return fmt.Errorf("fixup kind %d unknown", fx.kind)
}

// gnuHash returns a .gnu.hash section for syms, which follow the null
// symbol in .dynsym: one bucket holding them all and a bloom filter that
// lets every name through.
func (e *encoder) gnuHash(syms []dynSym) []byte {
	var b []byte
	b = e.u32(b, 1) // nbuckets
	b = e.u32(b, 1) // symoffset: the first symbol after the null one
	b = e.u32(b, 1) // bloom words
	b = e.u32(b, 6) // bloom shift
	b = e.addr(b, math.MaxUint64)
	if len(syms) == 0 {
		return e.u32(b, 0)
	}
	b = e.u32(b, 1)
	for i, s := range syms {
		h := uint32(5381)
		for _, c := range []byte(s.name) {
			h = h*33 + uint32(c)
		}
		h &^= 1
		if i == len(syms)-1 {
			h |= 1
		}
		b = e.u32(b, h)
	}
	return b
}

// appendNotes appends the stapsdt notes, laid out as sys/sdt.h's
// _SDT_ASM_BODY emits them, with addresses of the machine's size.
func (f *File) appendNotes(e *encoder, b []byte, im *Image) ([]byte, error) {
	const owner = "stapsdt\x00"
	for _, n := range f.notes {
		if n.PC == 0 {
			return nil, fmt.Errorf("link: note %s:%s: no pc", n.Provider, n.Name)
		}
		descsz := 3*int(e.addrSize()) + len(n.Provider) + len(n.Name) + len(n.Args) + 3
		if uint64(descsz) > math.MaxUint32 {
			return nil, fmt.Errorf("link: note %s:%s: too long", n.Provider, n.Name)
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
