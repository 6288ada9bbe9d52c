package elfwriter

import (
	"bytes"
	"debug/elf"
	"fmt"
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

// A linker links one File: it lays the sections out in two segments,
// resolves the labels and writes the ELF file.
type linker struct {
	f    *File
	e    *encoder
	im   *Image
	base uint64 // the link address of the file's first byte
	page uint64 // the alignment of the segments
	dyn  *dynamic

	// File offsets: the end of the read-only executable segment, which
	// starts at 0, and the start and end of the writable one.
	endRX, startRW, endRW uint64
}

// Link lays out the sections, resolves labels and returns the ELF file.
func (f *File) Link() (*Image, error) {
	l, err := f.newLinker()
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	l.layout()
	text, err := l.relocate()
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	notes, err := f.appendNotes(l.e, nil, l.im)
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	sections := l.sections(text, notes)
	l.im.Bytes = l.write(sections, l.place(sections))
	return l.im, nil
}

// newLinker checks that f can be linked and returns its linker.
func (f *File) newLinker() (*linker, error) {
	a, err := f.arch()
	if err != nil {
		return nil, err
	}
	if f.entry == 0 && f.Type != Shared {
		return nil, fmt.Errorf("no entry point")
	}
	for i, l := range f.labels[1:] {
		if !l.bound {
			return nil, fmt.Errorf("label %d %q: %w", i+1, l.name, ErrUnbound)
		}
	}
	l := &linker{
		f:    f,
		e:    &encoder{machine: f.machine(), arch: a},
		im:   &Image{addr: map[section]uint64{}, off: map[section]uint64{}, labels: f.labels},
		base: f.Base,
		page: f.PageSize,
	}
	if l.base == 0 && f.Type == Exec {
		l.base = a.execBase
	}
	if l.page == 0 {
		l.page = pageSize
	}
	if f.Type == Shared {
		l.dyn = newDynamic(f, l.e)
	}
	return l, nil
}

// layout places the sections that are loaded: the read-only executable
// segment holds the headers, .text, .stapsdt.base and the dynamic
// symbols; the writable one .dynamic, .probes and .data.
func (l *linker) layout() {
	f, e, im := l.f, l.e, l.im
	set := func(sec section, off uint64) {
		im.off[sec] = off
		im.addr[sec] = l.base + off
	}
	set(secText, pageSize)
	set(secBase, pageSize+uint64(len(f.text)))
	l.endRX = im.off[secBase] + 1
	if l.dyn != nil {
		set(secGnuHash, align(l.endRX, e.addrSize()))
		set(secDynsym, align(im.off[secGnuHash]+uint64(len(l.dyn.hash)), e.addrSize()))
		set(secDynstr, im.off[secDynsym]+uint64(len(l.dyn.syms)+1)*e.symSize())
		l.endRX = im.off[secDynstr] + uint64(len(l.dyn.strtab))
	}
	l.startRW = align(l.endRX, l.page)
	off := l.startRW
	if l.dyn != nil {
		set(secDynamic, off)
		off += uint64(l.dyn.entries()) * e.dynSize()
	}
	set(secProbes, align(off, 8))
	set(secData, align(im.off[secProbes]+uint64(len(f.probes)), 8))
	l.endRW = im.off[secData] + uint64(len(f.data))
	im.Base = im.addr[secBase]
}

// relocate returns .text with the displacements of its fixups resolved.
func (l *linker) relocate() ([]byte, error) {
	text := bytes.Clone(l.f.text)
	for _, fx := range l.f.fixups {
		disp := int64(l.im.Addr(fx.target)) + fx.addend - int64(l.im.addr[secText]+uint64(fx.end))
		if err := l.e.patch(text, fx, disp); err != nil {
			return nil, err
		}
	}
	return text, nil
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

// write returns the ELF file: its header, the program headers, the
// contents of the sections and, at shoff, the section headers.
func (l *linker) write(sections sectionTable, shoff uint64) []byte {
	e := l.e
	typ := elf.ET_EXEC
	if l.f.Type != Exec {
		typ = elf.ET_DYN
	}
	var entry uint64
	if l.f.entry != 0 {
		entry = l.im.Addr(l.f.entry)
	}
	phdrs := l.programHeaders(sections)
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
	return buf
}

// programHeaders returns the segments: the two PT_LOAD, PT_DYNAMIC in a
// shared object, and PT_GNU_STACK.
func (l *linker) programHeaders(sections sectionTable) []elf.Prog64 {
	base, page := l.base, l.page
	phdrs := []elf.Prog64{
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Off: 0, Vaddr: base, Paddr: base, Filesz: l.endRX, Memsz: l.endRX, Align: page},
		{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_W), Off: l.startRW, Vaddr: base + l.startRW, Paddr: base + l.startRW, Filesz: l.endRW - l.startRW, Memsz: l.endRW - l.startRW, Align: page},
	}
	if l.dyn != nil {
		d := sections.at(".dynamic")
		phdrs = append(phdrs, elf.Prog64{Type: uint32(elf.PT_DYNAMIC), Flags: uint32(elf.PF_R | elf.PF_W), Off: d.Off, Vaddr: d.Addr, Paddr: d.Addr, Filesz: d.Size, Memsz: d.Size, Align: l.e.addrSize()})
	}
	return append(phdrs, elf.Prog64{Type: uint32(elf.PT_GNU_STACK), Flags: uint32(elf.PF_R | elf.PF_W), Align: 16})
}
