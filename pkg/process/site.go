package process

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// ErrSemaphoreUnmapped is matched by the error of SemaphoreAddr for a
// semaphore that no private writable mapping of its file holds: the
// kernel updates a uprobe's reference counter in such mappings alone, and
// a program reads its counter from one.
var ErrSemaphoreUnmapped = errors.New("in no private writable mapping of its file")

// SemaphoreAddr returns the run-time address of the probe semaphore at
// file offset off of the file id, in a process whose mappings are maps.
// It is the one rule by which sdtkit places a semaphore, the kernel's for
// a uprobe's reference counter (ref_ctr_offset): the first private
// writable mapping of the file, in the order of maps, that holds both of
// its bytes. None gives an error matching ErrSemaphoreUnmapped.
//
// A semaphore at an odd file offset, and so at an odd address, is
// misaligned: the kernel refuses a uprobe that names it as reference
// counter (EINVAL), and the program reads an aligned counter, so raising
// it would enable nothing. Its address is returned all the same, so that
// its bytes can be shown, with an error matching stapsdt.ErrMisaligned:
// no tool writes it or counts it as a semaphore.
func SemaphoreAddr(maps []Mapping, id FileID, off uint64) (uint64, error) {
	for _, m := range maps {
		if m.Dev != id.Dev || m.Inode != id.Inode || !m.Writable() || !m.Private() {
			continue
		}
		if off < m.Offset || m.End-m.Start < 2 || off-m.Offset > m.End-m.Start-2 {
			continue
		}
		addr := m.Start + (off - m.Offset)
		if off%2 != 0 {
			return addr, fmt.Errorf("semaphore at file offset %#x: %w", off, stapsdt.ErrMisaligned)
		}
		return addr, nil
	}
	return 0, fmt.Errorf("semaphore at file offset %#x: %w", off, ErrSemaphoreUnmapped)
}

// A SiteState is the state of one probe site in a running process, as a
// SiteReader reads it.
type SiteState struct {
	// Addr is the run-time address of the site; 0 when the site has no
	// file offset or the process does not map it (ArmedErr says which).
	Addr uint64
	// Armed reports that a tracer has patched the site: the instruction
	// there is not the file's. The kernel writes its uprobe breakpoint
	// (IsBreakpoint) over it; since Linux 6.18 it may rewrite an x86-64
	// site it hit into a call. A breakpoint the file holds itself is
	// not a tracer's: the kernel refuses to place a uprobe on one.
	Armed bool
	// Breakpoint, of a site armed with a breakpoint, is the breakpoint,
	// and Insn the file's bytes under it: what restoring the site
	// writes back. Both are nil at a site that is not armed, or is
	// armed otherwise.
	Breakpoint, Insn []byte
	// ArmedErr says why Armed could not be told: the site has no file
	// offset or is not mapped (Addr is then 0), or its memory or its
	// file could not be read.
	ArmedErr error
	// Semaphore is the state of the probe's semaphore; nil for a probe
	// without one.
	Semaphore *SemaphoreState
}

// A SemaphoreState is the state of a probe's semaphore in a running
// process.
type SemaphoreState struct {
	// Addr is the semaphore's run-time address (SemaphoreAddr); 0 when
	// it has none (Err).
	Addr uint64
	// Value is its value, in the byte order of its file, which the
	// program reads it in.
	Value uint16
	// Misaligned reports a semaphore that is not 2-byte aligned (see
	// SemaphoreAddr, and stapsdt.ErrMisaligned, which says the same of
	// its link-time address). Addr and Value are those of its two
	// bytes, which no tracer should raise: it is no counter.
	Misaligned bool
	// Err says why Addr or Value is not known.
	Err error
}

// Counter reports whether the semaphore is a counter the kernel raises
// for a uprobe with a reference counter, and a tracer may change: it is
// located, read, and aligned.
func (s *SemaphoreState) Counter() bool { return s.Err == nil && !s.Misaligned }

