package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// A corruption is a defect written into a program on purpose, so that
// tools reading notes can be tested on bad input.
type corruption string

// corruptions are the kinds --corrupt accepts; doc.go says what each does.
var corruptions = []string{"truncated", "badnamesz", "nonul", "badowner", "misaligned-sema", "pc-outside-text"}

func parseCorruption(s string) (corruption, error) {
	if !slices.Contains(corruptions, s) {
		return "", fmt.Errorf("unknown kind %q, want one of %s", s, strings.Join(corruptions, ", "))
	}
	return corruption(s), nil
}

// apply writes the defect into the ELF file b, which sdtgen wrote.
func (c corruption) apply(b []byte) error {
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return err
	}
	notes := ef.Section(".note.stapsdt")
	if notes == nil || notes.Size < 12 {
		return fmt.Errorf("corrupt %s: no notes", c)
	}
	le := binary.LittleEndian
	first := b[notes.Offset : notes.Offset+notes.Size]
	namesz := le.Uint32(first)
	descsz := le.Uint32(first[4:])
	desc := first[12+align4(namesz):]
	switch c {
	case "truncated":
		var last uint64 // offset of the last note's descriptor in the section
		var lastsz uint32
		for off := uint64(0); off+12 <= notes.Size; {
			n, d := le.Uint32(first[off:]), le.Uint32(first[off+4:])
			last, lastsz = off+12+uint64(align4(n)), d
			off = last + uint64(align4(d))
		}
		setSectionSize(b, ef, notes, last+uint64(lastsz/2))
	case "badnamesz":
		le.PutUint32(first, 0xffffffff)
	case "nonul":
		desc[descsz-1] = 'X'
	case "badowner":
		copy(first[12:], "stapsdX")
	case "misaligned-sema":
		if le.Uint64(desc[16:]) == 0 {
			return fmt.Errorf("corrupt %s: the first probe has no semaphore", c)
		}
		le.PutUint64(desc[16:], le.Uint64(desc[16:])+1)
	case "pc-outside-text":
		data := ef.Section(".data")
		le.PutUint64(desc, data.Addr)
	}
	return nil
}

// setSectionSize rewrites the sh_size of section s in the ELF file b.
func setSectionSize(b []byte, ef *elf.File, s *elf.Section, size uint64) {
	for i, t := range ef.Sections {
		if t == s {
			shoff := binary.LittleEndian.Uint64(b[0x28:]) // e_shoff
			binary.LittleEndian.PutUint64(b[shoff+uint64(i)*64+32:], size)
			return
		}
	}
}

func align4(n uint32) uint32 { return (n + 3) &^ 3 }
