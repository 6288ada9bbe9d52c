package elfwriter

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// SemaphoreObject returns an x86-64 relocatable object (ET_REL) that
// defines one 2-byte semaphore for each of names, in a section .probes, as
// systemtap's dtrace -G does: global objects of hidden visibility, zero
// until a tracer raises them. Linked with objects whose probe notes refer
// to the semaphores by name, it gives each its address.
func SemaphoreObject(names []string) ([]byte, error) {
	seen := make(map[string]bool)
	strtab := []byte{0}
	var syms []elf.Sym64
	// A section symbol for .probes, as assemblers write, then the
	// semaphores, all global: locals come first.
	syms = append(syms, elf.Sym64{}, elf.Sym64{Info: elf.ST_INFO(elf.STB_LOCAL, elf.STT_SECTION), Shndx: 1})
	for i, name := range names {
		if name == "" || seen[name] {
			return nil, fmt.Errorf("semaphore object: bad or repeated name %q", name)
		}
		seen[name] = true
		syms = append(syms, elf.Sym64{
			Name:  uint32(len(strtab)),
			Info:  elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT),
			Other: byte(elf.STV_HIDDEN),
			Shndx: 1,
			Value: uint64(2 * i),
			Size:  2,
		})
		strtab = append(strtab, name...)
		strtab = append(strtab, 0)
	}
	symtab := make([]byte, 0, symSize*len(syms))
	for _, s := range syms {
		symtab, _ = binary.Append(symtab, binary.LittleEndian, &s)
	}

	sections := []shdr{
		{name: ".probes", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), Addralign: 2}, data: make([]byte, 2*len(names))},
		// An empty .note.GNU-stack says the stack need not be executable.
		{name: ".note.GNU-stack", Section64: elf.Section64{Type: uint32(elf.SHT_PROGBITS), Addralign: 1}},
		{name: ".symtab", Section64: elf.Section64{Type: uint32(elf.SHT_SYMTAB), Addralign: 8, Entsize: symSize, Link: 4, Info: 2}, data: symtab},
		{name: ".strtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}, data: strtab},
		{name: ".shstrtab", Section64: elf.Section64{Type: uint32(elf.SHT_STRTAB), Addralign: 1}},
	}
	shstrtab := []byte{0}
	for i := range sections {
		sections[i].Name = uint32(len(shstrtab))
		shstrtab = append(shstrtab, sections[i].name...)
		shstrtab = append(shstrtab, 0)
	}
	sections[len(sections)-1].data = shstrtab

	end := uint64(ehdrSize)
	for i := range sections {
		s := &sections[i]
		end = align(end, s.Addralign)
		s.Off = end
		s.Size = uint64(len(s.data))
		end += s.Size
	}
	shoff := align(end, 8)
	buf := make([]byte, shoff+uint64(shdrSize*(len(sections)+1)))
	for _, s := range sections {
		copy(buf[s.Off:], s.data)
	}
	hdr := header(elf.ET_REL, 0, shoff, 0, len(sections))
	w := &sliceWriter{buf: buf}
	binary.Write(w.at(0), binary.LittleEndian, &hdr)
	w.at(shoff + shdrSize) // section 0 stays zero
	for i := range sections {
		binary.Write(w, binary.LittleEndian, &sections[i].Section64)
	}
	return buf, nil
}
