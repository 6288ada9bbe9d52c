package stapsdt

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// Section names read by this package.
const (
	NoteSection = ".note.stapsdt"
	BaseSection = ".stapsdt.base"
)

// Open reads the probes of the named ELF file.
//
// Errors name the file. When some notes are malformed, Open returns the
// File with the probes it could decode together with an error that joins
// one *FormatError per bad note, so that one damaged note does not hide the
// others.
func Open(name string) (*File, error) {
	fd, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// "FILE: no such file or directory", like the other errors.
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s: is a directory", name)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", name)
	case st.Size() == 0:
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrNotELF)
	}
	f, err := NewFile(fd)
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return f, err
}

// NewFile reads the probes of the ELF file in r, which must start at
// position 0. See Open for how errors are reported.
func NewFile(r io.ReaderAt) (*File, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != elf.ELFMAG {
		return nil, ErrNotELF
	}
	ef, err := elf.NewFile(r)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("read ELF headers: file is truncated: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("read ELF headers: %w", err)
	}
	f := &File{
		Class:     ef.Class,
		ByteOrder: ef.Data,
		Type:      ef.Type,
		Machine:   ef.Machine,
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			f.Segments = append(f.Segments, Segment{Vaddr: p.Vaddr, Memsz: p.Memsz, Offset: p.Off, Filesz: p.Filesz, Flags: p.Flags})
		}
	}
	for _, s := range ef.Sections {
		if s.Flags&(elf.SHF_ALLOC|elf.SHF_EXECINSTR) == elf.SHF_ALLOC|elf.SHF_EXECINSTR {
			f.code = append(f.code, addrRange{s.Addr, s.Addr + s.Size})
		}
	}
	if s := ef.Section(BaseSection); s != nil {
		f.BaseAddr, f.HasBase = s.Addr, true
	}
	addrSize := 8
	if ef.Class == elf.ELFCLASS32 {
		addrSize = 4
	}
	var errs []error
	for i, s := range ef.Sections {
		if s.Name != NoteSection || s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", NoteSection, err))
			continue
		}
		if ef.Type == elf.ET_REL {
			if err := relocate(ef, i, data, addrSize); err != nil {
				errs = append(errs, fmt.Errorf("relocate %s: %w", NoteSection, err))
			}
		}
		// data is not touched again: the probes' strings share it.
		f.Probes = slices.Grow(f.Probes, countNotes(data, ef.ByteOrder))
		errs = append(errs, parseNotes(data, ef.ByteOrder, addrSize, s.Offset, func(n rawNote) {
			f.Probes = append(f.Probes, f.probe(n, s.Offset))
		})...)
	}
	return f, errors.Join(errs...)
}

// probe turns a raw note into a Probe: it applies the .stapsdt.base
// adjustment and finds the file offsets.
func (f *File) probe(n rawNote, secOff uint64) Probe {
	p := Probe{
		Provider:      n.provider,
		Name:          n.name,
		Args:          n.args,
		PC:            n.pc,
		Semaphore:     n.sema,
		Base:          n.base,
		NotePC:        n.pc,
		NoteSemaphore: n.sema,
		NoteOffset:    secOff + uint64(n.off),
	}
	if f.HasBase {
		adj := f.BaseAddr - n.base
		p.PC += adj
		if p.Semaphore != 0 {
			p.Semaphore += adj
		}
	}
	p.PCOffset, p.PCOffsetErr = f.fileOffset("pc", p.PC, elf.PF_X, 1)
	if p.PCOffsetErr == nil && !f.inCode(p.PC) {
		p.PCOffsetErr = &OffsetError{What: "pc", Addr: p.PC, Msg: "is in an executable segment but in no code section"}
	}
	if p.Semaphore != 0 {
		p.SemaphoreOffset, p.SemaphoreOffsetErr = f.fileOffset("semaphore", p.Semaphore, elf.PF_W, 2)
		if p.SemaphoreOffsetErr == nil && p.Semaphore%2 != 0 {
			// The kernel updates the 16-bit counter in place; the
			// program reads an aligned one, and a tracer raising this
			// address would never enable the probe.
			p.SemaphoreOffsetErr = &OffsetError{What: "semaphore", Addr: p.Semaphore, Msg: "is not 2-byte aligned", Err: ErrMisaligned}
		}
	}
	return p
}

// fileOffset translates addr to a file offset through the PT_LOAD
// segments. The size bytes at addr must lie in the file image of a segment
// with the flag want.
func (f *File) fileOffset(what string, addr uint64, want elf.ProgFlag, size uint64) (uint64, error) {
	if f.Type == elf.ET_REL {
		return 0, &OffsetError{What: what, Addr: addr, Msg: "is in a relocatable object, which has no load segments"}
	}
	for _, s := range f.Segments {
		if addr < s.Vaddr || addr-s.Vaddr >= s.Memsz {
			continue
		}
		switch {
		case s.Flags&want == 0:
			kind := "executable"
			if want == elf.PF_W {
				kind = "writable"
			}
			return 0, &OffsetError{What: what, Addr: addr, Msg: fmt.Sprintf("is in a PT_LOAD segment that is not %s (flags %v)", kind, s.Flags)}
		case addr-s.Vaddr+size > s.Filesz:
			return 0, &OffsetError{What: what, Addr: addr, Msg: "is past the file image of its PT_LOAD segment (in .bss)"}
		}
		return addr - s.Vaddr + s.Offset, nil
	}
	return 0, &OffsetError{What: what, Addr: addr, Msg: "is in no PT_LOAD segment"}
}

// inCode reports whether addr lies in a code section. A file whose
// section headers name no code section (stripped of them by unusual
// tools) is taken on its segments' word.
func (f *File) inCode(addr uint64) bool {
	if len(f.code) == 0 {
		return true
	}
	for _, r := range f.code {
		if addr >= r.start && addr < r.end {
			return true
		}
	}
	return false
}

// relocate applies the relocations of section sec, as found in a
// relocatable object, to data: each relocated address becomes the value of
// its symbol plus the addend, the way readelf shows the notes of an object
// file.
func relocate(ef *elf.File, sec int, data []byte, addrSize int) error {
	var syms []elf.Symbol
	for _, rs := range ef.Sections {
		if (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) || int(rs.Info) != sec {
			continue
		}
		if syms == nil {
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

func writeAddr(b []byte, order binary.ByteOrder, size int, v uint64) {
	if size == 4 {
		order.PutUint32(b, uint32(v))
		return
	}
	order.PutUint64(b, v)
}
