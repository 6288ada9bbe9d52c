package stapsdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// FuzzParseNotes checks that no note section or segment, however
// damaged, makes the parser panic or read out of bounds, that every
// decoded note lies inside the data, and that the errors kept stay few.
func FuzzParseNotes(f *testing.F) {
	f.Add(note(binary.LittleEndian, "stapsdt\x00", 3, append(make([]byte, 24), "p\x00q\x008@%rax\x00"...)), false, false, false)
	f.Add(note(binary.BigEndian, "stapsdt\x00", 3, append(make([]byte, 12), "p\x00q\x00\x00"...)), true, true, false)
	f.Add(append(note(binary.LittleEndian, "GNU\x00", 3, make([]byte, 20)), note(binary.LittleEndian, "stapsdt\x00", 3, append(make([]byte, 24), "p\x00q\x00\x00"...))...), false, false, true)
	f.Fuzz(func(t *testing.T, data []byte, big, is32, segment bool) {
		l := notesLayout{order: binary.LittleEndian, addrSize: 8, align: 4, foreign: segment}
		if big {
			l.order = binary.BigEndian
		}
		if is32 {
			l.addrSize = 4
		}
		if segment && !is32 {
			l.align = 8
		}
		var (
			notes []rawNote
			errs  errorList
		)
		parseNotes(data, l, 0, &errs, func(n rawNote) { notes = append(notes, n) })
		for _, n := range notes {
			if n.off < 0 || n.off >= len(data) || n.descOff > len(data) {
				t.Fatalf("note at %d (desc %d) outside %d bytes", n.off, n.descOff, len(data))
			}
			if n.provider == "" || n.name == "" {
				t.Fatalf("note at %d decoded with an empty provider or name", n.off)
			}
		}
		if len(errs.errs) > MaxFormatErrors {
			t.Fatalf("%d errors kept, want at most %d", len(errs.errs), MaxFormatErrors)
		}
	})
}

// FuzzNewFile feeds whole files, starting from well-formed ones of every
// class and byte order.
func FuzzNewFile(f *testing.F) {
	for _, s := range []elfSpec{
		{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_DYN, machine: elf.EM_X86_64},
		{class: elf.ELFCLASS32, order: binary.BigEndian, typ: elf.ET_EXEC, machine: elf.EM_PPC},
		{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_REL, machine: elf.EM_AARCH64},
	} {
		s.notes = []testNote{
			stdNote("p", "a", "-4@-4(%rbp)", textAddr+textOff, dataAddr+semaOff),
			stdNote("p", "b", "8@%rax", textAddr+textOff+1, 0),
		}
		f.Add(buildELF(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := NewFile(bytes.NewReader(data))
		if file == nil && err == nil {
			t.Fatal("NewFile returned neither a file nor an error")
		}
	})
}
