package unwind

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

// A Table holds the call-frame information of one ELF file: its
// .eh_frame, searched through the binary search table of .eh_frame_hdr
// where the file has one, and its .debug_frame. Addresses are the
// file's link-time virtual addresses. A Table is safe for concurrent
// use.
type Table struct {
	// Machine is the file's machine.
	Machine elf.Machine
	// Loads are the file's PT_LOAD segments, which place file offsets at
	// link-time addresses.
	Loads []elf.ProgHeader

	frames []*frames // .eh_frame first

	mu   sync.Mutex
	cies map[cieKey]*cie

	rowMu sync.Mutex
	rows  map[uint64]*Row // by address: a stack seen again costs lookups only
}

// maxRows bounds the rows a Table keeps (a row is 1.6 KB): the return
// addresses of the stacks a probe sees most are few. When it holds that
// many, it starts over.
const maxRows = 256

type cieKey struct {
	s   *frames
	off int
}

// frames is one section of call-frame information with the means to
// find the FDE of an address in it.
type frames struct {
	section
	hdr   []byte // the search table of .eh_frame_hdr, 8 bytes an entry
	hdrAt uint64 // the address of .eh_frame_hdr, the base of the table's values
	index []fdeRef
}

// An fdeRef places one FDE, in a section with no search table.
type fdeRef struct {
	start, end uint64
	off        int
}

// NewTable reads the call-frame information of f. A file with none
// gives an empty Table, in which every lookup fails.
func NewTable(f *elf.File) (*Table, error) {
	if f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("unwind: %v files not supported", f.Class)
	}
	t := &Table{Machine: f.Machine, cies: map[cieKey]*cie{}}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			t.Loads = append(t.Loads, p.ProgHeader)
		}
	}
	if s := f.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS {
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("unwind: read .eh_frame: %w", err)
		}
		fr := &frames{section: section{data: data, addr: s.Addr, eh: true, order: f.ByteOrder}}
		if h := f.Section(".eh_frame_hdr"); h != nil && h.Type != elf.SHT_NOBITS {
			if hdr, err := h.Data(); err == nil {
				fr.hdr, fr.hdrAt = searchTable(hdr, h.Addr, s.Addr, f)
			}
		}
		if fr.hdr == nil {
			if err := fr.indexAll(); err != nil {
				return nil, fmt.Errorf("unwind: .eh_frame: %w", err)
			}
		}
		t.frames = append(t.frames, fr)
	}
	if s := f.Section(".debug_frame"); s != nil && s.Type != elf.SHT_NOBITS {
		data, err := s.Data() // decompressed, if it is
		if err != nil {
			return nil, fmt.Errorf("unwind: read .debug_frame: %w", err)
		}
		fr := &frames{section: section{data: data, order: f.ByteOrder}}
		if err := fr.indexAll(); err != nil {
			return nil, fmt.Errorf("unwind: .debug_frame: %w", err)
		}
		t.frames = append(t.frames, fr)
	}
	return t, nil
}

// Open reads the call-frame information of the ELF file at path.
func Open(path string) (*Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("unwind: %w", err)
	}
	defer f.Close()
	return NewTable(f)
}

// searchTable returns the binary search table of .eh_frame_hdr, hdr,
// linked at addr, when it has the one layout linkers write (4-byte
// values relative to the header) and its .eh_frame is the section at
// ehAddr; nil otherwise.
func searchTable(hdr []byte, addr, ehAddr uint64, f *elf.File) ([]byte, uint64) {
	if len(hdr) < 4 || hdr[0] != 1 {
		return nil, 0
	}
	r := reader{b: hdr, off: 4, order: f.ByteOrder}
	ehPtr := r.ptr(hdr[1], addr, addr)
	n := r.ptr(hdr[2], addr, addr)
	if r.err != nil || ehPtr != ehAddr || hdr[3] != peDataRel|peSdata4 || n > uint64(len(hdr)-r.off)/8 {
		return nil, 0
	}
	return hdr[r.off : r.off+int(n)*8], addr
}

// indexAll reads the range of every FDE of the section, for a section
// without a search table.
func (fr *frames) indexAll() error {
	cies := map[int]*cie{}
	for off := 0; off < len(fr.data); {
		body, next, cieOff, err := fr.entry(off)
		if err != nil {
			return err
		}
		if cieOff >= 0 {
			c, ok := cies[cieOff]
			if !ok {
				if c, err = fr.parseCIE(cieOff); err != nil {
					return err
				}
				cies[cieOff] = c
			}
			f, err := fr.parseFDE(off, body, c)
			if err != nil {
				return err
			}
			if f.end > f.start {
				fr.index = append(fr.index, fdeRef{f.start, f.end, off})
			}
		}
		if cieOff == -2 && fr.eh {
			break
		}
		off = next
	}
	slices.SortFunc(fr.index, func(a, b fdeRef) int { return cmp.Compare(a.start, b.start) })
	return nil
}

