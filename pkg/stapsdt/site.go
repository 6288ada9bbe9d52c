package stapsdt

import (
	"debug/elf"
)

// A Site is one site of a USDT probe: a probe fired from several places in
// the code has one Site per place, all with the same provider and name.
type Site struct {
	Provider string
	Name     string
	// Args is the raw argument string, such as "-4@-4(%rbp) 8@%rax".
	Args string

	// PC is the address of the probe's nop, and Semaphore the address of
	// its semaphore (0 when the probe has none), both adjusted for the
	// actual address of .stapsdt.base.
	PC        uint64
	Semaphore uint64

	// Base is the address of .stapsdt.base as recorded in the note.
	// NotePC and NoteSemaphore are the addresses as recorded in the note;
	// they differ from PC and Semaphore only when the file was rewritten
	// after linking (prelink).
	Base          uint64
	NotePC        uint64
	NoteSemaphore uint64

	// PCOffset and SemaphoreOffset are the file offsets of PC and
	// Semaphore, valid when the matching error is nil. PCOffsetErr is set
	// when PC lies in no executable PT_LOAD segment, SemaphoreOffsetErr
	// when the probe has a semaphore that lies in no writable one or is
	// not 2-byte aligned.
	PCOffset           uint64
	SemaphoreOffset    uint64
	PCOffsetErr        error
	SemaphoreOffsetErr error

	// Insn is the instruction at PCOffset in the file; InsnUnknown
	// when PCOffsetErr is set. A uprobe on the site attaches at
	// PCOffset whatever it is: the 1-byte nop of a pair (see Insn).
	Insn Insn

	// NoteOffset is the file offset of the note, for diagnostics.
	NoteOffset uint64
}

// HasSemaphore reports whether the probe is guarded by a semaphore, that
// is whether it is an is-enabled probe.
func (p *Site) HasSemaphore() bool { return p.Semaphore != 0 }

// Adjusted reports whether the addresses were adjusted for .stapsdt.base,
// that is whether PC and NotePC differ.
func (p *Site) Adjusted() bool { return p.PC != p.NotePC || p.Semaphore != p.NoteSemaphore }

// A Segment is a PT_LOAD program header of the file.
type Segment struct {
	Vaddr  uint64
	Memsz  uint64
	Offset uint64
	Filesz uint64
	Flags  elf.ProgFlag
}

// A File is the probe-related content of one ELF file.
type File struct {
	Class     elf.Class
	ByteOrder elf.Data
	Type      elf.Type
	Machine   elf.Machine

	// BaseAddr is the address of the .stapsdt.base section; HasBase
	// reports whether the file has one.
	BaseAddr uint64
	HasBase  bool

	// Segments are the PT_LOAD segments in program header order.
	Segments []Segment

	// Sites are the probe sites in note order.
	Sites []Site

	// code holds the address ranges of the sections with code, to tell a
	// pc in the headers or constants of an executable segment from one
	// at an instruction.
	code []addrRange
}

type addrRange struct{ start, end uint64 }
