package stapsdt

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sdtkit/sdtkit/internal/regfile"
)

// Section names read by this package.
const (
	NoteSection = ".note.stapsdt"
	BaseSection = ".stapsdt.base"
)

// Open reads the probes of the named ELF file.
//
// Errors name the file. The file must be a regular file: a named pipe or
// a device is refused without being read, and without blocking. When some
// notes are malformed, Open returns the File with the probes it could
// decode together with an error that joins one *FormatError per bad note
// (at most MaxFormatErrors, then one error that counts the others), so
// that one damaged note does not hide the others. An ar archive is
// refused with ErrArchive: OpenArchive reads its members.
func Open(name string) (*File, error) {
	fd, size, err := open(name)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	if size == 0 {
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrNotELF)
	}
	f, err := newFile(fd, size)
	return f, nameErrors(name, err)
}

// open opens the named regular file and returns its size, with errors
// that name it.
func open(name string) (*os.File, int64, error) {
	fd, err := regfile.Open(name)
	if err != nil {
		var te *regfile.TypeError
		if errors.As(err, &te) {
			return nil, 0, fmt.Errorf("%s: %w, %w", name, te, ErrNotELF)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// "FILE: no such file or directory", like the other errors.
			err = pe.Err
		}
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return fd, st.Size(), nil
}

// Read is NewFile for a file already open, with errors naming the file
// name as those of Open do.
func Read(r io.ReaderAt, name string) (*File, error) {
	f, err := NewFile(r)
	return f, nameErrors(name, err)
}

// nameErrors puts the file name in front of err or, when err joins
// several, of each of them, so that each can be shown on its own line.
func nameErrors(name string, err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		named := make([]error, len(errs))
		for i, e := range errs {
			named[i] = fmt.Errorf("%s: %w", name, e)
		}
		return errors.Join(named...)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// NewFile reads the probes of the ELF file in r, which must start at
// position 0. See Open for how errors are reported.
func NewFile(r io.ReaderAt) (*File, error) {
	return newFile(r, readerSize(r))
}

// readerSize returns the size of the data of r, or -1 when r does not
// tell it.
func readerSize(r io.ReaderAt) int64 {
	switch r := r.(type) {
	case interface{ Size() int64 }:
		return r.Size()
	case interface{ Stat() (fs.FileInfo, error) }:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// newFile is NewFile for a file of size bytes (-1 if unknown), which
// bounds the notes it reads.
func newFile(r io.ReaderAt, size int64) (*File, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != elf.ELFMAG {
		if isArchive(r) {
			return nil, ErrArchive
		}
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
	nr := &noteReader{f: f, ef: ef, size: size, addrSize: 8, budget: readBudget}
	if ef.Class == elf.ELFCLASS32 {
		nr.addrSize = 4
	}
	if len(ef.Sections) > 0 {
		nr.sections()
	} else {
		// Without section headers (removed by strip or never written),
		// notes are found as the loader sees them, as readelf -n does.
		nr.segments()
	}
	f.readInsns(r)
	return f, nr.errs.err()
}

// probe turns a raw note into a Probe: it applies the .stapsdt.base
// adjustment and finds the file offsets.
func (f *File) probe(n rawNote, secOff uint64) Site {
	p := Site{
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