// candidate returns the offset of the FDE that covers pc if any does:
// the last that starts at or before it.
func (fr *frames) candidate(pc uint64) (int, bool) {
	if fr.hdr != nil {
		n := len(fr.hdr) / 8
		lo, hi := 0, n // the first entry starting after pc
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if fr.hdrAt+uint64(int64(int32(fr.order.Uint32(fr.hdr[8*m:])))) <= pc {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == 0 {
			return 0, false
		}
		at := fr.hdrAt + uint64(int64(int32(fr.order.Uint32(fr.hdr[8*(lo-1)+4:]))))
		if at < fr.addr || at-fr.addr >= uint64(len(fr.data)) {
			return 0, false
		}
		return int(at - fr.addr), true
	}
	i, _ := slices.BinarySearchFunc(fr.index, pc+1, func(e fdeRef, pc uint64) int { return cmp.Compare(e.start, pc) })
	if i == 0 || pc >= fr.index[i-1].end {
		return 0, false
	}
	return fr.index[i-1].off, true
}

// fde returns the FDE that covers pc.
func (t *Table) fde(pc uint64) (*fde, error) {
	for _, fr := range t.frames {
		off, ok := fr.candidate(pc)
		if !ok {
			continue
		}
		body, _, cieOff, err := fr.entry(off)
		if err != nil {
			return nil, err
		}
		if cieOff < 0 {
			return nil, fmt.Errorf("entry at %#x is not an FDE", off)
		}
		c, err := t.cie(fr, cieOff)
		if err != nil {
			return nil, err
		}
		f, err := fr.parseFDE(off, body, c)
		if err != nil {
			return nil, err
		}
		if pc >= f.start && pc < f.end {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%#x: %w", pc, ErrNoFDE)
}

// cie returns the CIE at off of fr, parsed once.
func (t *Table) cie(fr *frames, off int) (*cie, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.cies[cieKey{fr, off}]; ok {
		return c, nil
	}
	c, err := fr.parseCIE(off)
	if err != nil {
		return nil, err
	}
	t.cies[cieKey{fr, off}] = c
	return c, nil
}

// Row returns the rules that recover the caller's registers at pc, a
// link-time address; it wraps ErrNoFDE when no FDE covers pc.
func (t *Table) Row(pc uint64) (*Row, error) {
	row, err := t.row(pc)
	if err != nil {
		return nil, err
	}
	r := *row // the kept row is shared
	return &r, nil
}

// row returns the Row of pc, kept from an earlier call or kept for the
// next; it must not be changed.
func (t *Table) row(pc uint64) (*Row, error) {
	t.rowMu.Lock()
	row, ok := t.rows[pc]
	t.rowMu.Unlock()
	if ok {
		return row, nil
	}
	row, err := t.newRow(pc)
	if err != nil {
		return nil, err
	}
	t.rowMu.Lock()
	if len(t.rows) >= maxRows || t.rows == nil {
		t.rows = make(map[uint64]*Row)
	}
	t.rows[pc] = row
	t.rowMu.Unlock()
	return row, nil
}

// newRow runs the instructions of the FDE that covers pc up to pc.
func (t *Table) newRow(pc uint64) (*Row, error) {
	f, err := t.fde(pc)
	if err != nil {
		return nil, fmt.Errorf("unwind: %w", err)
	}
	row, err := f.row(pc)
	if err != nil {
		return nil, fmt.Errorf("unwind: FDE of %#x..%#x: %w", f.start, f.end, err)
	}
	return row, nil
}

// Addr returns the link-time address of the byte at file offset off of
// an executable segment.
func (t *Table) Addr(off uint64) (uint64, bool) {
	for _, p := range t.Loads {
		if p.Flags&elf.PF_X != 0 && off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// size estimates the memory the table holds, its rows at their most.
func (t *Table) size() int64 {
	var n int64
	for _, fr := range t.frames {
		n += int64(len(fr.data)) + int64(len(fr.index))*24
	}
	return n + 256 + maxRows*int64(unsafe.Sizeof(Row{}))
}
