package elfwriter

import (
	"debug/elf"
	"fmt"
)

// SemaphoreObject returns an x86-64 relocatable object (ET_REL) that
// defines one 2-byte semaphore for each of names, in a section .probes, as
// systemtap's dtrace -G does: global objects of hidden visibility, zero
// until a tracer raises them. Linked with objects whose probe notes refer
// to the semaphores by name, it gives each its address.
func SemaphoreObject(names []string) ([]byte, error) {
	return SemaphoreObjectFor(elf.EM_X86_64, names)
}

// SemaphoreObjectFor is SemaphoreObject for machine m, one of Machines().
func SemaphoreObjectFor(m elf.Machine, names []string) ([]byte, error) {
	a, ok := arches[m]
	if !ok {
		return nil, fmt.Errorf("semaphore object: machine %v not supported", m)
	}
	e := &encoder{machine: m, arch: a}
	seen := make(map[string]bool)
	strtab := []byte{0}
	// The null symbol, a section symbol for .probes, as assemblers write,
	// then the semaphores, all global: locals come first.
	symtab := e.sym(nil, elf.Sym64{})
	symtab = e.sym(symtab, elf.Sym64{Info: elf.ST_INFO(elf.STB_LOCAL, elf.STT_SECTION), Shndx: 1})
	for i, name := range names {
		if name == "" || seen[name] {
			return nil, fmt.Errorf("semaphore object: bad or repeated name %q", name)
		}
		seen[name] = true
		symtab = e.sym(symtab, elf.Sym64{
			Name:  uint32(len(strtab)),
			Info:  elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT),
			Other: byte(elf.STV_HIDDEN),
			Shndx: 1,
			Value: uint64(2 * i),
			Size:  2,
		})
		strtab = append(append(strtab, name...), 0)
	}

	sections := sectionTable{
		progbits(".probes", secNone, elf.SHF_ALLOC|elf.SHF_WRITE, 2, make([]byte, 2*len(names))),
		// An empty .note.GNU-stack says the stack need not be executable.
		progbits(".note.GNU-stack", secNone, 0, 1, nil),
		{name: ".symtab", Section64: elf.Section64{Type: uint32(elf.SHT_SYMTAB), Addralign: e.addrSize(), Entsize: e.symSize(), Link: 4, Info: 2}, data: symtab},
		{name: ".strtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}, data: strtab},
		{name: ".shstrtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
	}
	sections.names()

	end := e.ehdrSize()
	for i := range sections {
		s := &sections[i]
		end = align(end, s.Addralign)
		s.Off = end
		s.Size = uint64(len(s.data))
		end += s.Size
	}
	shoff := align(end, e.addrSize())
	buf := e.header(nil, elf.ET_REL, 0, shoff, 0, len(sections))
	buf = append(buf, make([]byte, shoff-uint64(len(buf)))...)
	for _, s := range sections {
		copy(buf[s.Off:], s.data)
	}
	buf = e.section(buf, elf.Section64{}) // section 0
	for _, s := range sections {
		buf = e.section(buf, s.Section64)
	}
	return buf, nil
}
