package stapsdt

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// MaxReadSize is the most bytes read from the sections of one file: its
// .note.stapsdt sections or PT_NOTE segments and, in a relocatable
// object, the relocations and symbols of the notes. A section that would
// go past it is reported as an error instead of being read, so that a
// damaged or hostile file (one huge section, or many section headers
// naming the same bytes) cannot make a reader allocate gigabytes. The
// notes of a program with 1,000,000 probe sites take about 66 MB.
const MaxReadSize = 256 << 20

// readBudget is MaxReadSize, lowered by tests.
var readBudget uint64 = MaxReadSize

// A noteReader reads the notes of one ELF file into f.Probes, from its
// .note.stapsdt sections or, without section headers, from its PT_NOTE
// segments, and collects the errors.
type noteReader struct {
	f        *File
	ef       *elf.File
	size     int64 // of the file, -1 if unknown
	addrSize int
	budget   uint64 // of MaxReadSize, what is left to read
	errs     errorList
}

// sections reads every .note.stapsdt section.
func (nr *noteReader) sections() {
	for i, s := range nr.ef.Sections {
		if s.Name != NoteSection || s.Type != elf.SHT_NOTE {
			continue
		}
		if err := nr.check(fmt.Sprintf("section %s", NoteSection), s.Offset, s.FileSize, s.Size); err != nil {
			nr.errs.add(err)
			continue
		}
		data, err := nr.read(s)
		if err != nil {
			nr.errs.add(fmt.Errorf("read %s: %w", NoteSection, err))
			continue
		}
		if nr.ef.Type == elf.ET_REL {
			if err := nr.relocate(i, data); err != nil {
				nr.errs.add(fmt.Errorf("relocate %s: %w", NoteSection, err))
			}
		}
		nr.parse(data, s.Offset, 4, false)
	}
}

// segments reads the stapsdt notes of every PT_NOTE segment, passing
// over the notes of other owners (build IDs, ABI tags) that share them.
func (nr *noteReader) segments() {
	for _, p := range nr.ef.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		what := fmt.Sprintf("PT_NOTE segment at file offset %#x", p.Off)
		if err := nr.check(what, p.Off, p.Filesz, p.Filesz); err != nil {
			nr.errs.add(err)
			continue
		}
		data := make([]byte, p.Filesz)
		if n, err := p.ReadAt(data, 0); n < len(data) {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			nr.errs.add(fmt.Errorf("read %s: %w", what, err))
			continue
		}
		// gABI: notes are padded to the segment's alignment, 4 or 8.
		align := uint64(4)
		if p.Align == 8 {
			align = 8
		}
		nr.parse(data, p.Off, align, true)
	}
}

// check refuses a region of the file that lies past its end or does not
// fit in what is left of MaxReadSize, before anything is allocated for
// it, and takes it from the budget otherwise. fileSize is its size in the
// file, memSize once read (larger when compressed).
func (nr *noteReader) check(what string, off, fileSize, memSize uint64) error {
	if nr.size >= 0 && (off > uint64(nr.size) || fileSize > uint64(nr.size)-off) {
		return fmt.Errorf("%s (%d bytes at offset %#x) runs past the end of the file (%d bytes)", what, fileSize, off, nr.size)
	}
	if memSize > nr.budget {
		if read := readBudget - nr.budget; read > 0 {
			return fmt.Errorf("%s is %d bytes, which with the %d read before it is more than the %d (%d MiB) read from a file", what, memSize, read, readBudget, readBudget>>20)
		}
		return fmt.Errorf("%s is %d bytes, more than the %d (%d MiB) read from a file", what, memSize, readBudget, readBudget>>20)
	}
	nr.budget -= memSize
	return nil
}

// read returns the data of section s, which check accepted.
func (nr *noteReader) read(s *elf.Section) ([]byte, error) {
	if nr.size < 0 || s.Flags&elf.SHF_COMPRESSED != 0 {
		// Read in chunks, as far as the data goes.
		return s.Data()
	}
	// Known to be in the file: read in one buffer of the final size.
	data := make([]byte, s.Size)
	if n, err := s.ReadAt(data, 0); n < len(data) {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return data, nil
}

// parse decodes the notes of data, found at file offset off, into probes.
func (nr *noteReader) parse(data []byte, off, align uint64, foreign bool) {
	f := nr.f
	l := notesLayout{order: nr.ef.ByteOrder, addrSize: nr.addrSize, align: align, foreign: foreign}
	// data is not touched again: the probes' strings share it.
	f.Sites = slices.Grow(f.Sites, countNotes(data, l))
	parseNotes(data, l, off, &nr.errs, func(n rawNote) {
		f.Sites = append(f.Sites, f.probe(n, off))
	})
}

// relocate applies the relocations of section sec, as found in a
// relocatable object, to data: each relocated address becomes the value of
// its symbol plus the addend, the way readelf shows the notes of an object
// file.
func (nr *noteReader) relocate(sec int, data []byte) error {
	ef, addrSize := nr.ef, nr.addrSize
	var syms []elf.Symbol
	for _, rs := range ef.Sections {
		if (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) || int(rs.Info) != sec {
			continue
		}
		if err := nr.check("section "+rs.Name, rs.Offset, rs.FileSize, rs.Size); err != nil {
			return err
		}
		if syms == nil {
			if st := symtab(ef); st != nil {
				if err := nr.check("section "+st.Name, st.Offset, st.FileSize, st.Size); err != nil {
					return err
				}
			}
			var err error
			if syms, err = ef.Symbols(); err != nil {
				return fmt.Errorf("read symbols: %w", err)
			}
		}
		rdata, err := rs.Data()
		if err != nil {
			return fmt.Errorf("read %s: %w", rs.Name, err)
		}
		rela := rs.Type == elf.SHT_RELA
		ent := 2 * addrSize
		if rela {
			ent += addrSize
		}
		for i := 0; i+ent <= len(rdata); i += ent {
			off := readAddr(rdata[i:], ef.ByteOrder, addrSize)
			info := readAddr(rdata[i+addrSize:], ef.ByteOrder, addrSize)
			symIdx := info >> 32
			if addrSize == 4 {
				symIdx = info >> 8
			}
			if off > uint64(len(data)) || uint64(len(data))-off < uint64(addrSize) {
				return fmt.Errorf("relocation at %#x is outside the section", off)
			}
			var val uint64
			if symIdx > 0 && symIdx <= uint64(len(syms)) {
				val = syms[symIdx-1].Value
			}
			if rela {
				val += readAddr(rdata[i+2*addrSize:], ef.ByteOrder, addrSize)
			} else {
				val += readAddr(data[off:], ef.ByteOrder, addrSize)
			}
			writeAddr(data[off:], ef.ByteOrder, addrSize, val)
		}
	}
	return nil
}

// symtab returns the section elf.File.Symbols reads, or nil.
func symtab(ef *elf.File) *elf.Section {
	for _, s := range ef.Sections {
		if s.Type == elf.SHT_SYMTAB {
			return s
		}
	}
	return nil
}

func writeAddr(b []byte, order binary.ByteOrder, size int, v uint64) {
	if size == 4 {
		order.PutUint32(b, uint32(v))
		return
	}
	order.PutUint64(b, v)
}