// A SiteReader reads the state of the probe sites of one object a
// process maps. It is the one reader of live sites of sdtkit's tools, so
// that they agree on what is armed and where a semaphore is.
type SiteReader struct {
	// Mem reads the memory of the process: a *Mem. The errors of its
	// reads are those of the states, as they are.
	Mem    io.ReaderAt
	Object *Object
	// File holds the probe sites of the object's file, and Data reads
	// that file, for the instructions the sites hold there.
	File *stapsdt.File
	Data io.ReaderAt
}

// Read reads the state of site s, one of r.File.Sites.
func (r *SiteReader) Read(s *stapsdt.Site) SiteState {
	var st SiteState
	if s.HasSemaphore() {
		st.Semaphore = r.semaphore(s)
	}
	if s.PCOffsetErr != nil {
		st.ArmedErr = s.PCOffsetErr
		return st
	}
	addr, ok := r.Object.Addr(s.PCOffset)
	if !ok {
		st.ArmedErr = fmt.Errorf("pc offset %#x is not mapped by the process", s.PCOffset)
		return st
	}
	st.Addr = addr
	insn := make([]byte, maxBreakpoint)
	n, err := r.Data.ReadAt(insn, int64(s.PCOffset))
	if n < len(insn) && !errors.Is(err, io.EOF) {
		st.ArmedErr = fmt.Errorf("read site at file offset %#x: %w", s.PCOffset, err)
		return st
	}
	st.ArmedErr = readPatch(r.Mem, r.File.Machine, addr, s.PCOffset, insn[:n], &st)
	return st
}

// semaphore reads the state of the semaphore of site s.
func (r *SiteReader) semaphore(s *stapsdt.Site) *SemaphoreState {
	st := &SemaphoreState{}
	misaligned := errors.Is(s.SemaphoreOffsetErr, stapsdt.ErrMisaligned)
	if s.SemaphoreOffsetErr != nil && !misaligned {
		st.Err = s.SemaphoreOffsetErr // no file offset
		return st
	}
	addr, err := r.Object.SemaphoreAddr(s.SemaphoreOffset)
	st.Misaligned = misaligned || errors.Is(err, stapsdt.ErrMisaligned)
	if addr == 0 {
		st.Err = err
		return st
	}
	st.Addr = addr
	var b [2]byte
	if _, err := r.Mem.ReadAt(b[:], int64(addr)); err != nil {
		st.Err = err
		return st
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if r.File.ByteOrder == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	st.Value = order.Uint16(b[:])
	return st
}

// Read reads the state of the hook in the process whose memory mem
// reads, as SiteReader.Read reads a probe site's. It has no semaphore.
func (h *Hook) Read(mem io.ReaderAt) SiteState {
	st := SiteState{Addr: h.Addr}
	st.ArmedErr = readPatch(mem, h.Machine, h.Addr, h.Offset, h.Insn, &st)
	return st
}

// maxBreakpoint is the length of the longest breakpoint.
const maxBreakpoint = 4

// readPatch reads the instruction at run-time address addr from mem and
// sets st.Armed, and st.Breakpoint and st.Insn, by the rule SiteState
// gives; insn holds the file's bytes at file offset off, up to
// maxBreakpoint, fewer where the file ends.
func readPatch(mem io.ReaderAt, m elf.Machine, addr, off uint64, insn []byte, st *SiteState) error {
	live := make([]byte, maxBreakpoint)
	if _, err := mem.ReadAt(live, int64(addr)); err != nil {
		return err
	}
	short := func() error {
		return fmt.Errorf("read site at file offset %#x: %w", off, io.ErrUnexpectedEOF)
	}
	if n := BreakpointSize(live, m); n > 0 {
		if len(insn) < n {
			return short()
		}
		if BreakpointSize(insn, m) == n {
			return nil
		}
		st.Armed, st.Breakpoint, st.Insn = true, live[:n:n], insn[:n:n]
		return nil
	}
	// Over the nop's length alone: a probe on the next instruction is
	// not one on this site.
	k := nopLen(m)
	if len(insn) < k {
		return short()
	}
	st.Armed = !bytes.Equal(live[:k], insn[:k])
	return nil
}

// nopLen is the length of the nop sys/sdt.h places at a probe site.
func nopLen(m elf.Machine) int {
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		return 1
	case elf.EM_RISCV:
		return 2 // c.nop with the C extension
	}
	return 4
}
